import test from 'ava';
import { includes } from '../../migrations/tenant/baseline.generated.js';
import { tenantMigrations } from '../../migrations/tenant/index.js';
import type { Knex } from '../../src/platform/db/knex.js';
import { applyTenantMigrations } from '../../src/platform/tenancy/migrate.js';
import { hex, setupTestRuntime, type TestContext } from '../helpers/harness.js';

/**
 * New tenants are made from the tenant baseline (migrations/tenant/baseline.generated.ts) rather
 * than by replaying every migration. It must make the very schema the replay makes: tables and
 * their columns in order, defaults, constraints, indexes, sequences, triggers, functions, and the
 * rows the migrations insert. When a migration is added or changed, `npm run tenant-baseline`
 * writes it anew.
 */

const STALE = 'the tenant baseline no longer matches the tenant migrations: run `DATABASE_URL=... npm run tenant-baseline`';

/** What a schema is made of, its own name replaced by "S", so two schemas compare as values. */
async function fingerprint(db: Knex, schema: string): Promise<Record<string, unknown>> {
  const q = async (sql: string): Promise<unknown[]> => (await db.raw<{ rows: unknown[] }>(sql, { schema })).rows;
  const shape = {
    relations: await q(`select relname, relkind, relpersistence, relrowsecurity, reloptions from pg_class
                         where relnamespace = to_regnamespace(:schema) order by relname`),
    columns:
      await q(`select c.relname, a.attname, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull, a.attidentity, a.attgenerated,
                             a.attcollation, pg_get_expr(d.adbin, d.adrelid) as "default", col_description(c.oid, a.attnum) as comment,
                             row_number() over (partition by c.oid order by a.attnum) as position
                        from pg_attribute a join pg_class c on c.oid = a.attrelid
                        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
                       where c.relnamespace = to_regnamespace(:schema) and a.attnum > 0 and not a.attisdropped
                       order by c.relname, a.attnum`),
    // PostgreSQL 18 also lists NOT NULL as constraints ('n'); attnotnull above covers them.
    constraints: await q(`select conrelid::regclass::text as "table", conname, contype, condeferrable, condeferred, convalidated,
                                 pg_get_constraintdef(oid) as def
                            from pg_constraint where connamespace = to_regnamespace(:schema) and contype <> 'n'
                           order by 1, 2`),
    indexes: await q(`select indexname, indexdef from pg_indexes where schemaname = :schema order by 1`),
    triggers: await q(`select tgname, pg_get_triggerdef(g.oid) as def from pg_trigger g join pg_class c on c.oid = g.tgrelid
                        where c.relnamespace = to_regnamespace(:schema) and not g.tgisinternal order by 1, 2`),
    functions: await q(`select pg_get_functiondef(oid) as def from pg_proc where pronamespace = to_regnamespace(:schema) order by proname`),
    sequences:
      await q(`select c.relname, format_type(s.seqtypid, null) as type, s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache, s.seqcycle,
                               (select format('%s.%s', d.refobjid::regclass, a.attname) from pg_depend d
                                  join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
                                 where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'a') as owned_by
                          from pg_sequence s join pg_class c on c.oid = s.seqrelid
                         where c.relnamespace = to_regnamespace(:schema) order by 1`),
    views: await q(`select viewname, definition from pg_views where schemaname = :schema order by 1`),
  };
  const tables = (shape.relations as { relname: string; relkind: string }[]).filter(
    (r) => r.relkind === 'r' && !r.relname.startsWith('knex_'),
  );
  const rows: Record<string, unknown> = {};
  for (const { relname } of tables) {
    rows[relname] = (
      await db.raw<{ rows: { rows: unknown }[] }>(`select coalesce(json_agg(t order by t::text), '[]') as rows from ??.?? t`, [
        schema,
        relname,
      ])
    ).rows[0]!.rows;
  }
  const sequences: Record<string, unknown> = {};
  for (const { relname } of shape.sequences as { relname: string }[]) {
    sequences[relname] = (await db.raw<{ rows: unknown[] }>(`select last_value, is_called from ??.??`, [schema, relname])).rows[0];
  }
  const history = (await db.raw<{ rows: unknown[] }>(`select name, batch from ??.knex_migrations order by id`, [schema])).rows;
  return JSON.parse(JSON.stringify({ ...shape, rows, sequenceValues: sequences, history }).replaceAll(schema, 'S')) as Record<
    string,
    unknown
  >;
}

let ctx: TestContext;
test.serial.before(async () => {
  ctx = await setupTestRuntime();
});
test.after.always(async () => ctx?.cleanup());

/** Both schemas in one transaction (rolled back): the rows the migrations insert get one time. */
async function replayAndBaseline<T>(check: (trx: Knex.Transaction, replayed: string, fromBaseline: string) => Promise<T>): Promise<T> {
  const replayed = `tenant_replay_${hex()}`;
  const fromBaseline = `tenant_baseline_${hex()}`;
  let result: T | undefined;
  await ctx.rt.knex
    .transaction(async (trx) => {
      await applyTenantMigrations(trx, replayed, { create: true, baseline: false });
      await applyTenantMigrations(trx, fromBaseline, { create: true });
      result = await check(trx, replayed, fromBaseline);
      throw new Error('rollback');
    })
    .catch((err: Error) => {
      if (err.message !== 'rollback') throw err;
    });
  return result!;
}

test.serial('the baseline stands for every tenant migration, in order', (t) => {
  t.deepEqual(
    [...includes],
    tenantMigrations.map((m) => m.name),
    STALE,
  );
});

test.serial('when a schema is made from the baseline, then it is the schema the migrations make, rows and history included', async (t) => {
  await replayAndBaseline(async (trx, replayed, fromBaseline) => {
    const a = await fingerprint(trx, replayed);
    const b = await fingerprint(trx, fromBaseline);
    t.deepEqual(b, a, STALE);
    // The comparison looked at a real schema: its tables, keys, triggers and the migrations' rows.
    t.true((a.relations as unknown[]).length > 100);
    t.true((a.constraints as { contype: string }[]).filter((c) => c.contype === 'f').length > 20);
    t.true((a.triggers as unknown[]).length > 0);
    t.true(((a.rows as Record<string, unknown[]>).custom_field_definitions ?? []).length > 0);
    t.is((a.history as unknown[]).length, tenantMigrations.length);
  });
});

test.serial('when the two differ in one column default, then the comparison says so', async (t) => {
  await replayAndBaseline(async (trx, replayed, fromBaseline) => {
    await trx.raw(`alter table ??.price_levels alter column name set default 'x'`, [fromBaseline]);
    t.notDeepEqual(await fingerprint(trx, fromBaseline), await fingerprint(trx, replayed));
  });
});

test.serial('when a tenant is provisioned, then its tables are made at their final shape (no column added afterwards)', async (t) => {
  const tenant = await ctx.freshTenant('baseline');
  // A column added by ALTER TABLE with a default keeps that default as its "missing value".
  const { rows } = await ctx.rt.knex.raw<{ rows: { n: number }[] }>(
    `select count(*)::int as n from pg_attribute a join pg_class c on c.oid = a.attrelid
      where c.relnamespace = to_regnamespace(?) and a.atthasmissing`,
    [tenant.schema],
  );
  t.is(rows[0]!.n, 0);
  const history = await ctx.rt.knex(`${tenant.schema}.knex_migrations`).orderBy('id').pluck('name');
  t.deepEqual(
    history,
    tenantMigrations.map((m) => m.name),
  );
});
