import { defineResource, restFieldErrors } from '../../kit/rest/resource.js';
import { Category, isSelfOrAncestorOf, subCategoriesJson, CATEGORY_ROWS } from './categories.data.js';
import { categoryParentProblems } from './categories.rules.js';

/** An event topic (contract: "Category", module events). */
export const categories = defineResource({
  name: 'Category',
  path: 'event/categories',
  table: Category.tableName,
  permission: 'CATEGORY',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: {
    id: { type: 'integer', column: 'id', nullable: false },
    name: { type: 'string', column: 'name', required: true, nullable: false, maxLength: 255 },
    // The contract: accepted as input, stored, never returned.
    priority: { type: 'integer', column: 'priority', required: true, nullable: false, readable: false },
    introduction: { type: 'string', column: 'introduction', maxLength: 10000 },
    // Write-only too, so records keep the contract's shape: makes this a sub category of another.
    parent_id: { type: 'integer', column: 'parent_id', readable: false, references: CATEGORY_ROWS },
    sub_categories: { type: 'array', description: 'categories whose parent is this one: id, name, introduction' },
  },
  async check(db, values, existing): Promise<Record<string, string>> {
    const parentId = values.parent_id;
    if (!existing || parentId === undefined || parentId === null) return {};
    // The new parent must not be this category or one of its descendants: that would make a cycle.
    return restFieldErrors(
      categoryParentProblems(parentId as number, await isSelfOrAncestorOf(db, existing.id as number, parentId as number)),
    );
  },
  // Read with the category, in the same statement.
  embedded: { sub_categories: subCategoriesJson },
});
