import type { Knex } from 'knex';

/**
 * Counts that outlive a process and add up across processes (`platform.counters`): what a worker
 * did (webhook deliveries delivered, failed, retried), flushed every few seconds and read by the
 * web process's /metrics, since worker processes serve no HTTP. One row per queue namespace and
 * name; a flush adds to it.
 */
export const name = '010_counters';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).createTable('counters', (t) => {
    t.text('namespace').notNullable();
    t.text('name').notNullable();
    t.bigInteger('value').notNullable().defaultTo(0);
    t.primary(['namespace', 'name']);
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).dropTableIfExists('counters');
}
