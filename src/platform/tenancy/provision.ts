import { CHANGES_CHANNEL } from '../db/change-listener.js';
import type { Knex } from '../db/knex.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { migrateTenantSchema } from './migrate.js';
import { schemaForSlug } from './slug.js';
import { insertSettings } from './settings.data.js';
import type { Tenant } from './tenant.js';
import { deleteTenant, insertTenant, tenantSlugTaken } from './tenants.data.js';

/**
 * Creates a tenant: its schema at the latest migration, then its registry row and settings.
 * The row is written last, so a tenant is never reachable before its schema is complete;
 * if anything fails the schema is dropped again.
 */
export async function createTenant(knex: Knex, input: { slug: string; name: string }): Promise<Tenant> {
  const schema = schemaForSlug(input.slug);
  const name = input.name.trim();
  if (!name) throw new ConflictError('Tenant name must not be empty', 'invalid_name');
  const taken = await tenantSlugTaken(knex, input.slug);
  const schemaExists = await knex('information_schema.schemata').where({ schema_name: schema }).first();
  if (taken || schemaExists) throw new ConflictError(`Tenant '${input.slug}' already exists`, 'tenant_exists');

  try {
    await migrateTenantSchema(knex, schema, { create: true });
    return await knex.transaction(async (trx) => {
      const id = await insertTenant(trx, { slug: input.slug, name, schema_name: schema });
      await trx.raw(`select set_config('search_path', ?, true)`, [schema]);
      await insertSettings(trx, { name });
      return { id, slug: input.slug, name, schema };
    });
  } catch (err) {
    await knex.raw('drop schema if exists ?? cascade', [schema]).catch(() => undefined);
    if ((err as { code?: string }).code === '23505') throw new ConflictError(`Tenant '${input.slug}' already exists`, 'tenant_exists');
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
