import type { Knex } from 'knex';

/**
 * Each tenant's oldest delivered webhook delivery, or a time no older than it
 * (`platform.webhook_log_prunes`): workers prune a tenant's delivery log as they deliver to it,
 * and sweep the tenants whose oldest is past WEBHOOK_LOG_DAYS, so a tenant that no longer
 * receives deliveries has its old ones deleted too. Every tenant there is starts at -infinity, to
 * be looked at once.
 */
export const name = '011_webhook_log_prunes';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).createTable('webhook_log_prunes', (t) => {
    t.integer('tenant_id').primary().references('id').inTable(`${schema}.tenants`).onDelete('CASCADE');
    t.timestamp('oldest_delivered_at', { useTz: true }).notNullable().index();
  });
  await knex.raw(`insert into ??.webhook_log_prunes (tenant_id, oldest_delivered_at) select id, '-infinity' from ??.tenants`, [
    schema,
    schema,
  ]);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).dropTableIfExists('webhook_log_prunes');
}
