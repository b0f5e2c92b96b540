import pLimit from 'p-limit';
import { platformMigrations } from '../../../migrations/platform/index.js';
import { tenantMigrations } from '../../../migrations/tenant/index.js';
import type { Knex } from '../db/knex.js';
import { SchemaMigrationSource, type SchemaMigration } from '../db/migration-source.js';
import { baselineFor } from './baseline.js';
import { assertTenantSchema } from './slug.js';
import { PLATFORM_SCHEMA } from './tenant.js';
import { tenantSchemas } from './tenants.data.js';

/** knex's history tables; tenant schemas keep knex's names and shapes (see applyTenantMigrations). */
const HISTORY = 'knex_migrations';
const HISTORY_LOCK = 'knex_migrations_lock';

/** Brings the platform schema up to date with knex's migrator. Returns the names of the migrations applied. */
export async function migratePlatform(knex: Knex): Promise<string[]> {
  await knex.raw('create schema if not exists ??', [PLATFORM_SCHEMA]);
  // Knex runs all pending migrations of one call in a single transaction.
  const [, applied] = (await knex.migrate.latest({
    schemaName: PLATFORM_SCHEMA,
    tableName: HISTORY,
    migrationSource: new SchemaMigrationSource(platformMigrations, PLATFORM_SCHEMA),
  })) as [number, string[]];
  return applied;
}

/**
 * Runs a tenant schema's pending migrations inside the caller's transaction `trx`; `create`
 * makes the schema first (provisioning). Returns the names applied.
 *
 * Why not knex's migrator (which the platform schema still uses): before and after taking its
 * lock it asks `information_schema.tables` four times whether its two history tables exist,
 * and that view cannot use an index on the schema name: each call reads every schema's
 * `knex_migrations` row of pg_class through privilege checks, about 33 ms at 1,000 tenant schemas
 * and ten times that at 10,000, so provisioning and migrate-all grew linearly with the number of
 * tenants (0.42 s per tenant at 2,000). It also creates its history tables outside its
 * transaction. This does what its `latest()` does, in the same tables with the same rows, so
 * either can run after the other: history tables looked up with to_regclass (one index probe),
 * created when missing with knex's own column definitions; the lock row taken as knex takes it
 * (a concurrent knex migrator, or a second migrate-all, waits for it and then finds nothing
 * left to do); a history that names a migration this code does not know is refused as knex
 * refuses it; pending migrations run in list order, each recorded with one new batch number.
 * Everything, the schema and history tables included, is in `trx`: a schema is never left
 * half way between two versions, and a process killed mid-way leaves no trace.
 *
 * A new schema (`create`) is made from the tenant baseline (see baseline.ts) where it stands for
 * the first migrations of the list: its SQL in one statement batch, and one history row per
 * migration it stands for, in the same batch as the migrations run after it. `baseline: false`
 * replays every migration instead (the baseline's own test, and its generator).
 */
