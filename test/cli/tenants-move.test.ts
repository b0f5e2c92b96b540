import test from 'ava';
import { runTs, setupTestRuntime, type TestContext } from '../helpers/harness.js';

/**
 * `tenants:move` hands a tenant schema to Citus (citus_schema_move). There is no Citus on the
 * machines this suite runs on, so what is checked here is the refusal on plain PostgreSQL: a
 * clear message, a non-zero exit and the tenant untouched.
 */
let ctx: TestContext;
test.serial.before(async () => {
  ctx = await setupTestRuntime();
});
test.after.always(async () => ctx?.cleanup());

test('when the database is plain PostgreSQL, then tenants:move refuses with exit 1 and the tenant stays where it is', async (t) => {
  const tenant = await ctx.freshTenant('move');
  const r = await runTs('src/cli/main.ts', ['tenants:move', '--tenant', tenant.slug, '--node', 'worker-2.internal:5432']);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, /plain PostgreSQL \(no citus extension\)/);
  t.is(r.stdout.trim(), '');
  const tables = await ctx.rt.knex('pg_catalog.pg_tables').where({ schemaname: tenant.schema }).count({ n: '*' });
  t.true(Number(tables[0]!.n) > 20, 'its tables are still in its schema');
});

test('when the node is not host:port or the tenant is unknown, then tenants:move says so', async (t) => {
  const bad = await runTs('src/cli/main.ts', ['tenants:move', '--tenant', 'acme', '--node', 'worker-2']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--node must be host:port/);
  const unknown = await runTs('src/cli/main.ts', ['tenants:move', '--tenant', 'no-such-tenant-here', '--node', 'worker-2:5432']);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /No tenant 'no-such-tenant-here'/);
});
