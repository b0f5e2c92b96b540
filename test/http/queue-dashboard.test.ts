import test from 'ava';
import { QUEUE_NAMES } from '../../src/platform/queues/queues.js';
import { loadConfig } from '../../src/platform/config.js';
import { createPlatformAdmin } from '../../src/modules/admins/admins.service.js';
import { request, setupTestRuntime, startTestApp, type TestContext } from '../helpers/harness.js';
import { basic } from '../helpers/rest.js';

let ctx: TestContext;
let port: number;
let close: () => Promise<void>;
const email = `ops-${Date.now()}@lectern.test`;

test.serial.before(async () => {
  // One shard whatever the run's QUEUE_SHARDS: the dashboard as it has always been.
  ctx = await setupTestRuntime({ QUEUE_SHARDS: '1' });
  await createPlatformAdmin(ctx.rt.knex, { email, password: 'platform-secret-1' });
  ({ port, close } = await startTestApp(ctx.rt));
});
test.after.always(async () => {
  await ctx?.rt.knex('platform.admins').where({ email }).delete();
  await close?.();
  await ctx?.cleanup();
});

test('when no platform administrator signs in, then the queue dashboard answers 401 with a Basic challenge', async (t) => {
  for (const headers of [
    {} as Record<string, string>,
    { authorization: basic(email, 'wrong-password-1') },
    { authorization: basic('nobody@x.test', 'platform-secret-1') },
  ]) {
    const r = await request(port, { path: '/admin/queues', headers });
    t.is(r.status, 401);
    t.regex(String(r.headers['www-authenticate']), /^Basic realm="Lectern platform admin"/);
  }
});

test('when a platform administrator signs in, then the dashboard and its API list every queue', async (t) => {
  const auth = { authorization: basic(email, 'platform-secret-1') };
  const page = await request(port, { path: '/admin/queues', headers: auth });
  t.is(page.status, 200);
  t.regex(String(page.headers['content-type']), /html/);
  const api = await request(port, { path: '/admin/queues/api/queues', headers: auth });
  t.is(api.status, 200);
  t.deepEqual(api.json.queues.map((q: { name: string }) => q.name).sort(), [...QUEUE_NAMES].sort());
  t.true(QUEUE_NAMES.includes('course-templates'));
});

test('when a tenant host is asked for the dashboard, then it is not there', async (t) => {
  const tenant = await ctx.freshTenant('dash');
  const r = await request(port, {
    path: '/admin/queues',
    host: `${tenant.slug}.localhost`,
    headers: { authorization: basic(email, 'platform-secret-1') },
  });
  t.is(r.status, 404);
});

test('when QUEUE_SHARDS is 3, then on Redis the dashboard lists each shard of each queue by its own name (the unsharded invoices queue once), and on PostgreSQL, which has no shards, each queue once', async (t) => {
  const sharded = await setupTestRuntime({ QUEUE_SHARDS: '3' });
  const app = await startTestApp(sharded.rt);
  try {
    const api = await request(app.port, {
      path: '/admin/queues/api/queues',
      headers: { authorization: basic(email, 'platform-secret-1') },
    });
    t.is(api.status, 200);
    const names = api.json.queues.map((q: { name: string }) => q.name).sort();
    if (!loadConfig().redisUrl) {
      t.deepEqual(names, [...QUEUE_NAMES].sort());
      return;
    }
    const expected = QUEUE_NAMES.flatMap((name) => (name === 'invoices' ? [name] : [0, 1, 2].map((k) => `s${k}.${name}`)));
    t.deepEqual(names, expected.sort());
    const s1 = api.json.queues.find((q: { name: string }) => q.name === 's1.orders');
    t.regex(s1.description, new RegExp(`\\{${sharded.rt.config.queuePrefix}-s1\\}`), 'says which Redis keys the shard has');
  } finally {
    await app.close();
    await sharded.cleanup();
  }
});
