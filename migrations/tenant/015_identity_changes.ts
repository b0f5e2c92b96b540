import type { Knex } from 'knex';

/**
 * Announces changes of a tenant's users and roles on the `lectern_changes` channel (payload
 * `users:<schema>`), so every web process forgets the users it cached for that tenant at once
 * (issue 16: a changed password, role or deactivation takes effect within a second, across
 * processes). A trigger, not the services, sends it: the CLI, the control panel and SQL typed by
 * hand are covered alike. Statement-level, and PostgreSQL folds equal notifications of one
 * transaction into one, so a bulk change costs one. The function lives in the tenant's own
 * schema (no tenant object depends on another schema).
 */
export const name = '015_identity_changes';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.raw(`create function "${schema}".notify_identity_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('lectern_changes', 'users:' || tg_table_schema);
      return null;
    end $$`);
  for (const table of ['users', 'roles']) {
    await knex.raw(`create trigger ${table}_changed after insert or update or delete or truncate on "${schema}".${table}
      for each statement execute function "${schema}".notify_identity_change()`);
  }
}

export async function down(knex: Knex, schema: string): Promise<void> {
  for (const table of ['users', 'roles']) await knex.raw(`drop trigger if exists ${table}_changed on "${schema}".${table}`);
  await knex.raw(`drop function if exists "${schema}".notify_identity_change()`);
}
