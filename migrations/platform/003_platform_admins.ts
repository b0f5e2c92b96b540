import type { Knex } from 'knex';

/** Platform administrators (ops): they sign in to `/admin/queues`, across tenants. Passwords as argon2id hashes only. */
export const name = '003_platform_admins';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).createTable('admins', (t) => {
    t.increments('id');
    t.text('email').notNullable();
    t.text('password_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create unique index admins_email_lower_idx on ??.admins (lower(email))', [schema]);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).dropTable('admins');
}
