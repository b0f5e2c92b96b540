import type { Knex } from 'knex';

/** Calls to the retired REST API per tenant, user (0 = unauthenticated), endpoint and day. */
export const name = '002_legacy_usage';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).createTable('legacy_usage', (t) => {
    t.integer('tenant_id').notNullable().references('id').inTable(`${schema}.tenants`).onDelete('CASCADE');
    t.integer('user_id').notNullable();
    t.text('endpoint').notNullable();
    t.date('day').notNullable();
    t.bigInteger('calls').notNullable().defaultTo(0);
    t.timestamp('last_called_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'user_id', 'endpoint', 'day']);
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).dropTable('legacy_usage');
}
