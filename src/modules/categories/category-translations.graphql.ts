import { GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import type { Problem } from '../../platform/problems.js';
import { catalogueLocale, localeById, LocaleObject, supportedLocale } from '../locales/index.graphql.js';
import { categoryTranslationsByIds, translationsOfCategories, type CategoryTranslationRow } from './category-translations.data.js';
import { categoryTranslatedFields } from './category-translations.rules.js';
import { deleteCategoryTranslation, upsertCategoryTranslation } from './category-translations.service.js';

/**
 * Translations of categories in Core GraphQL: the `LearningCategoryTranslation` type (a Node),
 * the `translations(locale:)` field a LearningCategory shows ({@link categoryTranslationsField}),
 * and the `learningCategory { upsertTranslation deleteTranslation }` mutations. A translation
 * overlays the category's `name` and `description` (its introduction) per field in its locale,
 * as WebLink shows them with `weblink-content-locale`. Reading needs CATEGORY_VIEW, writing
 * CATEGORY_EDIT, as in REST.
 */
const VIEW = 'CATEGORY_VIEW';
const EDIT = 'CATEGORY_EDIT';

/** This request's translations of a category, every locale (a page's categories in one statement). */
const translationsOf = (ctx: GraphQLContext) => ctx.loader('LearningCategoryTranslation.byCategory', (db) => byOwner((ids) => translationsOfCategories(db, ids), (r: CategoryTranslationRow) => r.category_id));

export const LearningCategoryTranslationObject = new GraphQLObjectType<CategoryTranslationRow, GraphQLContext>({
  name: 'LearningCategoryTranslation',
  description: "A category's name and description in one locale (a sparse overlay: null fields fall back to the category's own).",
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('LearningCategoryTranslation'),
    locale: { type: new GraphQLNonNull(LocaleObject), resolve: (row, _a, ctx) => localeById(ctx, row.locale_id) },
    name: { type: GraphQLString, description: 'null: not translated (falls back); "": a deliberate blank.' },
    description: { type: GraphQLString, description: "The introduction in this locale. null: not translated (falls back); \"\": a deliberate blank.", resolve: (row) => row.introduction },
    translatedFields: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))),
      description: 'The fields above that are not null in this locale (null: not translated, so readers fall back).',
      resolve: (row) => categoryTranslatedFields(row),
    },
  }),
});

registerNode('LearningCategoryTranslation', {
  permission: VIEW,
  load: (ctx, id) => ctx.loader('LearningCategoryTranslation.byId', (db) => byId((ids) => categoryTranslationsByIds(db, ids))).load(id),
});

/**
 * `translations(locale:)` of a LearningCategory: one entry per locale it is translated into; with
 * `locale`, only that one (an empty list when it is not translated). For categories.graphql.ts.
 */
export const categoryTranslationsField: GraphQLFieldConfig<{ id: number }, GraphQLContext, { locale?: string | null }> = {
  type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(LearningCategoryTranslationObject))),
  description: 'One entry per locale this category is translated into; with `locale`, only that one (an empty list when it is not translated).',
  args: { locale: { type: GraphQLID, description: 'A Locale id.' } },
  async resolve(category, args, ctx) {
    requirePermission(ctx, VIEW);
    const all = await translationsOf(ctx).load(category.id);
    if (args.locale == null) return all;
    const localeId = legacyIdOf('Locale', args.locale);
    return all.filter((t) => t.locale_id === localeId);
  },
};

const UpsertInput = new GraphQLInputObjectType({
  name: 'LearningCategoryTranslationUpsertInput',
  fields: {
    learningCategoryId: { type: new GraphQLNonNull(GraphQLID) },
    localeId: { type: new GraphQLNonNull(GraphQLID) },
    name: { type: GraphQLString, description: 'One line, at most 255 characters. null or absent: not translated (falls back); "": a deliberate blank.' },
    description: { type: GraphQLString, description: 'The introduction, at most 10,000 characters. null or absent: not translated (falls back); "": a deliberate blank.' },
  },
});
const DeleteInput = new GraphQLInputObjectType({
  name: 'LearningCategoryTranslationDeleteInput',
  fields: { learningCategoryId: { type: new GraphQLNonNull(GraphQLID) }, localeId: { type: new GraphQLNonNull(GraphQLID) } },
});
const Payload = payloadType('LearningCategoryTranslationPayload', 'translation', () => LearningCategoryTranslationObject);

interface DeleteArgs {
  learningCategoryId: string;
  localeId: string;
}
interface UpsertArgs extends DeleteArgs {
  name?: string | null;
  description?: string | null;
}

/** Problems about the category and the locale carry their ids; the caller sees the ids it sent. */
const withGivenIds = (problems: Problem[], input: DeleteArgs): FieldError[] =>
  toFieldErrors(problems.map((p) => (p.field === 'learningCategoryId' ? { ...p, value: input.learningCategoryId } : p.field === 'localeId' ? { ...p, value: input.localeId } : p)));

/** After a write, this request reads the category's translations again. */
const forget = (ctx: GraphQLContext, categoryId: number | undefined) => {
  if (categoryId !== undefined) translationsOf(ctx).clear(categoryId);
  ctx.forget('LearningCategoryTranslation.byId');
};

/** `learningCategory { upsertTranslation deleteTranslation }` (CATEGORY_EDIT). */
export const LearningCategoryMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'LearningCategoryMutations',
  fields: {
    upsertTranslation: {
      type: Payload,
      description: "Creates or fully replaces one locale's translation of a category (replace, not patch: omitted fields are stored as null and fall back). Any locale the instance supports: categories have no primary locale.",
      args: { input: { type: new GraphQLNonNull(UpsertInput) } },
      async resolve(_root, { input }: { input: UpsertArgs }, ctx): Promise<{ translation: CategoryTranslationRow | null; errors: FieldError[] }> {
        requirePermission(ctx, EDIT);
        const categoryId = legacyIdOf('LearningCategory', input.learningCategoryId);
        const { translation, problems } = await upsertCategoryTranslation(ctx.db, categoryId, await supportedLocale(ctx, input.localeId), { name: input.name, description: input.description });
        if (translation) forget(ctx, categoryId);
        return { translation, errors: withGivenIds(problems, input) };
      },
    },
    deleteTranslation: {
      type: Payload,
      description: "Deletes one locale's translation of a category for good (none there: nothing to do, no error).",
      args: { input: { type: new GraphQLNonNull(DeleteInput) } },
      async resolve(_root, { input }: { input: DeleteArgs }, ctx): Promise<{ translation: null; errors: FieldError[] }> {
        requirePermission(ctx, EDIT);
        const categoryId = legacyIdOf('LearningCategory', input.learningCategoryId);
        // A translation that exists can be deleted even after its locale stopped being supported.
        const { problems } = await deleteCategoryTranslation(ctx.db, categoryId, await catalogueLocale(ctx, input.localeId));
        if (!problems.length) forget(ctx, categoryId);
        return { translation: null, errors: withGivenIds(problems, input) };
      },
    },
  },
});
