import type { Knex } from 'knex';

/**
 * Locations and custom field definitions as the Core API's real integrations read them (issue 15):
 * - a location has a code and a region (the region of prices, migration 009; deleting a region
 *   leaves its locations without one);
 * - a custom field definition has a description (`customFieldTemplate` answers it).
 * All nullable: existing rows stay as they were.
 */
export const name = '013_reference_core';

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  await s().alterTable('locations', (t) => {
    t.text('code');
    t.integer('region_id').references('id').inTable(`${schema}.regions`).onDelete('SET NULL');
    t.index(['region_id']);
  });
  await s().alterTable('custom_field_definitions', (t) => {
    t.text('description');
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  await s().alterTable('custom_field_definitions', (t) => {
    t.dropColumn('description');
  });
  await s().alterTable('locations', (t) => {
    t.dropColumns('code', 'region_id');
  });
}
