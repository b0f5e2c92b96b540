import test from 'ava';
import { deleteExpiredLoginLimits } from '../../src/modules/users/index.js';
import { hex, setupTestRuntime, type TestContext } from '../helpers/harness.js';

/** Failed sign-in and client-secret counts are deleted once expired (the worker sweeps every 10 minutes). */
let ctx: TestContext;
test.before(async () => {
  ctx = await setupTestRuntime();
});
test.after.always(async () => ctx?.cleanup());

test('when counts and waits in platform.login_limits have expired, then the sweep deletes them and keeps the live ones', async (t) => {
  const prefix = `sweep${hex()}`;
  const now = Date.now();
  const rows = [
    { key: `${prefix}:old|203.0.113.1`, points: 3, expire: now - 60_000 },
    { key: `${prefix}:old|2001:db8::1`, points: 1, expire: now - 1 },
    { key: `${prefix}:live|203.0.113.2`, points: 5, expire: now + 60_000 },
    { key: `${prefix}:forever|203.0.113.3`, points: 1, expire: null },
  ];
  await ctx.rt.knex('platform.login_limits').insert(rows);
  const deleted = await deleteExpiredLoginLimits(ctx.rt.knex, now);
  t.true(deleted >= 2, `${deleted} deleted`);
  const left = await ctx.rt.knex('platform.login_limits').where('key', 'like', `${prefix}:%`).orderBy('key').pluck('key');
  t.deepEqual(left, [`${prefix}:forever|203.0.113.3`, `${prefix}:live|203.0.113.2`]);
});
