import { CHANGES_CHANNEL } from '../db/change-listener.js';
import type { Knex } from '../db/knex.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { applyTenantMigrations, schemaExists } from './migrate.js';
import { schemaForSlug } from './slug.js';
import { insertSettings } from './settings.data.js';
import type { Tenant } from './tenant.js';
import { deleteTenant, insertTenant, tenantSlugTaken } from './tenants.data.js';

/**
 * Creates a tenant: its schema at the latest migration, its settings, then its registry row, all
 * in one transaction. The row is written last and nothing is visible before the commit, so a
 * tenant is never reachable before its schema is complete, and a failure (or a process killed
 * half way) leaves no schema behind.
 */
export async function createTenant(knex: Knex, input: { slug: string; name: string }): Promise<Tenant> {
  const schema = schemaForSlug(input.slug);
  const name = input.name.trim();
  if (!name) throw new ConflictError('Tenant name must not be empty', 'invalid_name');
  if ((await tenantSlugTaken(knex, input.slug)) || (await schemaExists(knex, schema))) {
    throw new ConflictError(`Tenant '${input.slug}' already exists`, 'tenant_exists');
  }
  try {
    return await knex.transaction(async (trx) => {
      await applyTenantMigrations(trx, schema, { create: true });
      await trx.raw(`select set_config('search_path', ?, true)`, [schema]);
      await insertSettings(trx, { name });
      const id = await insertTenant(trx, { slug: input.slug, name, schema_name: schema });
      return { id, slug: input.slug, name, schema };
    });
  } catch (err) {
    // Two creations of one slug raced past the check above: the loser's schema or row collides
    // (duplicate schema, unique slug) and its whole transaction is gone.
    const code = (err as { code?: string }).code;
    if (code === '23505' || code === '42P06') throw new ConflictError(`Tenant '${input.slug}' already exists`, 'tenant_exists');
    throw err;
  }
}

/** Removes a tenant and all its data. Used by tests and by ops for offboarding. */
export async function dropTenant(knex: Knex, slug: string): Promise<void> {
  const schema = schemaForSlug(slug);
  if (!(await tenantSlugTaken(knex, slug))) throw new NotFoundError(`No tenant '${slug}'`, 'tenant_not_found');
  await knex.transaction(async (trx) => {
    await deleteTenant(trx, slug);
    await trx.raw('drop schema if exists ?? cascade', [schema]);
    // Web processes forget the users they cached for the schema (its triggers went with it).
    await trx.raw('select pg_notify(?, ?)', [CHANGES_CHANNEL, `users:${schema}`]);
  });
}
