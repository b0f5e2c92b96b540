import test, { type ExecutionContext } from 'ava';
import { createApp } from '../../src/app/web.js';
import { startHttpServer } from '../../src/kit/http/server.js';
import { OutboxDispatcher } from '../../src/platform/queues/outbox.js';
import { createQueueBackend } from '../../src/platform/queues/queues.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { startWorkers } from '../../src/app/workers.js';
import { request, spawnTs, waitFor } from '../helpers/harness.js';
import { assertExactlyOnce as assertOrdersOnce, finishedOrders, orderFor, orderSetup, type OrderSetup } from '../helpers/orders.js';
import { basic, PASSWORD, restFixture, type RestFixture } from '../helpers/rest.js';

/**
 * Nothing lost, nothing done twice: orders taken while the queue store is down, a worker
 * process killed with SIGKILL in the middle of its jobs, and 200 orders at once across three
 * tenants. Real processes, real PostgreSQL and Redis (or BullMQ's PostgreSQL backend).
 */
let f: RestFixture;

test.serial.before(async () => {
  f = await restFixture('ordr', { WORKER_LOCK_MS: '2000', OUTBOX_SWEEP_MS: '200' });
});
test.after.always(async () => f?.close());

type Setup = OrderSetup;
const setUp = (tenant: Tenant, label: string) => orderSetup(f.ctx.rt.knex, tenant, label);

const post = (port: number, s: Setup, body: unknown) =>
  request(port, {
    method: 'POST',
    path: '/api/v2/orders',
    host: `${s.tenant.slug}.localhost`,
    headers: { authorization: basic(s.email, PASSWORD) },
    body,
  });

/** As an integrator sends: a write refused past its instance's share (429) is sent again after `Retry-After`. */
async function postUntilTaken(port: number, s: Setup, body: unknown) {
  for (;;) {
    const answer = await post(port, s, body);
    if (answer.status !== 429) return answer;
    await new Promise((r) => setTimeout(r, Number(answer.headers['retry-after'] ?? 1) * 1000));
  }
}

const assertExactlyOnce = (t: ExecutionContext, s: Setup, orderIds: number[]) => assertOrdersOnce(t, f.ctx.rt.knex, s, orderIds);
const completed = (s: Setup, ids: number[]) => finishedOrders(f.ctx.rt.knex, s, ids);

test.serial(
  'when the queue store is unreachable during intake, then orders are still accepted and are processed once it is back',
  async (t) => {
    const s = await setUp(f.tenant, 'ordr');
    const { config } = f.ctx.rt;
    // The web process's view of the queues: nothing answers there.
    const down = config.redisUrl
      ? createQueueBackend({
          redisUrl: 'redis://127.0.0.1:1',
          redisCluster: config.redisCluster,
          shards: config.queueShards,
          databaseUrl: f.ctx.rt.databaseUrl,
          prefix: config.queuePrefix,
        })
      : createQueueBackend({ redisUrl: undefined, databaseUrl: 'postgres://postgres@127.0.0.1:1/none', prefix: config.queuePrefix });
    const rtDown = { ...f.ctx.rt, queues: down, dispatcher: new OutboxDispatcher(f.ctx.rt.knex, down, f.ctx.rt.log, config.queuePrefix) };
    const server = await startHttpServer(createApp(rtDown), 0, '127.0.0.1');
    const ids: number[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        const r = await post(server.port, s, orderFor(s, i));
        t.is(r.status, 200, r.text);
        ids.push(r.json.order_id);
      }
      await rtDown.dispatcher.drain();
    } finally {
      await server.close(1000);
      await down.close();
    }
    const pending = await f.ctx.rt.knex('platform.outbox').where({ tenant_id: s.tenant.id }).whereNull('enqueued_at');
    t.is(pending.length, 5, 'the jobs wait in the outbox');
    // The store is back (the real one): the worker's relay sends what waited, the workers run it.
    const workers = startWorkers(f.ctx.rt);
    try {
      await waitFor(async () => (await completed(s, ids)) === ids.length, 'orders taken while the queue was down');
    } finally {
      await workers.close();
    }
    await assertExactlyOnce(t, s, ids);
  },
);

