import type { Knex } from 'knex';

/**
 * Moves the tenant's access generation (platform migration 009) whenever its users or roles
 * change, in the transaction that changes them: a request served from a process's cache of users
 * reads the committed generation with its first statement and reads its user again when it moved
 * (issue 23), so a deactivation, a changed password or a permission taken away holds for every
 * request that starts after the commit, whether or not the process has heard the notification of
 * migration 015 yet. Before the statement: the generation's row is locked before any user or role
 * row, so two transactions changing this tenant's users cannot deadlock over it. Inserts are not
 * counted: a user or role not yet there is cached nowhere. The function lives in the tenant's
 * schema, as 015's does; its body calls the platform's.
 */
export const name = '016_identity_generation';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.raw(`create function "${schema}".count_identity_change() returns trigger language plpgsql as $$
    begin
      perform platform.count_schema_access_change(tg_table_schema);
      return null;
    end $$`);
  for (const table of ['users', 'roles']) {
    await knex.raw(`create trigger ${table}_counted before update or delete or truncate on "${schema}".${table}
      for each statement execute function "${schema}".count_identity_change()`);
  }
}

export async function down(knex: Knex, schema: string): Promise<void> {
  for (const table of ['users', 'roles']) await knex.raw(`drop trigger if exists ${table}_counted on "${schema}".${table}`);
  await knex.raw(`drop function if exists "${schema}".count_identity_change()`);
}
