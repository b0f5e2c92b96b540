import pLimit from 'p-limit';
import { platformMigrations } from '../../../migrations/platform/index.js';
import { tenantMigrations } from '../../../migrations/tenant/index.js';
import type { Knex } from '../db/knex.js';
import { SchemaMigrationSource } from '../db/migration-source.js';
import { assertTenantSchema } from './slug.js';
import { PLATFORM_SCHEMA } from './tenant.js';
import { tenantSchemas } from './tenants.data.js';

async function migrateSchema(knex: Knex, schema: string, migrations: typeof tenantMigrations, create: boolean): Promise<string[]> {
  if (create) {
    await knex.raw('create schema if not exists ??', [schema]);
  } else if (!(await knex('information_schema.schemata').where({ schema_name: schema }).first())) {
    // migrate-all never creates a schema: a missing one is a broken tenant, not a new one.
    throw new Error(`schema ${schema} does not exist`);
  }
  // Knex runs all pending migrations of one call in a single transaction: one schema, one
  // transaction, so a schema is never left half way between two versions.
  const [, applied] = (await knex.migrate.latest({
    schemaName: schema,
    tableName: 'knex_migrations',
    migrationSource: new SchemaMigrationSource(migrations, schema),
  })) as [number, string[]];
  return applied;
}

/** Brings the platform schema up to date. Returns the names of the migrations applied. */
export function migratePlatform(knex: Knex): Promise<string[]> {
  return migrateSchema(knex, PLATFORM_SCHEMA, platformMigrations, true);
}

/** Brings one tenant schema up to date; `create` is for provisioning a new tenant. */
export function migrateTenantSchema(knex: Knex, schema: string, opts: { create: boolean }): Promise<string[]> {
  return migrateSchema(knex, assertTenantSchema(schema), tenantMigrations, opts.create);
}

/**
 * True when the schema's history already holds every tenant migration. One indexed read instead
 * of knex's migrator (which queries information_schema, slow with thousands of schemas), so
 * migrate-all over many up-to-date tenants costs one query each.
 */
async function isUpToDate(knex: Knex, schema: string): Promise<boolean> {
  try {
    const done = new Set(await knex(`${schema}.knex_migrations`).pluck('name'));
    return tenantMigrations.every((m) => done.has(m.name));
  } catch {
    return false; // no history table yet: let the migrator create it
  }
}

export interface TenantMigrationResult {
  slug: string;
  schema: string;
  ok: boolean;
  applied: string[];
  ms: number;
  error?: string;
}

export interface MigrateAllResult {
  platform: string[];
  tenants: TenantMigrationResult[];
  failed: string[];
}

/**
 * Platform first, then every tenant schema with bounded parallelism. A failing tenant is
 * reported and does not stop the others.
 */
export async function migrateAll(
  knex: Knex,
  opts: { concurrency: number; onResult?: (r: TenantMigrationResult) => void },
): Promise<MigrateAllResult> {
  const platform = await migratePlatform(knex);
  const tenants = await tenantSchemas(knex);
  const limit = pLimit(opts.concurrency);
  const results = await Promise.all(
    tenants.map((t) =>
      limit(async (): Promise<TenantMigrationResult> => {
        const started = Date.now();
        let result: TenantMigrationResult;
        try {
          const applied = (await isUpToDate(knex, assertTenantSchema(t.schema_name)))
            ? []
            : await migrateTenantSchema(knex, t.schema_name, { create: false });
          result = { slug: t.slug, schema: t.schema_name, ok: true, applied, ms: Date.now() - started };
        } catch (err) {
          result = { slug: t.slug, schema: t.schema_name, ok: false, applied: [], ms: Date.now() - started, error: (err as Error).message };
        }
        opts.onResult?.(result);
        return result;
      }),
    ),
  );
  return { platform, tenants: results, failed: results.filter((r) => !r.ok).map((r) => r.slug) };
}
