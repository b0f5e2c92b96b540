import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { learningCategoriesField } from '../categories/index.graphql.js';
import { accountAssociationsField } from '../course-templates/index.graphql.js';
import { imageField, imageGalleryField } from '../documents/index.graphql.js';
import { pricesField } from '../pricing/index.graphql.js';
import { allDefinitions, CustomFieldValueInput, customFieldValuesField, customFieldValuesOf } from '../custom-fields/index.graphql.js';
import { LocaleObject, localeById, supportedLocale } from '../locales/index.graphql.js';
import { translationFace } from '../translations/index.graphql.js';
import type { Problem } from '../../platform/problems.js';
import type { ValueInput } from '../custom-fields/index.js';
import { LearningPath, learningPathsByIds, type LearningPathRow } from './learning-paths.data.js';
import { LEARNING_PATH_STATES, MAX_OBJECTIVES, type LearningPathSettings } from './learning-paths.rules.js';
import { forgetObjectives, learningObjectivesField } from './learning-objectives.graphql.js';
import { LEARNING_PATH_TRANSLATED, writeLearningPath, type LearningPathInput } from './learning-paths.service.js';

/**
 * LearningPath in GraphQL: name, description, code, lifecycle state, bundle flag, primary locale,
 * translations, objectives (learning-objectives.graphql.ts), image, category, prices and account
 * associations (the shared fields of documents, categories, pricing and course templates); the `learningPaths` list as
 * integrations call it (`[LearningPathFieldGraphFilter]!`: `lifecycleState eq "active"`, `id
 * eq`) and `learningPaths { create update upsertTranslation deleteTranslation }` (the contract
 * names the mutation group in the plural). LEARNING_PATH_VIEW / LEARNING_PATH_EDIT.
 */
const VIEW = 'LEARNING_PATH_VIEW';
const EDIT = 'LEARNING_PATH_EDIT';

const translations = translationFace({
  translated: LEARNING_PATH_TRANSLATED,
  ownerType: 'LearningPath',
  ownersByIds: learningPathsByIds,
  viewPermission: VIEW,
  editPermission: EDIT,
  description: "A learning path's name and description in one locale, stored as given.",
});

/**
 * A learning path's own lifecycle states (draft, active, retired), not the LifecycleState of
 * course templates and events (draft, published, cancelled): websites list the `active` ones.
 */
export const LearningPathLifecycleStateEnum = new GraphQLEnumType({
  name: 'LearningPathLifecycleState',
  description: 'draft: being prepared; active: offered (websites list these); retired: no longer offered.',
  values: Object.fromEntries(LEARNING_PATH_STATES.map((v) => [v, { value: v }])),
});

export const LearningPathObject: GraphQLObjectType<LearningPathRow, GraphQLContext> = new GraphQLObjectType<
  LearningPathRow,
  GraphQLContext
>({
  name: 'LearningPath',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('LearningPath'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    description: { type: GraphQLString },
    code: { type: GraphQLString },
    lifecycleState: { type: new GraphQLNonNull(LearningPathLifecycleStateEnum), resolve: (p) => p.lifecycle_state },
    isBundle: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'Sold as one (a bundle of its objectives) rather than as a path through them.',
      resolve: (p) => p.is_bundle,
    },
    learningObjectives: learningObjectivesField,
    image: imageField<LearningPathRow>((p) => p.image_document_id),
    imageGallery: imageGalleryField<LearningPathRow>((p) => p.image_document_id),
    learningCategories: learningCategoriesField<LearningPathRow>((p) => p.category_id),
    prices: pricesField('learning_path'),
    accountAssociations: accountAssociationsField<LearningPathRow>(),
    locale: {
      type: LocaleObject,
      description: 'The primary locale. Learning paths have no delivery locales.',
      resolve: (p, _a, ctx) => localeById(ctx, p.locale_id),
    },
    translations: translations.translationsField,
    customFieldValues: {
      ...customFieldValuesField,
      resolve: async (p, _a, ctx) => customFieldValuesOf(ctx, await translations.values(ctx, p.id), null),
    },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => p.created_on },
    updatedOn: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => p.updated_on },
  }),
});

registerNode('LearningPath', { permission: VIEW, load: (ctx, id) => translations.owner(ctx, id) });

export const learningPathsQuery = listQuery<LearningPathRow>({
  typeName: 'LearningPath',
  table: LearningPath.tableName,
  permission: VIEW,
  node: () => LearningPathObject,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'LearningPath', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    description: { column: 'description', kind: 'text' },
    code: { column: 'code', kind: 'text', orderable: true },
    lifecycleState: {
      column: 'lifecycle_state',
      kind: 'enum',
      enumValues: LEARNING_PATH_STATES,
      orderable: true,
      description: `One of ${LEARNING_PATH_STATES.join(', ')}.`,
    },
    isBundle: { column: 'is_bundle', kind: 'bool', description: "'true' or 'false'." },
    learningCategoryId: {
      column: 'category_id',
      kind: 'ref',
      refType: 'LearningCategory',
      description: 'A LearningCategory id: the paths of that category.',
    },
    locale: { column: 'locale_id', kind: 'ref', refType: 'Locale' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
    updatedOn: { column: 'updated_on', kind: 'datetime', orderable: true },
  },
});

const LearningObjectiveInput = new GraphQLInputObjectType({
  name: 'LearningObjectiveInput',
  description: 'A step of a learning path: a course template (any of its events) or one event; give exactly one.',
  fields: { courseTemplateId: { type: GraphQLID }, eventId: { type: GraphQLID } },
});

