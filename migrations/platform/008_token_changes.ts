import type { Knex } from 'knex';

/**
 * Announces on the `lectern_changes` channel (payload `tokens`) every change that can end an
 * access token early: a token revoked, its expiry moved or the token deleted, and any change
 * to an OAuth client (revoked, removed). Web processes cache the tokens they checked and forget
 * them all on it (issue 16). Issuing a token or using a refresh token announces nothing: a token
 * not yet cached needs no forgetting.
 */
export const name = '008_token_changes';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.raw(`create function "${schema}".notify_token_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('lectern_changes', 'tokens');
      return null;
    end $$`);
  await knex.raw(`create trigger oauth_tokens_ended after update of revoked_at, access_expires_at on "${schema}".oauth_tokens
    for each row when (old.revoked_at is distinct from new.revoked_at or old.access_expires_at is distinct from new.access_expires_at)
    execute function "${schema}".notify_token_change()`);
  await knex.raw(`create trigger oauth_tokens_deleted after delete or truncate on "${schema}".oauth_tokens
    for each statement execute function "${schema}".notify_token_change()`);
  await knex.raw(`create trigger oauth_clients_changed after update or delete or truncate on "${schema}".oauth_clients
    for each statement execute function "${schema}".notify_token_change()`);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.raw(`drop trigger if exists oauth_tokens_ended on "${schema}".oauth_tokens`);
  await knex.raw(`drop trigger if exists oauth_tokens_deleted on "${schema}".oauth_tokens`);
  await knex.raw(`drop trigger if exists oauth_clients_changed on "${schema}".oauth_clients`);
  await knex.raw(`drop function if exists "${schema}".notify_token_change()`);
}