test.serial(
  'when a worker process is killed with SIGKILL in the middle of its jobs, then every order is completed exactly once',
  async (t) => {
    const tenant = await f.ctx.freshTenant('ordk');
    const s = await setUp(tenant, 'ordk');
    const ids: number[] = [];
    for (let i = 0; i < 40; i++) ids.push((await post(f.port, s, orderFor(s, i))).json.order_id);
    const { config } = f.ctx.rt;
    const env = {
      DATABASE_URL: f.ctx.rt.databaseUrl,
      REDIS_URL: config.redisUrl,
      QUEUE_PREFIX: config.queuePrefix,
      WORKER_LOCK_MS: '2000',
      WORKER_CONCURRENCY: '4',
      OUTBOX_SWEEP_MS: '200',
    };
    const first = spawnTs('workers/main.ts', [], env);
    // Kill it once it is in the middle of work: some orders done, some not (and whatever happens,
    // never leave it running: its outbox relay would serve other test files' tenants).
    try {
      await waitFor(
        async () => {
          const n = await completed(s, ids);
          return n >= 3 && n < ids.length;
        },
        'the first worker to be part way through',
        30000,
        5,
      );
    } finally {
      first.child.kill('SIGKILL');
    }
    const killed = await first.done;
    t.is(killed.signal, 'SIGKILL');
    const doneAtKill = await completed(s, ids);
    t.true(doneAtKill < ids.length, 'work was left when the worker died');

    const second = spawnTs('workers/main.ts', [], env);
    try {
      // Jobs the dead worker held come back once their lock lapses (WORKER_LOCK_MS).
      await waitFor(async () => (await completed(s, ids)) === ids.length, 'every order after the kill', 60000);
    } finally {
      second.child.kill('SIGTERM');
      await second.done;
    }
    await assertExactlyOnce(t, s, ids);
  },
);

test.serial('when 200 orders arrive at once across 3 tenants, then every one completes, each in its own tenant', async (t) => {
  const setups: Setup[] = [];
  for (const label of ['orda', 'ordb', 'ordc']) setups.push(await setUp(await f.ctx.freshTenant(label), label));
  const workers = startWorkers(f.ctx.rt);
  try {
    const plan = Array.from({ length: 200 }, (_, i) => setups[i % 3]!);
    // A burst this size across tenants passes ADMISSION_WRITES_PER_SECOND: some wait their turn.
    const answers = await Promise.all(plan.map((s, i) => postUntilTaken(f.port, s, orderFor(s, i))));
    t.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
    const idsBy = new Map<Setup, number[]>(setups.map((s) => [s, []]));
    answers.forEach((a, i) => idsBy.get(plan[i]!)!.push(a.json.order_id));
    for (const s of setups) {
      const ids = idsBy.get(s)!;
      await waitFor(async () => (await completed(s, ids)) === ids.length, `${s.tenant.slug} orders`, 90000);
      await assertExactlyOnce(t, s, ids);
      // Nothing of the other tenants' orders is in this tenant.
      const all = await withTenant(f.ctx.rt.knex, s.tenant, (db) => db('opportunities').pluck('external_id'));
      t.true(
        all.every((e: string) => e.startsWith(`${s.tenant.slug}-`)),
        `${s.tenant.slug} holds only its own orders`,
      );
      t.is(all.length, ids.length);
    }
  } finally {
    await workers.close();
  }
});

/** A worker process that takes the order's job and dies with it (SIGKILL), as a crashed worker would. */
async function holdAndDie(t: ExecutionContext, env: Record<string, string | undefined>, whileHolding?: () => Promise<void>): Promise<void> {
  const w = spawnTs('test/helpers/stalling-worker.ts', [], env);
  try {
    await waitFor(async () => w.output().stdout.includes('active'), 'a worker holding the order job', 30000);
    await whileHolding?.();
  } finally {
    w.child.kill('SIGKILL');
  }
  t.is((await w.done).signal, 'SIGKILL');
}

