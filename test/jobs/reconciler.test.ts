import test from 'ava';
import { Reconciler } from '../../src/platform/queues/reconciler.js';
import { requestApplyCourseTemplate } from '../../src/modules/background-jobs/background-jobs.service.js';
import { orderNeedsWork } from '../../src/modules/orders/order-processing.service.js';
import { placeOrder } from '../../src/modules/orders/orders.service.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { startWorkers } from '../../src/app/workers.js';
import { setupTestRuntime, waitFor, type TestContext } from '../helpers/harness.js';
import { assertExactlyOnce, finishedOrders, orderFor, orderSetup, type OrderSetup } from '../helpers/orders.js';

/**
 * Work whose queue job is gone is found and queued again by the workers' reconciler: after the
 * queue store lost its data, when a completed job is kept under the job's id, for orders and
 * background jobs, by several reconcilers at once, each step still done exactly once; and a
 * sweep reads only the rows that may be stuck.
 */
let ctx: TestContext;

test.serial.before(async () => {
  ctx = await setupTestRuntime({ RECONCILE_AFTER_MS: '600' });
});
test.after.always(async () => ctx?.cleanup());

/** Orders placed and queued (after commit), with no worker running yet. */
async function queuedOrders(s: OrderSetup, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const placed = await withTenant(
      ctx.rt.knex,
      s.tenant,
      (db) => placeOrder(db, { tenantId: s.tenant.id, userId: null, companyId: null }, orderFor(s, i)),
      { dispatcher: ctx.rt.dispatcher },
    );
    ids.push(placed.orderId);
  }
  await ctx.rt.dispatcher.drain();
  const open = await ctx.rt.knex('platform.outbox').where({ tenant_id: s.tenant.id }).whereNull('enqueued_at').count('* as n').first();
  if (Number(open!.n) !== 0) throw new Error('every order should have been enqueued after commit');
  return ids;
}

/** The queue store loses everything it held for this namespace (Redis restarted without persistence), every shard. */
async function loseQueueData(): Promise<void> {
  for (const name of ['orders', 'course-templates'] as const)
    for (const q of ctx.rt.queues.shards(name)) await q.obliterate({ force: true });
}

test.serial(
  'when the queue store loses the jobs of accepted orders, then the reconciler queues them again and each completes exactly once',
  async (t) => {
    const tenant = await ctx.freshTenant('rclost');
    const s = await orderSetup(ctx.rt.knex, tenant, 'rclost');
    const ids = await queuedOrders(s, 5);
    await loseQueueData();
    t.is(await ctx.rt.queues.queue('orders', tenant.id).getJob(`order-${tenant.id}-${ids[0]}`), undefined, 'the job is gone');
    const workers = startWorkers(ctx.rt);
    try {
      await waitFor(async () => (await finishedOrders(ctx.rt.knex, s, ids)) === ids.length, 'orders whose jobs were lost', 30000);
    } finally {
      await workers.close();
    }
    await assertExactlyOnce(t, ctx.rt.knex, s, ids);
    const rows = await ctx.rt.knex('platform.outbox').where({ tenant_id: tenant.id }).select('job_id', 'requeues', 'settled_at');
    t.true(
      rows.every(
        (r: { requeues: number; settled_at: unknown; job_id: string }) =>
          r.requeues === 1 && r.settled_at !== null && /-q1$/.test(r.job_id),
      ),
      JSON.stringify(rows),
    );
  },
);

test.serial(
  "when a completed job is kept under an order's job id but the order was never processed, then the reconciler is not fooled",
  async (t) => {
    const tenant = await ctx.freshTenant('rcdone');
    const s = await orderSetup(ctx.rt.knex, tenant, 'rcdone');
    const [orderId] = await queuedOrders(s, 1);
    // A worker that completes the job without doing its work (a store restored from an older copy).
    const hollow = ctx.rt.queues.workers('orders', async () => 'nothing done', { concurrency: 1, lockDuration: 5000 });
    const jobId = `order-${tenant.id}-${orderId}`;
    await waitFor(
      async () => (await ctx.rt.queues.queue('orders', tenant.id).getJob(jobId))?.isCompleted(),
      'the hollow job to complete',
      10000,
    );
    await Promise.all(hollow.map((w) => w.close()));
    t.true(await withTenant(ctx.rt.knex, tenant, (db) => orderNeedsWork(db, orderId!)), 'the order still needs its work');
    const workers = startWorkers(ctx.rt);
    try {
      await waitFor(async () => (await finishedOrders(ctx.rt.knex, s, [orderId!])) === 1, 'the order behind the completed job', 30000);
    } finally {
      await workers.close();
    }
    await assertExactlyOnce(t, ctx.rt.knex, s, [orderId!]);
  },
);

