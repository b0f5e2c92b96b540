import type { Knex } from 'knex';

/**
 * What a request checks in the round trip of its first statement (issue 23): the tenant's
 * access generation, a counter that every change able to end a cached user or access token of
 * that tenant moves in its own transaction. A web process remembers with each cached user or
 * token the generation it was read at; a request served from that cache reads the committed one
 * with its first statement (`platform.access_generation(tenant)`, next to its settings, no extra
 * round trip) and reads the user or token again only when it moved. So a change is seen by every
 * request that starts after its commit, whether or not a process has heard the notification yet.
 *
 * - users and roles of a tenant: tenant migration 016 (its triggers call
 *   `platform.count_schema_access_change`);
 * - a token revoked, its expiry moved, or tokens deleted: the token's tenant;
 * - a change to an OAuth client (revoked, say): the tenants that have tokens of it (a client
 *   removed takes its tokens with it, which counts for their tenants);
 * - a tenant suspended or removed: `access_generation` is null once it is not active, and the
 *   request is refused.
 *
 * Also announces (NOTIFY lectern_changes) tenant changes (`tenant:<id>:<old slug>:<new slug>`
 * for a tenant changed or removed, `tenants:new` when one is made, `tenants` when the table is
 * truncated) and portal changes (`portals`), so web processes forget tenant and portal lookups
 * at once instead of after TENANT_CACHE_TTL_MS.
 *
 * The counter row is locked by the transaction that moves it until it commits, so changes to one
 * tenant's users, roles and tokens commit one after another; the tenant's triggers take it before
 * their statement touches a row (BEFORE ... FOR EACH STATEMENT), so two such transactions cannot
 * deadlock over it.
 */