/**
 * An order whose job is cut off twice with JOB_ATTEMPTS=2 (the first time BullMQ gives it out
 * again, the second time it has run out of attempts and BullMQ fails the job itself with no
 * processor to see it), then is marked failed (stalled), and once ops retry it, completes
 * exactly once. `when` places Lectern's workers before or after the failure.
 */
async function stalledOrderScenario(t: ExecutionContext, label: string, when: 'workers listening' | 'workers start after the failure') {
  const tenant = await f.ctx.freshTenant(label);
  const s = await setUp(tenant, label);
  const { placeOrder, retryOrder } = await import('../../src/modules/orders/orders.service.js');
  const { showOrder } = await import('../../src/modules/orders/order-view.service.js');
  const { config } = f.ctx.rt;
  const env = {
    DATABASE_URL: f.ctx.rt.databaseUrl,
    REDIS_URL: config.redisUrl,
    QUEUE_PREFIX: config.queuePrefix,
    WORKER_LOCK_MS: '1000',
    JOB_ATTEMPTS: '2',
  };
  // Lectern's workers with the same limit (the stalled-job check of any worker applies its own).
  const twoAttempts = createQueueBackend({
    redisUrl: config.redisUrl,
    redisCluster: config.redisCluster,
    shards: config.queueShards,
    databaseUrl: f.ctx.rt.directDatabaseUrl,
    prefix: config.queuePrefix,
    attempts: 2,
  });
  const startTwoAttemptWorkers = () => startWorkers({ ...f.ctx.rt, queues: twoAttempts });
  // Enqueued at once by the dispatcher; no worker of ours runs yet.
  const { orderId } = await withTenant(
    f.ctx.rt.knex,
    tenant,
    (db) => placeOrder(db, { tenantId: tenant.id, userId: null, companyId: null }, orderFor(s, 0)),
    { dispatcher: f.ctx.rt.dispatcher },
  );
  const jobFailed = async () => (await f.ctx.rt.queues.queue('orders', tenant.id).getJob(`order-${tenant.id}-${orderId}`))?.isFailed();
  let workers: ReturnType<typeof startWorkers> | undefined;
  try {
    await holdAndDie(t, env);
    if (when === 'workers listening') {
      // Lectern's workers start while the second one holds the job; their own stalled-job check
      // fails it once that worker is dead, and their failure watchers hear of it.
      await holdAndDie(t, env, async () => {
        workers = startTwoAttemptWorkers();
        await new Promise((r) => setTimeout(r, 1500));
      });
    } else {
      await holdAndDie(t, env);
      // Another worker's stalled-job check fails the job while none of Lectern's watchers is
      // listening (a restart after a crash): only their look back at recent failures sees it.
      const checker = spawnTs('test/helpers/stalling-worker.ts', [], env);
      try {
        await waitFor(jobFailed, 'BullMQ to fail the stalled job', 30000);
      } finally {
        checker.child.kill('SIGKILL');
      }
      workers = startTwoAttemptWorkers();
    }
    const order = await waitFor(
      async () => {
        const o = await withTenant(f.ctx.rt.knex, tenant, (db) => showOrder(db, orderId));
        return o.state === 'failed' ? o : undefined;
      },
      'the stalled order to be marked failed',
      60000,
    );
    t.true(await jobFailed());
    t.is(order.failure?.code, 'stalled');
    t.regex(order.failure!.reason, /orders:retry/);
    t.is(
      await withTenant(f.ctx.rt.knex, tenant, async (db) =>
        Number((await db('registrations').where({ opportunity_id: orderId }).count('* as n').first())!.n),
      ),
      0,
      'nothing was registered',
    );
    // Ops run it again; the real workers complete it exactly once.
    await withTenant(f.ctx.rt.knex, tenant, (db) => retryOrder(db, tenant.id, orderId), { dispatcher: f.ctx.rt.dispatcher });
    await waitFor(
      async () => (await withTenant(f.ctx.rt.knex, tenant, (db) => showOrder(db, orderId))).state === 'completed',
      'the retried order',
    );
  } finally {
    await workers?.close();
    await twoAttempts.close();
  }
  await assertExactlyOnce(t, s, [orderId]);
}

