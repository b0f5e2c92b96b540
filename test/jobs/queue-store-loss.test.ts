import test from 'ava';
import { requestApplyCourseTemplate } from '../../src/modules/background-jobs/background-jobs.service.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { loadConfig } from '../../src/platform/config.js';
import { request, setupTestRuntime, spawnTs, startTestApp, waitFor, type TestContext } from '../helpers/harness.js';
import { assertExactlyOnce, finishedOrders, orderFor, orderSetup } from '../helpers/orders.js';
import { hasRedisServer, privateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { basic, PASSWORD } from '../helpers/rest.js';

/**
 * Redis without persistence SIGKILLed while orders and a re-apply background job are in flight,
 * then started again empty: every accepted order still completes with exactly one registration,
 * one invoice and one payment, and the background job completes. A real web app, a real worker
 * process, a Redis of the test's own.
 */
let redis: PrivateRedis;
let ctx: TestContext;

const run = hasRedisServer ? test.serial : test.serial.skip;

test.serial.before(async () => {
  if (!hasRedisServer) return;
  // A one-node cluster in a REDIS_CLUSTER=on run, so the runtime's cluster clients have one to talk to.
  redis = await privateRedis({ cluster: loadConfig().redisCluster });
  ctx = await setupTestRuntime({ REDIS_URL: redis.url, RECONCILE_AFTER_MS: '1500', WORKER_LOCK_MS: '2000' });
});
test.after.always(async () => {
  await ctx?.cleanup();
  await redis?.stop();
});

run(
  'when Redis is killed and comes back empty while orders and a re-apply are in flight, then every accepted order completes exactly once and the re-apply completes',
  async (t) => {
    const tenant = await ctx.freshTenant('qloss');
    const s = await orderSetup(ctx.rt.knex, tenant, 'qloss');
    const { templateId, backgroundJobId } = await withTenant(ctx.rt.knex, tenant, async (db) => {
      const [tpl] = await db('course_templates').insert({ title: 'Working at height' }).returning('id');
      await db('events').insert(
        Array.from({ length: 400 }, (_, i) => ({ course_template_id: tpl.id, title: `Old ${i}`, title_cascades: true })),
      );
      await db('course_templates').where({ id: tpl.id }).update({ title: 'Working at height (2027)' });
      return { templateId: tpl.id as number, backgroundJobId: 0 };
    });
    const app = await startTestApp(ctx.rt);
    const post = (i: number) =>
      request(app.port, {
        method: 'POST',
        path: '/api/v2/orders',
        host: `${tenant.slug}.localhost`,
        headers: { authorization: basic(s.email, PASSWORD) },
        body: orderFor(s, i),
      });
    const accepted: number[] = [];
    const place = async (from: number, n: number) => {
      for (let i = from; i < from + n; i += 5) {
        const answers = await Promise.all(Array.from({ length: Math.min(5, from + n - i) }, (_, k) => post(i + k)));
        for (const a of answers) if (a.status === 200) accepted.push(a.json.order_id);
      }
    };
    const env = {
      DATABASE_URL: ctx.rt.databaseUrl,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: ctx.rt.config.queuePrefix,
      RECONCILE_AFTER_MS: '1500',
      WORKER_LOCK_MS: '2000',
      OUTBOX_SWEEP_MS: '200',
      APPLY_BATCH_SIZE: '10',
      WORKER_CONCURRENCY: '2',
    };
    let worker: ReturnType<typeof spawnTs> | undefined;
    let bgId = backgroundJobId;
    try {
      // Queued in Redis before any worker runs: these are the jobs the kill takes with it.
      await place(0, 40);
      bgId = (
        await withTenant(ctx.rt.knex, tenant, (db) => requestApplyCourseTemplate(db, tenant.id, templateId, null, null), {
          dispatcher: ctx.rt.dispatcher,
        })
      ).id;
      await ctx.rt.dispatcher.drain();
      worker = spawnTs('workers/main.ts', [], env);
      await waitFor(async () => (await finishedOrders(ctx.rt.knex, s, accepted)) >= 3, 'the worker to be part way through', 30000, 20);

      await redis.kill();
      const during = place(40, 20); // accepted while Redis is down: kept in the outbox
      await new Promise((r) => setTimeout(r, 500));
      await redis.start();
      await during;
      await place(60, 20);

      t.is(accepted.length, 80, 'every order was accepted');
      await waitFor(async () => (await finishedOrders(ctx.rt.knex, s, accepted)) === accepted.length, 'every accepted order', 90000, 250);
      await waitFor(
        async () =>
          (await withTenant(ctx.rt.knex, tenant, (db) => db('background_jobs').where({ id: bgId }).first('state')))?.state === 'completed',
        'the re-apply',
        60000,
        250,
      );
    } finally {
      worker?.child.kill('SIGTERM');
      await worker?.done;
      await app.close();
    }
    await assertExactlyOnce(t, ctx.rt.knex, s, accepted);
    const titles = await withTenant(ctx.rt.knex, tenant, (db) => db('events').where({ course_template_id: templateId }).pluck('title'));
    t.deepEqual([...new Set(titles)], ['Working at height (2027)'], 'every event re-inherited');
    const requeued = await ctx.rt.knex('platform.outbox').where({ tenant_id: tenant.id }).where('requeues', '>', 0).count('* as n').first();
    t.true(Number(requeued!.n) > 0, 'the kill lost jobs, and the reconciler queued them again');
    t.log(`accepted ${accepted.length}, completed ${accepted.length}, requeued by the reconciler ${requeued!.n}`);
  },
);