test.serial('when the queue store loses a re-apply background job, then the reconciler queues it again and it completes', async (t) => {
  const tenant = await ctx.freshTenant('rcbg');
  const { templateId, jobId } = await withTenant(
    ctx.rt.knex,
    tenant,
    async (db) => {
      const [tpl] = await db('course_templates').insert({ title: 'Manual handling' }).returning('id');
      await db('events').insert(
        Array.from({ length: 3 }, (_, i) => ({ course_template_id: tpl.id, title: `Old title ${i}`, title_cascades: true })),
      );
      await db('course_templates').where({ id: tpl.id }).update({ title: 'Manual handling (2027)' });
      const job = await requestApplyCourseTemplate(db, tenant.id, tpl.id, null, null);
      return { templateId: tpl.id as number, jobId: job.id };
    },
    { dispatcher: ctx.rt.dispatcher },
  );
  await ctx.rt.dispatcher.drain();
  await loseQueueData();
  const workers = startWorkers(ctx.rt);
  try {
    await waitFor(
      async () =>
        (await withTenant(ctx.rt.knex, tenant, (db) => db('background_jobs').where({ id: jobId }).first('state')))?.state === 'completed',
      'the lost background job',
      30000,
    );
  } finally {
    await workers.close();
  }
  const titles = await withTenant(ctx.rt.knex, tenant, (db) => db('events').where({ course_template_id: templateId }).pluck('title'));
  t.deepEqual([...new Set(titles)], ['Manual handling (2027)']);
});

test.serial(
  'when several reconcilers sweep at once, then each stuck job is queued again once, and a sweep reads only rows that may be stuck',
  async (t) => {
    const tenant = await ctx.freshTenant('rcmany');
    const s = await orderSetup(ctx.rt.knex, tenant, 'rcmany');
    // Sixty orders processed and settled, then four whose jobs the store loses.
    const done = await queuedOrders(s, 60);
    const workers = startWorkers(ctx.rt);
    try {
      await waitFor(async () => (await finishedOrders(ctx.rt.knex, s, done)) === done.length, 'the first orders', 60000);
    } finally {
      await workers.close();
    }
    const stuck = await queuedOrders(s, 4);
    await loseQueueData();
    await new Promise((r) => setTimeout(r, 700)); // older than RECONCILE_AFTER_MS
    const make = () =>
      new Reconciler(ctx.rt.knex, ctx.rt.queues, ctx.rt.log, ctx.rt.config.queuePrefix, 600, {
        orders: {
          pending: (d) => withTenant(ctx.rt.knex, tenant, (db) => orderNeedsWork(db, d.orderId)),
          markFailed: async () => undefined,
        },
      });
    const results = await Promise.all([make().sweep(), make().sweep(), make().sweep()]);
    const total = results.reduce((sum, r) => ({
      alive: sum.alive + r.alive,
      settled: sum.settled + r.settled,
      requeued: sum.requeued + r.requeued,
      markedFailed: sum.markedFailed + r.markedFailed,
    }));
    t.deepEqual(
      total,
      { alive: 0, settled: 0, requeued: 4, markedFailed: 0 },
      'the settled orders were not read; each stuck one was requeued by one sweep',
    );
    const jobs = await Promise.all(stuck.map((id) => ctx.rt.queues.queue('orders', tenant.id).getJob(`order-${tenant.id}-${id}-q1`)));
    t.true(jobs.every(Boolean), 'each requeued under a new id');
    // Right after, nothing is due: a sweep reads no row.
    t.deepEqual(await make().sweep(), { alive: 0, settled: 0, requeued: 0, markedFailed: 0 });
    const again = startWorkers(ctx.rt);
    try {
      await waitFor(async () => (await finishedOrders(ctx.rt.knex, s, stuck)) === stuck.length, 'the requeued orders', 30000);
    } finally {
      await again.close();
    }
    await assertExactlyOnce(t, ctx.rt.knex, s, [...done, ...stuck]);
  },
);

test.serial("when an order's job is still waiting in the queue, then the reconciler leaves it alone", async (t) => {
  const tenant: Tenant = await ctx.freshTenant('rcwait');
  const s = await orderSetup(ctx.rt.knex, tenant, 'rcwait');
  const [orderId] = await queuedOrders(s, 1);
  await new Promise((r) => setTimeout(r, 700));
  const reconciler = new Reconciler(ctx.rt.knex, ctx.rt.queues, ctx.rt.log, ctx.rt.config.queuePrefix, 600, {
    orders: { pending: (d) => withTenant(ctx.rt.knex, tenant, (db) => orderNeedsWork(db, d.orderId)), markFailed: async () => undefined },
  });
  t.like(await reconciler.sweep(), { alive: 1, requeued: 0 });
  t.is(await ctx.rt.queues.queue('orders', tenant.id).getJob(`order-${tenant.id}-${orderId}-q1`), undefined, 'no second job');
});
