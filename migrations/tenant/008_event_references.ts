import type { Knex } from 'knex';

/**
 * Loose ends of 007: an event's tax type is a real reference now that tax types are a table
 * (ids that point nowhere are cleared first; REST checks the reference on write), and a
 * background job outlives its course template, so whoever polls it still gets an answer.
 */
export const name = '008_event_references';

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  const ref = (table: string) => `${schema}.${table}`;
  await knex.raw(
    'update ??.events set tax_type_id = null where tax_type_id is not null and tax_type_id not in (select id from ??.tax_types)',
    [schema, schema],
  );
  await s().alterTable('events', (t) => {
    t.foreign('tax_type_id').references('id').inTable(ref('tax_types')).onDelete('RESTRICT');
    t.index(['tax_type_id']);
  });
  await s().alterTable('background_jobs', (t) => {
    t.dropForeign('course_template_id');
    t.foreign('course_template_id').references('id').inTable(ref('course_templates')).onDelete('SET NULL');
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  const ref = (table: string) => `${schema}.${table}`;
  await s().alterTable('background_jobs', (t) => {
    t.dropForeign('course_template_id');
    t.foreign('course_template_id').references('id').inTable(ref('course_templates')).onDelete('CASCADE');
  });
  await s().alterTable('events', (t) => {
    t.dropIndex(['tax_type_id']);
    t.dropForeign('tax_type_id');
  });
}
