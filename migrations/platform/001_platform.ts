import type { Knex } from 'knex';

/** Platform schema: what spans tenants. Tenant domain data never lives here. */
export const name = '001_platform';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).createTable('tenants', (t) => {
    t.increments('id');
    t.text('slug').notNullable().unique();
    t.text('name').notNullable();
    t.text('schema_name').notNullable().unique();
    t.text('status').notNullable().defaultTo('active');
    t.jsonb('stats').notNullable().defaultTo('{}');
    t.timestamp('stats_updated_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.withSchema(schema).createTable('outbox', (t) => {
    t.bigIncrements('id');
    t.integer('tenant_id').notNullable().references('id').inTable(`${schema}.tenants`).onDelete('CASCADE');
    t.text('queue').notNullable();
    t.text('job_name').notNullable();
    t.text('job_id');
    t.jsonb('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('enqueued_at', { useTz: true });
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
  });
  // The relay only ever looks at pending rows; keep that index small.
  await knex.raw(`create index outbox_pending_idx on ??.outbox (id) where enqueued_at is null`, [schema]);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).dropTable('outbox');
  await knex.schema.withSchema(schema).dropTable('tenants');
}
