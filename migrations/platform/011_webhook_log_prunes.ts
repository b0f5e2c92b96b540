import type { Knex } from 'knex';

/**
 * When each tenant's webhook delivery log next has something to prune (`platform.webhook_log_prunes`):
 * the oldest delivery delivered there, plus WEBHOOK_LOG_DAYS. Workers prune a tenant as they
 * deliver to it, and sweep the tenants due here, so a tenant that no longer receives deliveries
 * has its old ones deleted too. Every tenant there is starts due, to be looked at once.
 */
export const name = '011_webhook_log_prunes';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).createTable('webhook_log_prunes', (t) => {
    t.integer('tenant_id').primary().references('id').inTable(`${schema}.tenants`).onDelete('CASCADE');
    t.timestamp('due_at', { useTz: true }).notNullable().index();
  });
  await knex.raw(`insert into ??.webhook_log_prunes (tenant_id, due_at) select id, now() from ??.tenants`, [schema, schema]);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).dropTableIfExists('webhook_log_prunes');
}
