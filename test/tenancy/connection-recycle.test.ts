import test from 'ava';
import { loadConfig, ConfigError } from '../../src/platform/config.js';
import { createKnex, type Knex } from '../../src/platform/db/knex.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { setupTestRuntime, type TestContext } from '../helpers/harness.js';

/**
 * A pooled connection's backend keeps catalog entries for every schema it has served; past
 * DB_CONNECTION_MAX_SCHEMAS distinct schemas the connection is replaced when next handed out,
 * never during a transaction, and no request fails across it.
 */
let ctx: TestContext;
let tenants: Tenant[];
const pools: Knex[] = [];
test.serial.before(async () => {
  ctx = await setupTestRuntime();
  tenants = [];
  for (const slug of ['recya', 'recyb', 'recyc', 'recyd', 'recye']) tenants.push(await ctx.freshTenant(slug));
});
test.after.always(async () => {
  for (const p of pools) await p.destroy();
  await ctx?.cleanup();
});

/** A pool of one connection, straight to PostgreSQL (behind a pooler one client connection is no one session). */
function onePool(maxSchemasPerConnection: number): Knex {
  const knex = createKnex(ctx.rt.directDatabaseUrl, { poolMax: 1, applicationName: 'recycle-test', maxSchemasPerConnection });
  pools.push(knex);
  return knex;
}

const backendOf = (knex: Knex, tenant: Tenant, readOnly: boolean) =>
  withTenant(knex, tenant, async (db) => (await db.raw('select pg_backend_pid() as pid')).rows[0].pid as number, {
    readOnly,
    autocommit: readOnly,
  });

test.serial('when a connection has served more distinct schemas than the limit, then the next request gets a new one', async (t) => {
  const knex = onePool(3);
  const pids: number[] = [];
  // Reads (autocommit statements) and writes (transactions) both count.
  for (const [i, tenant] of tenants.entries()) pids.push(await backendOf(knex, tenant, i % 2 === 0));
  // The first four ran on one backend: the fourth schema took it past 3, so the fifth request got another.
  t.is(new Set(pids.slice(0, 4)).size, 1, pids.join(' '));
  t.not(pids[4], pids[0]);
  // The old backend is gone: PostgreSQL no longer has it.
  const alive = await ctx.rt.knex.raw('select count(*)::int as n from pg_stat_activity where pid = ?', [pids[0]!]);
  t.is(alive.rows[0].n, 0);
});

test.serial('when a connection serves the same schemas again and again, then it is kept', async (t) => {
  const knex = onePool(2);
  const pids = new Set<number>();
  for (let i = 0; i < 20; i++) pids.add(await backendOf(knex, tenants[i % 2]!, i % 3 === 0));
  t.is(pids.size, 1);
});

test.serial('when requests run concurrently across the limit, then none fails and each sees its own tenant', async (t) => {
  const knex = onePool(1);
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      withTenant(knex, tenants[i % tenants.length]!, async (db) => (await db.raw('select current_schema() as s')).rows[0].s as string),
    ),
  );
  t.deepEqual(
    answers,
    Array.from({ length: 30 }, (_, i) => tenants[i % tenants.length]!.schema),
  );
});

test('the settings are read and checked: a whole number of schemas (0: no limit), a duration or 0', (t) => {
  t.like(loadConfig({}), { dbConnectionMaxSchemas: 1000, dbConnectionMaxAgeMs: 3_600_000 });
  t.like(loadConfig({ DB_CONNECTION_MAX_SCHEMAS: '0', DB_CONNECTION_MAX_AGE: '0' }), {
    dbConnectionMaxSchemas: 0,
    dbConnectionMaxAgeMs: 0,
  });
  t.like(loadConfig({ DB_CONNECTION_MAX_AGE: '15m' }), { dbConnectionMaxAgeMs: 900_000 });
  const err = t.throws(() => loadConfig({ DB_CONNECTION_MAX_SCHEMAS: 'many', DB_CONNECTION_MAX_AGE: 'soon' }), { instanceOf: ConfigError });
  t.regex(err!.message, /DB_CONNECTION_MAX_SCHEMAS/);
  t.regex(err!.message, /DB_CONNECTION_MAX_AGE/);
});