export const name = '009_access_generations';

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = `"${schema}"`;
  await knex.raw(`create table ${s}.access_generations (
    tenant_id integer primary key references ${s}.tenants(id) on delete cascade,
    generation bigint not null default 0
  )`);

  // The generation of an active tenant (0 until its first change), null when it is not active or
  // gone. plpgsql, not an inlinable SQL function: its statement is planned once per connection,
  // not with every request's first statement.
  await knex.raw(`create function ${s}.access_generation(tenant integer) returns bigint language plpgsql stable as $$
    declare
      g bigint;
    begin
      select coalesce(a.generation, 0) into g
        from ${s}.tenants t left join ${s}.access_generations a on a.tenant_id = t.id
       where t.id = tenant and t.status = 'active';
      return g;
    end $$`);
  // The same for the tenant of an access token, in the round trip that reads the token.
  await knex.raw(`create function ${s}.token_access_generation(token_hash text) returns bigint language plpgsql stable as $$
    declare
      tenant integer;
    begin
      select tenant_id into tenant from ${s}.oauth_tokens where access_token_hash = token_hash;
      return ${s}.access_generation(tenant);
    end $$`);

  // Moves the generation of the tenants given (null: every tenant). A tenant still being made (its
  // row not yet written) has nothing cached anywhere: nothing to move.
  await knex.raw(`create function ${s}.count_access_change(tenant_ids integer[]) returns void language plpgsql as $$
    begin
      insert into ${s}.access_generations as a (tenant_id, generation)
        select t.id, 1 from ${s}.tenants t where tenant_ids is null or t.id = any(tenant_ids)
        on conflict (tenant_id) do update set generation = a.generation + 1;
    end $$`);
  // For the triggers of a tenant's schema, which know their schema's name, not the tenant's id.
  await knex.raw(`create function ${s}.count_schema_access_change(tenant_schema text) returns void language plpgsql as $$
    begin
      perform ${s}.count_access_change(array(select id from ${s}.tenants t where t.schema_name = tenant_schema));
    end $$`);

  // Tokens: a revocation or a moved expiry (row by row, only when they change), deletions (by the
  // tenants of the rows deleted), a truncation (every tenant).
  await knex.raw(`create function ${s}.count_token_change() returns trigger language plpgsql as $$
    begin
      perform ${s}.count_access_change(array[new.tenant_id]);
      return null;
    end $$`);
  await knex.raw(`create trigger oauth_tokens_counted after update of revoked_at, access_expires_at on ${s}.oauth_tokens
    for each row when (old.revoked_at is distinct from new.revoked_at or old.access_expires_at is distinct from new.access_expires_at)
    execute function ${s}.count_token_change()`);
  await knex.raw(`create function ${s}.count_tokens_deleted() returns trigger language plpgsql as $$
    begin
      perform ${s}.count_access_change(array(select distinct tenant_id from deleted_tokens));
      return null;
    end $$`);
  await knex.raw(`create trigger oauth_tokens_deleted_counted after delete on ${s}.oauth_tokens
    referencing old table as deleted_tokens for each statement execute function ${s}.count_tokens_deleted()`);
  await knex.raw(`create function ${s}.count_all_access_change() returns trigger language plpgsql as $$
    begin
      perform ${s}.count_access_change(null);
      return null;
    end $$`);
  await knex.raw(`create trigger oauth_tokens_truncated_counted after truncate on ${s}.oauth_tokens
    for each statement execute function ${s}.count_all_access_change()`);
  await knex.raw(`create function ${s}.count_clients_changed() returns trigger language plpgsql as $$
    begin
      perform ${s}.count_access_change(array(select distinct t.tenant_id from ${s}.oauth_tokens t where t.client_id in (select id from changed_clients)));
      return null;
    end $$`);
  await knex.raw(`create trigger oauth_clients_counted after update on ${s}.oauth_clients
    referencing new table as changed_clients for each statement execute function ${s}.count_clients_changed()`);
  await knex.raw(`create trigger oauth_clients_truncated_counted after truncate on ${s}.oauth_clients
    for each statement execute function ${s}.count_all_access_change()`);

  // Announcements: tenant and portal lookups are forgotten by every web process at once.
  await knex.raw(`create function ${s}.notify_tenancy_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('lectern_changes', tg_argv[0]);
      return null;
    end $$`);
  // A new tenant: only names remembered as no tenant need forgetting. A tenant changed or removed:
  // that tenant, under its old and new names. Statistics updates announce nothing.
  await knex.raw(`create trigger tenants_created after insert on ${s}.tenants
    for each statement execute function ${s}.notify_tenancy_change('tenants:new')`);
  await knex.raw(`create function ${s}.notify_tenant_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('lectern_changes', format('tenant:%s:%s:%s', old.id, old.slug, coalesce(new.slug, old.slug)));
      return null;
    end $$`);
  await knex.raw(`create trigger tenants_changed after update of slug, name, schema_name, status or delete on ${s}.tenants
    for each row execute function ${s}.notify_tenant_change()`);
  await knex.raw(`create trigger tenants_truncated after truncate on ${s}.tenants
    for each statement execute function ${s}.notify_tenancy_change('tenants')`);
  await knex.raw(`create trigger portals_changed after insert or update or delete or truncate on ${s}.portals
    for each statement execute function ${s}.notify_tenancy_change('portals')`);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  const s = `"${schema}"`;
  await knex.raw(`drop trigger if exists portals_changed on ${s}.portals`);
  await knex.raw(`drop trigger if exists tenants_truncated on ${s}.tenants`);
  await knex.raw(`drop trigger if exists tenants_changed on ${s}.tenants`);
  await knex.raw(`drop function if exists ${s}.notify_tenant_change()`);
  await knex.raw(`drop trigger if exists tenants_created on ${s}.tenants`);
  await knex.raw(`drop function if exists ${s}.notify_tenancy_change()`);
  await knex.raw(`drop trigger if exists oauth_clients_truncated_counted on ${s}.oauth_clients`);
  await knex.raw(`drop trigger if exists oauth_clients_counted on ${s}.oauth_clients`);
  await knex.raw(`drop function if exists ${s}.count_clients_changed()`);
  await knex.raw(`drop trigger if exists oauth_tokens_truncated_counted on ${s}.oauth_tokens`);
  await knex.raw(`drop trigger if exists oauth_tokens_deleted_counted on ${s}.oauth_tokens`);
  await knex.raw(`drop trigger if exists oauth_tokens_counted on ${s}.oauth_tokens`);
  await knex.raw(`drop function if exists ${s}.count_all_access_change()`);
  await knex.raw(`drop function if exists ${s}.count_tokens_deleted()`);
  await knex.raw(`drop function if exists ${s}.count_token_change()`);
  await knex.raw(`drop function if exists ${s}.count_schema_access_change(text)`);
  await knex.raw(`drop function if exists ${s}.count_access_change(integer[])`);
  await knex.raw(`drop function if exists ${s}.token_access_generation(text)`);
  await knex.raw(`drop function if exists ${s}.access_generation(integer)`);
  await knex.raw(`drop table if exists ${s}.access_generations`);
}