export async function applyTenantMigrations(
  trx: Knex.Transaction,
  schema: string,
  opts: { create: boolean; migrations?: readonly SchemaMigration[]; baseline?: boolean },
): Promise<string[]> {
  assertTenantSchema(schema);
  const migrations = opts.migrations ?? tenantMigrations;
  if (opts.create) {
    await trx.raw('create schema ??', [schema]);
  } else if (!(await schemaExists(trx, schema))) {
    // migrate-all never creates a schema: a missing one is a broken tenant, not a new one.
    throw new Error(`schema ${schema} does not exist`);
  }
  const history = `${schema}.${HISTORY}`;
  const lockTable = `${schema}.${HISTORY_LOCK}`;
  const { rows } = await trx.raw<{ rows: { history: string | null; lock: string | null }[] }>(
    'select to_regclass(?) as history, to_regclass(?) as lock',
    [`"${schema}".${HISTORY}`, `"${schema}".${HISTORY_LOCK}`],
  );
  // The same builder calls as knex's migrations/migrate/table-creator.js.
  if (!rows[0]?.history) {
    await trx.schema.withSchema(schema).createTable(HISTORY, (t) => {
      t.increments();
      t.string('name');
      t.integer('batch');
      t.timestamp('migration_time');
    });
  }
  if (!rows[0]?.lock) {
    await trx.schema.withSchema(schema).createTable(HISTORY_LOCK, (t) => {
      t.increments('index').primary();
      t.integer('is_locked');
    });
  }
  if (!(await trx(lockTable).first())) await trx(lockTable).insert({ is_locked: 0 });
  const locked = await trx(lockTable).where({ is_locked: 0 }).update({ is_locked: 1 });
  if (locked !== 1) throw new Error('Migration table is already locked');

  const done = await trx(history).orderBy('id').select<{ name: string; batch: number }[]>('name', 'batch');
  const known = new Set(migrations.map((m) => m.name));
  const unknown = done.filter((d) => !known.has(d.name)).map((d) => d.name);
  if (unknown.length) throw new Error(`The migration directory is corrupt, the following files are missing: ${unknown.join(', ')}`);
  const names = new Set(done.map((d) => d.name));
  let pending = migrations.filter((m) => !names.has(m.name));
  const batch = Math.max(0, ...done.map((d) => d.batch ?? 0)) + 1;
  const baseline = opts.create && opts.baseline !== false && !done.length ? baselineFor(schema, migrations) : undefined;
  if (baseline) {
    await trx.raw(baseline.sql);
    const migrationTime = new Date();
    await trx(history).insert(baseline.names.map((name) => ({ name, batch, migration_time: migrationTime })));
    pending = pending.slice(baseline.names.length);
  }
  for (const m of pending) {
    await m.up(trx, schema);
    await trx(history).insert({ name: m.name, batch, migration_time: new Date() });
  }
  await trx(lockTable).update({ is_locked: 0 });
  return [...(baseline?.names ?? []), ...pending.map((m) => m.name)];
}

/** Brings one tenant schema up to date in a transaction of its own; `create` is for a new tenant. */
export function migrateTenantSchema(
  knex: Knex,
  schema: string,
  opts: { create: boolean; migrations?: readonly SchemaMigration[] },
): Promise<string[]> {
  return knex.transaction((trx) => applyTenantMigrations(trx, schema, opts));
}

/** One index probe of pg_namespace (information_schema.schemata adds privilege checks for nothing). */
export async function schemaExists(db: Knex, schema: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { oid: string | null }[] }>('select to_regnamespace(?) as oid', [`"${schema}"`]);
  return Boolean(rows[0]?.oid);
}

/**
 * True when the schema's history already holds every migration: one indexed read, outside any
 * transaction and without the lock, so migrate-all over many up-to-date tenants (and a rerun
 * after an interrupted one) costs one query per tenant.
 */
async function isUpToDate(knex: Knex, schema: string, migrations: readonly SchemaMigration[]): Promise<boolean> {
  try {
    const done = new Set(await knex(`${schema}.${HISTORY}`).pluck('name'));
    return migrations.every((m) => done.has(m.name));
  } catch {
    return false; // no history table yet: applyTenantMigrations creates it
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
 * Platform first, then every tenant schema with bounded parallelism, each tenant in a
 * transaction of its own. A failing tenant is reported and does not stop the others; an
 * interrupted run leaves every tenant either migrated or untouched, so running it again skips
 * the finished ones (one read each) and carries on. `migrations` replaces the tenant migration
 * list (the tenancy benchmark adds one of its own).
 */
export async function migrateAll(
  knex: Knex,
  opts: { concurrency: number; onResult?: (r: TenantMigrationResult) => void; migrations?: readonly SchemaMigration[] },
): Promise<MigrateAllResult> {
  const migrations = opts.migrations ?? tenantMigrations;
  const platform = await migratePlatform(knex);
  const tenants = await tenantSchemas(knex);
  const limit = pLimit(opts.concurrency);
  const results = await Promise.all(
    tenants.map((t) =>
      limit(async (): Promise<TenantMigrationResult> => {
        const started = Date.now();
        let result: TenantMigrationResult;
        try {
          const applied = (await isUpToDate(knex, assertTenantSchema(t.schema_name), migrations))
            ? []
            : await migrateTenantSchema(knex, t.schema_name, { create: false, migrations });
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
