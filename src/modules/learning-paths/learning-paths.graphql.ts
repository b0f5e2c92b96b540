import { GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { allDefinitions, CustomFieldValueInput, customFieldValuesField, customFieldValuesOf } from '../custom-fields/custom-fields.graphql.js';
import { Locale, localeById, supportedLocale } from '../locales/locales.graphql.js';
import { translationFace } from '../translations/translations.graphql.js';
import type { Problem } from '../../platform/problems.js';
import type { ValueInput } from '../custom-fields/custom-fields.rules.js';
import { LearningPathRecord, learningPathsByIds, type LearningPathRow } from './learning-paths.data.js';
import { LEARNING_PATH_TRANSLATIONS } from './learning-paths.rules.js';
import { writeLearningPath, type LearningPathInput } from './learning-paths.service.js';

/**
 * LearningPath in GraphQL: name, description, primary locale, translations; the `learningPaths`
 * list and `learningPaths { create update upsertTranslation deleteTranslation }` (the contract
 * names the mutation group in the plural). LEARNING_PATH_VIEW / LEARNING_PATH_EDIT.
 */
const VIEW = 'LEARNING_PATH_VIEW';
const EDIT = 'LEARNING_PATH_EDIT';

const translations = translationFace({
  entity: LEARNING_PATH_TRANSLATIONS,
  ownerType: 'LearningPath',
  ownersByIds: learningPathsByIds,
  viewPermission: VIEW,
  editPermission: EDIT,
  description: "A learning path's name and description in one locale, stored as given.",
});

export const LearningPath: GraphQLObjectType<LearningPathRow, GraphQLContext> = new GraphQLObjectType<LearningPathRow, GraphQLContext>({
  name: 'LearningPath',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('LearningPath'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    description: { type: GraphQLString },
    locale: { type: Locale, description: 'The primary locale. Learning paths have no delivery locales.', resolve: (p, _a, ctx) => localeById(ctx, p.locale_id) },
    translations: translations.translationsField,
    customFieldValues: { ...customFieldValuesField, resolve: async (p, _a, ctx) => customFieldValuesOf(ctx, await translations.values(ctx, p.id), null) },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => p.created_on },
    updatedOn: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => p.updated_on },
  }),
});

registerNode('LearningPath', { permission: VIEW, load: (ctx, id) => translations.owner(ctx, id) });

export const learningPathsQuery = listQuery<LearningPathRow>({
  typeName: 'LearningPath',
  table: LearningPathRecord.tableName,
  permission: VIEW,
  node: () => LearningPath,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'LearningPath', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    description: { column: 'description', kind: 'text' },
    locale: { column: 'locale_id', kind: 'ref', refType: 'Locale' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
    updatedOn: { column: 'updated_on', kind: 'datetime', orderable: true },
  },
});

const inputFields = (create: boolean) => ({
  name: { type: create ? new GraphQLNonNull(GraphQLString) : GraphQLString },
  description: { type: GraphQLString },
  localeId: { type: GraphQLID, description: 'The primary locale (a supported Locale id).' },
  customFieldValues: { type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)) },
});
const LearningPathCreateInput = new GraphQLInputObjectType({ name: 'LearningPathCreateInput', fields: inputFields(true) });
const LearningPathUpdateInput = new GraphQLInputObjectType({ name: 'LearningPathUpdateInput', description: 'Only the fields given change; null clears one.', fields: inputFields(false) });
const LearningPathPayload = payloadType('LearningPathPayload', 'learningPath', () => LearningPath);

type Args = { name?: string | null; description?: string | null; localeId?: string | null; customFieldValues?: ValueInput[] | null };
type Payload = { learningPath: LearningPathRow | null; errors: FieldError[] };

/** The write as the service takes it: the locale id resolved to a supported locale (false: none). */
async function resolveInput(ctx: GraphQLContext, input: Args): Promise<LearningPathInput> {
  const out: LearningPathInput = {};
  if ('name' in input) out.name = input.name;
  if ('description' in input) out.description = input.description;
  if ('localeId' in input) out.locale = input.localeId == null ? null : ((await supportedLocale(ctx, input.localeId)) ?? false);
  if ('customFieldValues' in input) out.customFieldValues = input.customFieldValues;
  return out;
}

/** Problems about the path and its locale carry their ids; the caller sees the ids it sent. */
const withGivenIds = (problems: Problem[], given: { learningPathId?: string; localeId?: string | null }) =>
  toFieldErrors(problems.map((p) => (p.field === 'learningPathId' ? { ...p, value: given.learningPathId } : p.field === 'localeId' ? { ...p, value: given.localeId } : p)));

export const LearningPathMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'LearningPathMutations',
  fields: () => ({
    create: {
      type: LearningPathPayload,
      args: { input: { type: new GraphQLNonNull(LearningPathCreateInput) } },
      async resolve(_root, { input }: { input: Args }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const r = await writeLearningPath(ctx.db, null, await resolveInput(ctx, input), (await allDefinitions(ctx)).values());
        return { learningPath: r.learningPath, errors: withGivenIds(r.problems, { localeId: input.localeId }) };
      },
    },
    update: {
      type: LearningPathPayload,
      args: { learningPathId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(LearningPathUpdateInput) } },
      async resolve(_root, { learningPathId, input }: { learningPathId: string; input: Args }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('LearningPath', learningPathId);
        if (id === undefined) return { learningPath: null, errors: [fieldError('learningPathId', learningPathId, 'Learning Path not found')] };
        const r = await writeLearningPath(ctx.db, id, await resolveInput(ctx, input), (await allDefinitions(ctx)).values());
        translations.forget(ctx, id);
        return { learningPath: r.learningPath, errors: withGivenIds(r.problems, { learningPathId, localeId: input.localeId }) };
      },
    },
    upsertTranslation: translations.upsert,
    deleteTranslation: translations.remove,
  }),
});