const inputFields = (create: boolean) => ({
  name: { type: create ? new GraphQLNonNull(GraphQLString) : GraphQLString },
  description: { type: GraphQLString },
  localeId: { type: GraphQLID, description: 'The primary locale (a supported Locale id).' },
  code: { type: GraphQLString, description: 'One line of at most 64 characters; null: none.' },
  lifecycleState: { type: LearningPathLifecycleStateEnum, ...(create ? { description: 'Default active.' } : {}) },
  isBundle: { type: GraphQLBoolean, ...(create ? { description: 'Default false.' } : {}) },
  customFieldValues: { type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)) },
  learningObjectives: {
    type: new GraphQLList(new GraphQLNonNull(LearningObjectiveInput)),
    description: `Its objectives, in order: the whole list (replacing the ones it had; null or []: none). At most ${MAX_OBJECTIVES}. Naming a course template needs COURSE_TEMPLATE_VIEW, an event EVENT_VIEW.`,
  },
});
const LearningPathCreateInput = new GraphQLInputObjectType({ name: 'LearningPathCreateInput', fields: inputFields(true) });
const LearningPathUpdateInput = new GraphQLInputObjectType({
  name: 'LearningPathUpdateInput',
  description: 'Only the fields given change; null clears one.',
  fields: inputFields(false),
});
const LearningPathPayload = payloadType('LearningPathPayload', 'learningPath', () => LearningPathObject);

type ObjectiveArgs = { courseTemplateId?: string | null; eventId?: string | null };
type Args = LearningPathSettings & {
  name?: string | null;
  description?: string | null;
  localeId?: string | null;
  customFieldValues?: ValueInput[] | null;
  learningObjectives?: ObjectiveArgs[] | null;
};
type Payload = { learningPath: LearningPathRow | null; errors: FieldError[] };

/** The write as the service takes it: the locale id resolved to a supported locale (false: none). */
async function resolveInput(ctx: GraphQLContext, input: Args): Promise<LearningPathInput> {
  const out: LearningPathInput = {};
  if ('name' in input) out.name = input.name;
  if ('description' in input) out.description = input.description;
  if ('code' in input) out.code = input.code;
  if ('lifecycleState' in input) out.lifecycleState = input.lifecycleState;
  if ('isBundle' in input) out.isBundle = input.isBundle;
  if ('localeId' in input) out.locale = input.localeId == null ? null : ((await supportedLocale(ctx, input.localeId)) ?? false);
  if ('customFieldValues' in input) out.customFieldValues = input.customFieldValues;
  if ('learningObjectives' in input) {
    const objectives = input.learningObjectives ?? [];
    // What the objectives name is read: its VIEW permission too.
    if (objectives.some((o) => o.courseTemplateId != null)) requirePermission(ctx, 'COURSE_TEMPLATE_VIEW');
    if (objectives.some((o) => o.eventId != null)) requirePermission(ctx, 'EVENT_VIEW');
    const idOf = (type: string, id: string | null | undefined) => (id == null ? id : (legacyIdOf(type, id) ?? false));
    out.learningObjectives = objectives.map((o) => ({
      courseTemplateId: idOf('CourseTemplate', o.courseTemplateId),
      eventId: idOf('Event', o.eventId),
    }));
  }
  return out;
}

/** Problems about the path, its locale and its objectives carry their ids; the caller sees the ids it sent. */
function withGivenIds(problems: Problem[], given: { learningPathId?: string; input: Args }): FieldError[] {
  const sent = (p: Problem): unknown => {
    if (p.field === 'learningPathId') return given.learningPathId;
    if (p.field === 'localeId') return given.input.localeId;
    const objective = /^learningObjectives\[(\d+)\]\.(courseTemplateId|eventId)$/.exec(p.field);
    return objective ? given.input.learningObjectives?.[Number(objective[1])]?.[objective[2] as keyof ObjectiveArgs] : p.value;
  };
  return toFieldErrors(problems.map((p) => ({ ...p, value: sent(p) })));
}

export const LearningPathMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'LearningPathMutations',
  fields: () => ({
    create: {
      type: LearningPathPayload,
      args: { input: { type: new GraphQLNonNull(LearningPathCreateInput) } },
      async resolve(_root, { input }: { input: Args }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const r = await writeLearningPath(ctx.db, null, await resolveInput(ctx, input), (await allDefinitions(ctx)).values());
        forgetObjectives(ctx);
        return { learningPath: r.learningPath, errors: withGivenIds(r.problems, { input }) };
      },
    },
    update: {
      type: LearningPathPayload,
      args: { learningPathId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(LearningPathUpdateInput) } },
      async resolve(_root, { learningPathId, input }: { learningPathId: string; input: Args }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('LearningPath', learningPathId);
        if (id === undefined)
          return { learningPath: null, errors: [fieldError('learningPathId', learningPathId, 'Learning Path not found')] };
        const r = await writeLearningPath(ctx.db, id, await resolveInput(ctx, input), (await allDefinitions(ctx)).values());
        translations.forget(ctx, id);
        forgetObjectives(ctx);
        return { learningPath: r.learningPath, errors: withGivenIds(r.problems, { learningPathId, input }) };
      },
    },
    upsertTranslation: translations.upsert,
    deleteTranslation: translations.remove,
  }),
});
