import { defineResource } from '../../kit/rest/resource.js';

/** An event topic (contract: "Category", module events). */
export const categories = defineResource({
  name: 'Category',
  path: 'event/categories',
  table: 'categories',
  permission: 'CATEGORY',
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
  async check(db, values, existing): Promise<Record<string, string>> {
    const parentId = values.parent_id;
    if (!existing || parentId === undefined || parentId === null) return {};
    // The new parent must not be this category or one of its descendants: that would make a cycle.
    const { rows } = await db.raw<{ rows: { id: number }[] }>(
      `with recursive up(id, parent_id) as (
         select id, parent_id from categories where id = ?
         union all select c.id, c.parent_id from categories c join up on c.id = up.parent_id
       ) cycle id set is_cycle using path
       select id from up where id = ?`,
      [parentId as number, existing.id as number],
    );
    return rows.length ? { parent_id: 'would make the category its own ancestor' } : {};
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
