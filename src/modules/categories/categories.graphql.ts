import { GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { listQuery, wholeConnection, type Page } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import { categoriesByIds, Category, type CategoryCard } from './categories.data.js';
import { categoryTranslationsField } from './category-translations.graphql.js';

/**
 * LearningCategory in Core GraphQL: the REST API's event categories (the same rows), as
 * integrations read them (real-clients.md section 3): `{ id legacyId name description
 * parentCategory { ... } }`, where `description` is the category's introduction (REST
 * `introduction`, WebLink `shortDescription`). The `learningCategories` list, and the field of a
 * course template or learning path naming its category. Reading needs CATEGORY_VIEW, as in REST.
 */
const VIEW = 'CATEGORY_VIEW';

/** This request's category with this id (a page's categories in one statement). */
export const learningCategoryById = (ctx: GraphQLContext, id: number): Promise<CategoryCard | undefined> =>
  ctx.loader('LearningCategory.byId', (db) => byId((ids) => categoriesByIds(db, ids))).load(id);

export const LearningCategoryObject: GraphQLObjectType<CategoryCard, GraphQLContext> = new GraphQLObjectType<CategoryCard, GraphQLContext>({
  name: 'LearningCategory',
  description: 'A topic of course templates, learning paths and events (REST: an event category).',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('LearningCategory'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    description: { type: GraphQLString, description: 'Its introduction (REST `introduction`).', resolve: (c) => c.introduction },
    parentCategory: refField(LearningCategoryObject, VIEW, (c: CategoryCard) => c.parent_id, learningCategoryById, 'The category this is a sub category of; null for a top category.'),
    translations: categoryTranslationsField,
  }),
});

registerNode('LearningCategory', { permission: VIEW, load: learningCategoryById });

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
    parentCategory: { column: 'parent_id', kind: 'ref', refType: 'LearningCategory', description: 'A LearningCategory id: its sub categories (isnull: top categories).' },
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
