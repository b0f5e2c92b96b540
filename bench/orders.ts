import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Cluster } from 'ioredis';
import { createKnex, type Knex } from '../src/platform/db/knex.js';
import { createQueueBackend, namespaceKeyPatterns } from '../src/platform/queues/queues.js';
import { createRedisClient, deleteKeys, whenReady } from '../src/platform/queues/redis-client.js';
import type { Tenant } from '../src/platform/tenancy/tenant.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';
import { BENCH_SESSION_SECRET, benchDatabase, freePort, startProcess, stopProcess } from './lib/env.js';
import { orderFixture, type OrderFixture } from './lib/order-fixture.js';
import { measureOrdersFloor, type FloorResult } from './lib/orders-floor.js';
import { measureOrdersSqlFloor, sampleWaits, type WaitSummary } from './lib/orders-floor-sql.js';
import { requestJson, round, runLoad, summarise, type LoadResult } from './lib/load.js';
import { writeResult } from './lib/results.js';

/**
 * Orders: intake (POST /api/v2/orders against a real web process, no workers running), then
 * end to end (the same with W real worker processes: one job per order, which registers, then
 * invoices), on Redis and on BullMQ's PostgreSQL backend, and in the same run two references:
 * BullMQ's own rate for a no-op job on the same store with the same worker processes (target:
 * end-to-end orders/s at least 0.25 of no-op jobs/s), and the floor, the same three
 * transactions per order (intake, registration, invoice) run by Lectern's own service functions
 * in a bare process with no queue and no HTTP (bench/lib/orders-floor.ts), as many orders at
 * the same concurrency as the end-to-end run sends them: e2e / floor is what the queue, the
 * HTTP layer and the hand-over between processes cost.
 *
 * On Redis the processes it starts get REDIS_CLUSTER and QUEUE_SHARDS from the environment (a
 * cluster: REDIS_URL is a seed node, see scripts/redis-cluster.sh). A tenant's jobs all go to
 * one shard, so `--tenants N` places the orders (round robin) in N tenants, whose ids 1..N
 * cover N shards; the no-op jobs are spread over every shard.
 */
interface BackendResult {
  backend: 'redis' | 'postgres';
  /** How the queue store is laid out: `Redis`, `Redis Cluster, 3 masters, QUEUE_SHARDS 6`... */
  store: string;
  intake: LoadResult;
  endToEnd: { orders: number; seconds: number; ordersPerSecond: number; p50ms: number; p99ms: number; failed: number; redisCpu?: RedisCpu };
  noop: { jobs: number; seconds: number; jobsPerSecond: number; redisCpu?: RedisCpu };
  floor: FloorResult;
  /** The same three transactions as minimal hand-written SQL, one round trip each (bench/lib/orders-floor-sql.ts). */
  sqlFloor: FloorResult;
  /** e2e / no-op, e2e / floor (Lectern's functions), e2e / sqlFloor, floor / sqlFloor. */
  ratios: { e2eToNoop: number; e2eToFloor: number; e2eToSqlFloor: number; floorToSqlFloor: number };
  /** What the database's sessions waited on (pg_stat_activity, pg_locks sampled every 20 ms) in each phase. */
  waits: { endToEnd: WaitSummary; floor: WaitSummary; sqlFloor: WaitSummary };
}

