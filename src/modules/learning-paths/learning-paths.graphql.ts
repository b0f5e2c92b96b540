import { GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { allDefinitions, CustomFieldValueInput, customFieldValuesField, customFieldValuesOf } from '../custom-fields/custom-fields.graphql.js';
import { Locale, localeById, supportedLocale } from '../locales/locales.graphql.js';
import { translationFace } from '../translations/translations.graphql.js';
import { LEARNING_PATH_TRANSLATIONS, writeLearningPath, type LearningPathInput, type LearningPathRow } from './learning-paths.service.js';

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
  table: 'learning_paths',
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

type RawInput = Record<string, unknown> & { localeId?: string | null };
type Payload = { learningPath: LearningPathRow | null; errors: FieldError[] };

async function resolveInput(ctx: GraphQLContext, input: RawInput): Promise<LearningPathInput> {
  const out: LearningPathInput = { ...(input as LearningPathInput) };
  if ('localeId' in input) out.locale = input.localeId == null ? null : ((await supportedLocale(ctx, input.localeId)) ?? false);
  return out;
}

export const LearningPathMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'LearningPathMutations',
  fields: () => ({
    create: {
      type: LearningPathPayload,
      args: { input: { type: new GraphQLNonNull(LearningPathCreateInput) } },
      async resolve(_root, { input }: { input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const r = await writeLearningPath(ctx.db, null, await resolveInput(ctx, input), { definitions: (await allDefinitions(ctx)).values(), rawLocaleId: input.localeId });
        return { learningPath: r.learningPath, errors: r.errors };
      },
    },
    update: {
      type: LearningPathPayload,
      args: { learningPathId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(LearningPathUpdateInput) } },
      async resolve(_root, { learningPathId, input }: { learningPathId: string; input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('LearningPath', learningPathId);
        if (id === undefined) return { learningPath: null, errors: [fieldError('learningPathId', learningPathId, 'Learning Path not found')] };
        const r = await writeLearningPath(ctx.db, id, await resolveInput(ctx, input), { definitions: (await allDefinitions(ctx)).values(), rawLocaleId: input.localeId });
        translations.forget(ctx, id);
        return { learningPath: r.learningPath, errors: r.errors.map((e) => (e.label === 'learningPathId' ? { ...e, value: learningPathId } : e)) };
      },
    },
    upsertTranslation: translations.upsert,
    deleteTranslation: translations.remove,
  }),
});
