import { defineResource } from '../../rest/resource.js';

/** An event topic (contract: "Category", module events). */
export const categories = defineResource({
  name: 'Category',
  path: 'event/categories',
  table: 'categories',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: {
    id: { type: 'integer', column: 'id', nullable: false },
    name: { type: 'string', column: 'name', required: true, nullable: false, maxLength: 255 },
    // The contract: accepted as input, stored, never returned.
    priority: { type: 'integer', column: 'priority', required: true, nullable: false, readable: false },
    introduction: { type: 'string', column: 'introduction', maxLength: 10000 },
    // Write-only too, so records keep the contract's shape: makes this a sub category of another.
    parent_id: { type: 'integer', column: 'parent_id', readable: false, references: { table: 'categories', label: 'category' } },
    sub_categories: { type: 'array', description: 'categories whose parent is this one: id, name, introduction' },
  },
  async check(_db, values, existing): Promise<Record<string, string>> {
    if (existing && values.parent_id === existing.id) return { parent_id: 'a category cannot be its own parent' };
    return {};
  },
  async enrich(db, rows, records) {
    const children = await db('categories')
      .whereIn('parent_id', rows.map((r) => r.id as number))
      .orderBy(['priority', 'id'])
      .select('id', 'name', 'introduction', 'parent_id');
    rows.forEach((row, i) => {
      records[i]!.sub_categories = children.filter((c) => c.parent_id === row.id).map(({ id, name, introduction }) => ({ id, name, introduction }));
    });
  },
});