test.serial(
  "when an order job's worker dies holding it twice, then the job is given out again (not failed) and the order completes once",
  async (t) => {
    const tenant = await f.ctx.freshTenant('ordt');
    const s = await setUp(tenant, 'ordt');
    const { placeOrder } = await import('../../src/modules/orders/orders.service.js');
    const { config } = f.ctx.rt;
    // The default JOB_ATTEMPTS: a stall is retried like any failed attempt.
    const env = {
      DATABASE_URL: f.ctx.rt.databaseUrl,
      REDIS_URL: config.redisUrl,
      QUEUE_PREFIX: config.queuePrefix,
      WORKER_LOCK_MS: '1000',
    };
    const { orderId } = await withTenant(
      f.ctx.rt.knex,
      tenant,
      (db) => placeOrder(db, { tenantId: tenant.id, userId: null, companyId: null }, orderFor(s, 0)),
      { dispatcher: f.ctx.rt.dispatcher },
    );
    let workers: ReturnType<typeof startWorkers> | undefined;
    try {
      await holdAndDie(t, env);
      await holdAndDie(t, env, async () => {
        workers = startWorkers(f.ctx.rt);
        await new Promise((r) => setTimeout(r, 1500));
      });
      await waitFor(async () => (await completed(s, [orderId])) === 1, 'the order after two stalls', 60000);
    } finally {
      await workers?.close();
    }
    const job = await f.ctx.rt.queues.queue('orders', tenant.id).getJob(`order-${tenant.id}-${orderId}`);
    t.false(await job!.isFailed(), 'the job was not failed by its stalls');
    const order = await withTenant(f.ctx.rt.knex, tenant, (db) =>
      db('opportunities').where({ id: orderId }).first('state', 'failure_code'),
    );
    t.deepEqual(order, { state: 'completed', failure_code: null });
    await assertExactlyOnce(t, s, [orderId]);
  },
);

test.serial(
  "when an order job's worker dies holding it as often as its attempts allow, then the order is marked failed (stalled) and a retry completes it once",
  async (t) => {
    await stalledOrderScenario(t, 'ords', 'workers listening');
  },
);

test.serial(
  'when BullMQ failed a stalled order job while no Lectern worker was running, then the workers mark the order when they start',
  async (t) => {
    await stalledOrderScenario(t, 'ordl', 'workers start after the failure');
  },
);

test.serial('when an order was queued for invoicing before orders became one job, then the workers still finish it once', async (t) => {
  const tenant = await f.ctx.freshTenant('ordi');
  const s = await setUp(tenant, 'ordi');
  const { placeOrder } = await import('../../src/modules/orders/orders.service.js');
  const { registerOrder } = await import('../../src/modules/orders/order-processing.service.js');
  // Registered by an older worker, its invoice job waiting on the old `invoices` queue.
  const { orderId } = await withTenant(f.ctx.rt.knex, tenant, (db) =>
    placeOrder(db, { tenantId: tenant.id, userId: null, companyId: null }, orderFor(s, 0)),
  );
  await f.ctx.rt.knex('platform.outbox').where({ tenant_id: tenant.id }).update({ enqueued_at: f.ctx.rt.knex.fn.now() });
  t.deepEqual(await withTenant(f.ctx.rt.knex, tenant, (db) => registerOrder(db, orderId)), { done: 'registered' });
  // Where the old queue's jobs are: under the keys every queue had before shards (shard 0).
  await f.ctx.rt.queues
    .queue('invoices', tenant.id)
    .add('create', { tenantId: tenant.id, orderId }, { jobId: `invoice-${tenant.id}-${orderId}` });
  const workers = startWorkers(f.ctx.rt);
  try {
    await waitFor(async () => (await completed(s, [orderId])) === 1, 'the old invoice job');
  } finally {
    await workers.close();
  }
  await assertExactlyOnce(t, s, [orderId]);
});