const BACKEND_LABEL = { redis: 'Redis', postgres: 'PostgreSQL' } as const;
/** Rates as docs/benchmarks.md writes them (whole numbers, thousands with a comma). */
const int = (n: number) => Math.round(n).toLocaleString('en-US');

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      workers: { type: 'string', default: '2' },
      'worker-concurrency': { type: 'string', default: '5' },
      orders: { type: 'string', default: '1000' },
      seconds: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '16' },
      backend: { type: 'string', default: 'both' },
      tenants: { type: 'string', default: '1' },
    },
  });
  const tenants = Number(values.tenants);
  if (!Number.isInteger(tenants) || tenants < 1) throw new Error('--tenants must be a whole number of at least 1');
  const workers = Number(values.workers);
  const workerConcurrency = values['worker-concurrency'];
  const orders = Number(values.orders);
  const redisUrl = process.env.REDIS_URL;
  const backends = (['redis', 'postgres'] as const)
    .filter((b) => values.backend === 'both' || values.backend === b)
    .filter((b) => b === 'postgres' || redisUrl);
  if (values.backend !== 'postgres' && !redisUrl) process.stderr.write('REDIS_URL is not set: measuring the PostgreSQL backend only\n');

  const results: BackendResult[] = [];
  for (const backend of backends) {
    process.stderr.write(`\n== ${backend} backend: ${workers} worker process(es)\n`);
    results.push(
      await runBackend(backend, {
        workers,
        workerConcurrency,
        orders,
        seconds: Number(values.seconds),
        concurrency: Number(values.concurrency),
        redisUrl,
        tenants,
      }),
    );
  }

  const table = [
    '| backend | workers | intake orders/s | intake p50 / p99 ms | end-to-end orders/s | e2e p50 / p99 ms | no-op jobs/s | floor orders/s | SQL floor orders/s | e2e / no-op | e2e / floor | e2e / SQL floor |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.store} | ${workers} | ${int(r.intake.rps)} | ${int(r.intake.p50ms)} / ${int(r.intake.p99ms)} | ${int(r.endToEnd.ordersPerSecond)} | ${int(r.endToEnd.p50ms)} / ${int(r.endToEnd.p99ms)} | ${int(r.noop.jobsPerSecond)} | ${int(r.floor.ordersPerSecond)} | ${int(r.sqlFloor.ordersPerSecond)} | ${r.ratios.e2eToNoop.toFixed(2)} | ${r.ratios.e2eToFloor.toFixed(2)} | ${r.ratios.e2eToSqlFloor.toFixed(2)} |`,
    ),
  ].join('\n');
  const lines = [
    '',
    `Orders benchmark (${workers} worker processes x WORKER_CONCURRENCY ${workerConcurrency}, ${orders} orders end to end at concurrency ${values.concurrency}, intake ${values.seconds}s at concurrency ${values.concurrency}${tenants > 1 ? `, orders spread over ${tenants} tenants` : ''})`,
    'Each order: 3 places (2 named students, 1 unnamed) and a payment of a set-up type, so registration then invoice.',
    '',
    table,
    '',
    'End-to-end latency: from the order being stored (intake commit) to its invoice being stored.',
    `Floor: the same ${orders} orders' three transactions each (intake, registration, invoice) through Lectern's service functions in one bare process, no HTTP, no queue, ${values.concurrency} orders at a time (bench/lib/orders-floor.ts).`,
    ...results.map(
      (r) =>
        `${BACKEND_LABEL[r.backend]} floor: one order's three transactions p50 ${r.floor.p50ms} ms / p99 ${r.floor.p99ms} ms, ${r.floor.cpuMsPerOrder} ms of the floor process's CPU per order, ${r.floor.statementsPerOrder} statements per order (knex query events); hand-written SQL floor p50 ${r.sqlFloor.p50ms} ms / p99 ${r.sqlFloor.p99ms} ms, ${r.sqlFloor.cpuMsPerOrder} ms CPU per order, 3 round trips per order (Lectern's floor / SQL floor ${r.ratios.floorToSqlFloor}).`,
    ),
    ...results.flatMap((r) =>
      (['endToEnd', 'floor', 'sqlFloor'] as const).map((phase) => {
        const w = r.waits[phase];
        const fmt = (m: Record<string, number>) =>
          Object.entries(m)
            .slice(0, 6)
            .map(([k, n]) => `${k} ${Math.round((n / Math.max(1, w.samples)) * 100) / 100}`)
            .join(', ') || 'none';
        return `${BACKEND_LABEL[r.backend]} ${phase} waits (sessions per sample, ${w.samples} samples, ${w.activePerSample} active): ${fmt(w.waits)}; locks waited for: ${fmt(w.locksWaited)}`;
      }),
    ),
    ...results
      .filter((r) => r.endToEnd.redisCpu && r.noop.redisCpu)
      .map(
        (r) =>
          `${r.store}: Redis CPU (${r.endToEnd.redisCpu!.masters} master(s)): end to end ${r.endToEnd.redisCpu!.msPerItem} ms per order in all, the busiest master ${r.endToEnd.redisCpu!.busiestPct}% of a core; no-op ${r.noop.redisCpu!.msPerItem} ms per job, the busiest master ${r.noop.redisCpu!.busiestPct}% of a core.`,
      ),
    ...results.map((r) => {
      const target = round(r.noop.jobsPerSecond * 0.25);
      const verdict = r.endToEnd.ordersPerSecond >= target ? 'met' : 'NOT met';
      const bound =
        r.intake.rps < target ? `; intake alone takes ${r.intake.rps} orders/s, below that rate, and end to end cannot beat intake` : '';
      return `${BACKEND_LABEL[r.backend]}: target 0.25 x no-op = ${target} orders/s: ${verdict}${bound}`;
    }),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  await writeResult(
    'orders',
    {
      workers,
      workerConcurrency: Number(workerConcurrency),
      orders,
      intakeSeconds: Number(values.seconds),
      concurrency: Number(values.concurrency),
      tenants,
      redisCluster: process.env.REDIS_CLUSTER === 'on',
      queueShards: queueShards(),
      results,
    },
    { table, args: argv },
  );
}

