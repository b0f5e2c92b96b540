import { GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { listQuery, wholeConnection, type Page } from '../../kit/graphql/lists.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import { translationFace } from '../translations/index.graphql.js';
import { categoriesByIds, Category, type CategoryCard } from './categories.data.js';
import { CATEGORY_TRANSLATED } from './categories.service.js';

/**
 * LearningCategory in Core GraphQL: the REST API's event categories (the same rows), as
 * integrations read them (real-clients.md section 3): `{ id legacyId name description
 * parentCategory { ... } }`, where `description` is the category's introduction (REST
 * `introduction`, WebLink `shortDescription`). The `learningCategories` list, and the field of a
 * course template or learning path naming its category. Its translations (`translations`, the
 * `LearningCategoryTranslation` type, `learningCategory { upsertTranslation deleteTranslation }`)
 * overlay `name` and `description` per field in a locale, as WebLink shows them with
 * `weblink-content-locale`. Reading needs CATEGORY_VIEW, writing CATEGORY_EDIT, as in REST.
 */
const VIEW = 'CATEGORY_VIEW';
const EDIT = 'CATEGORY_EDIT';

const BLANK = 'null: not translated (falls back); "": a deliberate blank.';
const translations = translationFace({
  translated: CATEGORY_TRANSLATED,
  ownerType: 'LearningCategory',
  ownersByIds: categoriesByIds,
  viewPermission: VIEW,
  editPermission: EDIT,
  description: "A category's name and description in one locale (a sparse overlay: null fields fall back to the category's own).",
  // The schema's words for categories, which have no primary locale.
  docs: {
    translations:
      'One entry per locale this category is translated into; with `locale`, only that one (an empty list when it is not translated).',
    upsert:
      "Creates or fully replaces one locale's translation of a category (replace, not patch: omitted fields are stored as null and fall back). Any locale the instance supports: categories have no primary locale.",
    remove: "Deletes one locale's translation of a category for good (none there: nothing to do, no error).",
    fields: {
      name: {
        output: BLANK,
        input: 'One line, at most 255 characters. null or absent: not translated (falls back); "": a deliberate blank.',
      },
      description: {
        output: `The introduction in this locale. ${BLANK}`,
        input: 'The introduction, at most 10,000 characters. null or absent: not translated (falls back); "": a deliberate blank.',
      },
    },
  },
});

/** This request's category with this id (a page's categories in one statement). */
export const learningCategoryById = (ctx: GraphQLContext, id: number): Promise<CategoryCard | undefined> => translations.owner(ctx, id);

export const LearningCategoryObject: GraphQLObjectType<CategoryCard, GraphQLContext> = new GraphQLObjectType<CategoryCard, GraphQLContext>({
  name: 'LearningCategory',
  description: 'A topic of course templates, learning paths and events (REST: an event category).',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('LearningCategory'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    description: { type: GraphQLString, description: 'Its introduction (REST `introduction`).', resolve: (c) => c.introduction },
    parentCategory: refField(
      LearningCategoryObject,
      VIEW,
      (c: CategoryCard) => c.parent_id,
      learningCategoryById,
      'The category this is a sub category of; null for a top category.',
    ),
    translations: translations.translationsField,
  }),
});

registerNode('LearningCategory', { permission: VIEW, load: learningCategoryById });

/** `learningCategory { upsertTranslation deleteTranslation }` (CATEGORY_EDIT). */
export const LearningCategoryMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'LearningCategoryMutations',
  fields: { upsertTranslation: translations.upsert, deleteTranslation: translations.remove },
});

/** `learningCategories(filters, first, offset, order)`: the instance's categories. */
export const learningCategoriesQuery = listQuery<CategoryCard>({
  typeName: 'LearningCategory',
  table: Category.tableName,
  permission: VIEW,
  node: () => LearningCategoryObject,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'LearningCategory', orderable: true },
    legacyId: { column: 'id', kind: 'int', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    description: { column: 'introduction', kind: 'text', description: 'Its introduction.' },
    parentCategory: {
      column: 'parent_id',
      kind: 'ref',
      refType: 'LearningCategory',
      description: 'A LearningCategory id: its sub categories (isnull: top categories).',
    },
  },
});

/** A record's categories, as a connection of the list's own type. */
const recordCategories = wholeConnection<CategoryCard>(learningCategoriesQuery);

/**
 * `learningCategories` of a record (a course template, a learning path): its category
 * (`getCategoryId`), as a connection of one, or of none when it has no category. CATEGORY_VIEW
 * when it has one, as reaching the category directly needs.
 */
export function learningCategoriesField<P>(getCategoryId: (parent: P) => number | null | undefined): GraphQLFieldConfig<P, GraphQLContext> {
  return {
    // Nullable: without CATEGORY_VIEW the field is refused, not the whole record.
    type: recordCategories.type,
    description: 'Its category (a record has at most one), as a connection (CATEGORY_VIEW).',
    async resolve(parent, _a, ctx): Promise<Page<CategoryCard>> {
      const id = getCategoryId(parent);
      if (id != null) requirePermission(ctx, VIEW);
      const category = id == null ? undefined : await learningCategoryById(ctx, id);
      return recordCategories.page(ctx, category ? [category] : []);
    },
  };
}
