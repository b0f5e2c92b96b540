import test from 'ava';
import { createKnex, type Knex } from '../../src/db/knex.js';
import { withTenant } from '../../src/tenancy/with-tenant.js';
import { setupTestRuntime, type TestContext } from '../helpers/harness.js';
import type { Tenant } from '../../src/tenancy/tenant.js';

let ctx: TestContext;
let one: Knex;
let a: Tenant;
let b: Tenant;

test.serial.before(async () => {
  ctx = await setupTestRuntime();
  a = await ctx.freshTenant('leaka');
  b = await ctx.freshTenant('leakb');
  await withTenant(ctx.rt.knex, a, (db) => db('contacts').insert({ first_name: 'Alice', last_name: 'OfA' }));
  await withTenant(ctx.rt.knex, b, (db) => db('contacts').insert([{ first_name: 'Bob', last_name: 'OfB' }, { first_name: 'Bea', last_name: 'OfB' }]));
  // A pool of exactly one connection: every transaction below reuses the same session.
  one = createKnex(ctx.rt.databaseUrl, { poolMax: 1, applicationName: 'leak-test' });
});
test.after.always(async () => {
  await one?.destroy();
  await ctx?.cleanup();
});

test.serial('when one pooled connection alternates two tenants, then each sees only its own rows', async (t) => {
  const pids = new Set<number>();
  for (let i = 0; i < 40; i++) {
    const tenant = i % 2 === 0 ? a : b;
    const seen = await withTenant(one, tenant, async (db) => {
      const pid = await db.raw('select pg_backend_pid() as pid');
      pids.add(pid.rows[0].pid);
      return db('contacts').pluck('last_name');
    });
    t.deepEqual([...new Set(seen)], [tenant === a ? 'OfA' : 'OfB'], `iteration ${i}`);
  }
  t.is(pids.size, 1, 'all iterations ran on the same database session');
});

test.serial('when a transaction ends, then its search_path does not outlive it on the connection', async (t) => {
  await withTenant(one, a, (db) => db('contacts').count());
  const path = await one.raw('show search_path');
  t.notRegex(path.rows[0].search_path, /tenant_/);
  // With no tenant, unqualified tenant tables do not exist: the query fails loudly.
  await t.throwsAsync(one('contacts').select('*'), { message: /relation "contacts" does not exist/ });
});

test.serial('when a tenant transaction fails, then the next one on the connection is not affected', async (t) => {
  await t.throwsAsync(
    withTenant(one, a, async (db) => {
      await db('contacts').insert({ first_name: 'Rolled', last_name: 'Back' });
      throw new Error('boom');
    }),
    { message: 'boom' },
  );
  const names = await withTenant(one, b, (db) => db('contacts').pluck('first_name'));
  t.deepEqual(names.sort(), ['Bea', 'Bob']);
  const aNames = await withTenant(one, a, (db) => db('contacts').pluck('first_name'));
  t.deepEqual(aNames, ['Alice'], 'the failed write was rolled back');
});

test('when a schema name is not a tenant schema, then withTenant refuses it', async (t) => {
  await t.throwsAsync(withTenant(one, { schema: 'platform' }, async () => 1), { message: /unexpected tenant schema/ });
  await t.throwsAsync(withTenant(one, { schema: 'tenant_x"; drop table y; --' }, async () => 1), { message: /unexpected tenant schema/ });
});