async function runBackend(
  backend: 'redis' | 'postgres',
  opts: {
    workers: number;
    workerConcurrency: string;
    orders: number;
    seconds: number;
    concurrency: number;
    redisUrl: string | undefined;
    tenants: number;
  },
): Promise<BackendResult> {
  const db = await benchDatabase(`orders_${backend}`);
  const knex = createKnex(db.url, { poolMax: 4, applicationName: 'bench-orders' });
  const prefix = `bench_orders_${backend}`;
  const queueEnv = { DATABASE_URL: db.url, REDIS_URL: backend === 'redis' ? opts.redisUrl : '', QUEUE_PREFIX: prefix };
  if (backend === 'redis') await clearRedisPrefix(opts.redisUrl!, prefix);
  const store = backend === 'redis' ? await describeRedis(opts.redisUrl!) : BACKEND_LABEL[backend];
  // A fresh database: tenant ids 1..N, so N tenants cover N shards (tenant id mod QUEUE_SHARDS).
  const fixtures: OrderFixture[] = [];
  for (let k = 0; k < opts.tenants; k++) fixtures.push(await orderFixture(knex, opts.tenants === 1 ? 'bench' : `bench${k}`));
  const { tenant, actor, body } = fixtures[0]!;
  // The i-th order, round robin over the tenants.
  const order = (i: number) => fixtures[i % fixtures.length]!.order(Math.floor(i / fixtures.length));

  const port = await freePort();
  const web = await startProcess('dist/src/web.js', { ...queueEnv, PORT: String(port), HOST: '127.0.0.1' }, port);
  const spawnWorkers = (script: string[], env: Record<string, string> = {}) =>
    Array.from({ length: opts.workers }, () =>
      spawn(process.execPath, script, {
        env: {
          ...process.env,
          ...queueEnv,
          LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
          SESSION_SECRET: BENCH_SESSION_SECRET,
          WORKER_CONCURRENCY: opts.workerConcurrency,
          ...env,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
  const running = new Set<ChildProcess>();
  const spawned = (procs: ChildProcess[]) => {
    procs.forEach((p) => running.add(p));
    return procs;
  };
  const stopAll = async (procs: ChildProcess[]) => {
    await Promise.all(procs.map((p) => stopProcess(p)));
    procs.forEach((p) => running.delete(p));
  };
  try {
    // End to end first, with the workers running, on an empty queue.
    process.stderr.write(`end to end: ${opts.orders} orders at concurrency ${opts.concurrency}\n`);
    const procs = spawned(spawnWorkers(['dist/workers/main.js']));
    await new Promise((r) => setTimeout(r, 2000));
    const cpuOf = () => (backend === 'redis' ? redisCpu(opts.redisUrl!) : Promise.resolve(undefined));
    const cpuBefore = await cpuOf();
    const e2eWaits = sampleWaits(db.url);
    const started = Date.now();
    const sent = await runFixedLoad(port, opts.orders, opts.concurrency, order);
    const orderIds = sent.ids.map((o) => o.id);
    const done = await waitForAllOrders(knex, fixtures, sent.ids, 300_000);
    const seconds = (done.lastCompletedAt - started) / 1000;
    const e2eCpu = cpuBefore && cpuUse(cpuBefore, (await cpuOf())!, (Date.now() - started) / 1000, orderIds.length);
    const e2eWaited = await e2eWaits.stop();
    await stopAll(procs);
    const e2e = summarise(done.latenciesMs, done.failed, seconds);

    // The floor: the same orders' transactions with no queue and no HTTP, right after the end to
    // end run (the same database, as full), the workers stopped and the web process idle.
    const warmup = opts.concurrency * 4;
    process.stderr.write(
      `floor: ${opts.orders} orders (after ${warmup} to warm up) at concurrency ${opts.concurrency}, no queue, no HTTP\n`,
    );
    const floorWaits = sampleWaits(db.url);
    const floor = await measureOrdersFloor({
      databaseUrl: db.url,
      queueNamespace: `${prefix}_floor`,
      tenant,
      actor,
      bodies: Array.from({ length: warmup + opts.orders }, (_, i) => body(i)),
      warmup,
      concurrency: opts.concurrency,
    });
    const floorWaited = await floorWaits.stop();
    // The hand-written floor: the same orders, the same rows, the least SQL (one round trip per transaction).
    process.stderr.write(`hand-written SQL floor: ${opts.orders} orders at concurrency ${opts.concurrency}\n`);
    const sqlWaits = sampleWaits(db.url);
    const sqlFloor = await measureOrdersSqlFloor({
      databaseUrl: db.url,
      queueNamespace: `${prefix}_floor`,
      tenant: { id: tenant.id, schema: tenant.schema },
      userId: actor.userId,
      bodies: Array.from({ length: warmup + opts.orders }, (_, i) => body(i)),
      warmup,
      concurrency: opts.concurrency,
    });
    const sqlWaited = await sqlWaits.stop();

    // Intake alone: no workers, so the web process and the queue store are all that run.
    process.stderr.write(`intake: ${opts.seconds}s at concurrency ${opts.concurrency}, no workers\n`);
    await runLoad({ port, concurrency: opts.concurrency, seconds: 2, next: order });
    const intake = await runLoad({ port, concurrency: opts.concurrency, seconds: opts.seconds, next: order });

    // BullMQ's own rate on the same store: no-op jobs, the same number of worker processes.
    process.stderr.write(`no-op: ${opts.orders * 4} jobs\n`);
    const noop = await noopRate(
      backend,
      db.url,
      opts.redisUrl,
      `${prefix}_noop`,
      opts.orders * 4,
      (noopPrefix) => spawned(spawnWorkers(['--import', 'tsx', 'bench/lib/noop-worker.ts'], { QUEUE_PREFIX: noopPrefix })),
      stopAll,
      cpuOf,
    );

    return {
      backend,
      store,
      intake,
      endToEnd: {
        orders: orderIds.length,
        seconds: round(seconds),
        ordersPerSecond: round(orderIds.length / seconds),
        p50ms: e2e.p50ms,
        p99ms: e2e.p99ms,
        failed: done.failed,
        ...(e2eCpu ? { redisCpu: e2eCpu } : {}),
      },
      noop,
      floor,
      sqlFloor,
      ratios: {
        e2eToNoop: round(orderIds.length / seconds / noop.jobsPerSecond, 3),
        e2eToFloor: round(orderIds.length / seconds / floor.ordersPerSecond, 3),
        e2eToSqlFloor: round(orderIds.length / seconds / sqlFloor.ordersPerSecond, 3),
        floorToSqlFloor: round(floor.ordersPerSecond / sqlFloor.ordersPerSecond, 3),
      },
      waits: { endToEnd: e2eWaited, floor: floorWaited, sqlFloor: sqlWaited },
    };
  } finally {
    await stopAll([...running]);
    await stopProcess(web);
    await knex.destroy();
    if (backend === 'redis') await clearRedisPrefix(opts.redisUrl!, prefix);
    if (db.embedded?.owned) await db.embedded.stop();
  }
}

/** Sends exactly `n` requests, `concurrency` at a time; returns the order ids, each with the number of the request that placed it. */
async function runFixedLoad(
  port: number,
  n: number,
  concurrency: number,
  next: (i: number) => ReturnType<Parameters<typeof runLoad>[0]['next']>,
): Promise<{ ids: { i: number; id: number }[] }> {
  const ids: { i: number; id: number }[] = [];
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i < n) {
        const at = i++;
        const res = await requestJson(port, next(at));
        const id = (res.json as { order_id?: number } | undefined)?.order_id;
        if (res.status !== 200 || !id) throw new Error(`intake answered ${res.status}: ${JSON.stringify(res.json)}`);
        ids.push({ i: at, id });
      }
    }),
  );
  return { ids };
}

/** waitForOrders for each tenant's orders (the i-th request went to tenant i mod N), together. */
async function waitForAllOrders(knex: Knex, fixtures: OrderFixture[], sent: { i: number; id: number }[], timeoutMs: number) {
  const per = await Promise.all(
    fixtures.map((f, k) =>
      waitForOrders(
        knex,
        f.tenant,
        sent.filter((o) => o.i % fixtures.length === k).map((o) => o.id),
        timeoutMs,
      ),
    ),
  );
  return {
    latenciesMs: per.flatMap((p) => p.latenciesMs),
    failed: per.reduce((n, p) => n + p.failed, 0),
    lastCompletedAt: Math.max(...per.map((p) => p.lastCompletedAt)),
  };
}

async function waitForOrders(knex: Knex, tenant: Tenant, ids: number[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  const [lo, hi] = [Math.min(...ids), Math.max(...ids)];
  // Polled cheaply (a primary-key range, a count) so the bench does not load the database it measures.
  const settled = () =>
    withTenant(knex, tenant, async (db) =>
      Number((await db('opportunities').whereBetween('id', [lo, hi]).whereIn('state', ['completed', 'failed']).count('* as n').first())!.n),
    );
  while ((await settled()) < ids.length) {
    if (Date.now() > deadline) throw new Error(`only ${await settled()} of ${ids.length} orders finished`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const rows = await withTenant(knex, tenant, (db) =>
    db('opportunities')
      .whereIn('id', ids)
      .select(
        'state',
        db.raw(`extract(epoch from (completed_on - created_on)) * 1000 as ms`),
        db.raw(`extract(epoch from completed_on at time zone 'utc') * 1000 as at`),
      ),
  );
  const ok = rows.filter((r: { state: string }) => r.state === 'completed');
  return {
    latenciesMs: ok.map((r: { ms: string }) => Number(r.ms)),
    failed: rows.length - ok.length,
    lastCompletedAt: Math.max(...ok.map((r: { at: string }) => Number(r.at))),
  };
}

export async function noopRate(
  backend: 'redis' | 'postgres',
  databaseUrl: string,
  redisUrl: string | undefined,
  prefix: string,
  jobs: number,
  spawnWorkers: (prefix: string) => ChildProcess[],
  stopAll: (p: ChildProcess[]) => Promise<unknown>,
  cpuOf: () => Promise<Map<string, number> | undefined>,
): Promise<BackendResult['noop']> {
  const queues = createQueueBackend({
    redisUrl: backend === 'redis' ? redisUrl : undefined,
    redisCluster: process.env.REDIS_CLUSTER === 'on',
    shards: queueShards(),
    databaseUrl,
    prefix,
  });
  // The noop queue is not one of Lectern's; the backend is typed for those. Jobs spread over every shard.
  const shards = queues.shards('noop' as 'orders');
  try {
    // Workers first, and time to start (they run through tsx), so only job handling is timed.
    const procs = spawnWorkers(prefix);
    await new Promise((r) => setTimeout(r, 4000));
    const cpuBefore = await cpuOf();
    const started = Date.now();
    // The same job options as order jobs (completed jobs trimmed to the last 5,000), so done is
    // "nothing left to run" once every job has been added.
    for (let i = 0, batch = 0; i < jobs; i += 500, batch++)
      await shards[batch % shards.length]!.addBulk(
        Array.from({ length: Math.min(500, jobs - i) }, (_, k) => ({ name: 'noop', data: { tenantId: 0, orderId: i + k } })),
      );
    const deadline = Date.now() + 300_000;
    for (;;) {
      const counts = await Promise.all(shards.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized')));
      if (counts.every((c) => Object.values(c).every((n) => n === 0))) break;
      if (Date.now() > deadline) throw new Error(`no-op jobs did not finish: ${JSON.stringify(counts)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (Date.now() - started) / 1000;
    const cpu = cpuBefore && cpuUse(cpuBefore, (await cpuOf())!, seconds, jobs);
    // A job that failed is not one done: the rate counts only those that completed.
    const failed = (await Promise.all(shards.map((q) => q.getJobCounts('failed')))).reduce((n, c) => n + (c.failed ?? 0), 0);
    if (failed) throw new Error(`${failed} of ${jobs} no-op jobs failed`);
    await stopAll(procs);
    return { jobs, seconds: round(seconds), jobsPerSecond: round(jobs / seconds), ...(cpu ? { redisCpu: cpu } : {}) };
  } finally {
    for (const q of shards) await q.obliterate({ force: true }).catch(() => undefined);
    await queues.close();
    if (backend === 'redis') await clearRedisPrefix(redisUrl!, prefix);
  }
}

/** QUEUE_SHARDS as the processes the bench starts read it. */
const queueShards = () => Number(process.env.QUEUE_SHARDS || 1);

/** Every key of a queue namespace, every shard, on every master of a cluster. */
async function clearRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = createRedisClient(url, process.env.REDIS_CLUSTER === 'on', 'fail-fast');
  try {
    await deleteKeys(redis, namespaceKeyPatterns(prefix));
  } finally {
    redis.disconnect();
  }
}

/** `Redis`, or on a cluster how many masters hold slots, with QUEUE_SHARDS. */
async function describeRedis(url: string): Promise<string> {
  if (process.env.REDIS_CLUSTER !== 'on') return queueShards() > 1 ? `Redis, QUEUE_SHARDS ${queueShards()}` : 'Redis';
  const redis = createRedisClient(url, true, 'fail-fast') as Cluster;
  try {
    await whenReady(redis, 5000);
    const size = /cluster_size:(\d+)/.exec(String(await redis.cluster('INFO')))?.[1];
    return `Redis Cluster, ${size} master(s), QUEUE_SHARDS ${queueShards()}`;
  } finally {
    redis.disconnect();
  }
}

/** Redis's own CPU over a phase: how near the masters came to their limit (one core each). */
interface RedisCpu {
  masters: number;
  /** CPU of all masters together per order (or job), in ms. */
  msPerItem: number;
  /** The busiest master's CPU as a share of one core over the phase. */
  busiestPct: number;
}

/** CPU seconds (user + system) each master has used so far (the one Redis without a cluster), by address. */
async function redisCpu(url: string): Promise<Map<string, number>> {
  const redis = createRedisClient(url, process.env.REDIS_CLUSTER === 'on', 'fail-fast');
  try {
    await whenReady(redis, 5000);
    const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
    const used = new Map<string, number>();
    for (const node of nodes) {
      const info = await node.info('cpu');
      const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
      used.set(`${node.options.host}:${node.options.port}`, field('used_cpu_user') + field('used_cpu_sys'));
    }
    return used;
  } finally {
    redis.disconnect();
  }
}

function cpuUse(before: Map<string, number>, after: Map<string, number>, seconds: number, items: number): RedisCpu {
  const deltas = [...after].map(([node, s]) => s - (before.get(node) ?? s));
  const total = deltas.reduce((a, b) => a + b, 0);
  return {
    masters: deltas.length,
    msPerItem: round((total * 1000) / items, 3),
    busiestPct: Math.round((Math.max(0, ...deltas) / seconds) * 100),
  };
}
