import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createKnex, type Knex } from '../src/platform/db/knex.js';
import { namespaceKeyPatterns } from '../src/platform/queues/queues.js';
import { createRedisClient, deleteKeys } from '../src/platform/queues/redis-client.js';
import type { Tenant } from '../src/platform/tenancy/tenant.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';
import { BENCH_SESSION_SECRET, benchDatabase, freePort, startProcess, stopProcess } from './lib/env.js';
import { requestJson, round } from './lib/load.js';
import { orderFixture, type OrderFixture } from './lib/order-fixture.js';
import { writeResult } from './lib/results.js';

/**
 * Noisy neighbours: a quiet tenant places an order every `--quiet-every` ms, first on an idle
 * system, then while a noisy tenant floods `--noisy-orders` orders (sent `--noisy-concurrency`
 * at a time, as fast as the web process takes them) and until the last of them is done. The
 * quiet tenant's order latency is measured to the moment its invoice is stored (the job's last
 * write). Target: the quiet tenant's p99 during
 * the flood at most 2x its p99 when idle, end to end as the orders benchmark counts it (from
 * the order being stored to its invoice being stored); the time from the client's send is
 * shown beside it, as it adds the web process's intake, which the flood's requests share. Real web and worker processes, one queue store
 * (REDIS_URL, with QUEUE_SHARDS / REDIS_CLUSTER as set; without REDIS_URL, BullMQ's PostgreSQL
 * backend). Both clients honour a 429 (ADMISSION_WRITES_PER_SECOND, read by the web process from
 * the environment) as an integrator would: wait `Retry-After`, send the same order again; the
 * 429s are counted. The row is `figures.p99Ratio` (= figures.flood.stored.p99ms /
 * figures.idle.stored.p99ms) in the results JSON.
 */
interface Sent {
  id: number;
  sentAt: number;
}

interface Phase {
  orders: number;
  /** From the order being stored (intake commit) to its invoice being stored: the orders benchmark's end to end. */
  stored: { p50ms: number; p99ms: number; maxms: number };
  /** From the client sending the order to its invoice being stored (adds the HTTP intake). */
  sent: { p50ms: number; p99ms: number; maxms: number };
  /**
   * From the order being stored to its registration being written (the order job's
   * transaction): the relay, the wait in the queue, and the job's start. What job priorities
   * act on; the rest of the way is the jobs' own work and the invoice job's turn.
   */
  registered: { p50ms: number; p99ms: number; maxms: number };
  failed: number;
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'noisy-orders': { type: 'string', default: '10000' },
      'noisy-concurrency': { type: 'string', default: '8' },
      'quiet-every': { type: 'string', default: '200' },
      'idle-orders': { type: 'string', default: '150' },
      workers: { type: 'string', default: '2' },
      'worker-concurrency': { type: 'string', default: '5' },
    },
  });
  const noisyOrders = Number(values['noisy-orders']);
  const noisyConcurrency = Number(values['noisy-concurrency']);
  const quietEvery = Number(values['quiet-every']);
  const idleOrders = Number(values['idle-orders']);
  const workers = Number(values.workers);
  const redisUrl = process.env.REDIS_URL || undefined;
  const cluster = process.env.REDIS_CLUSTER === 'on';
  const shards = process.env.QUEUE_SHARDS ?? '1';
  const store = redisUrl ? `Redis${cluster ? ' Cluster' : ''}` : 'PostgreSQL';

  const db = await benchDatabase('fairness');
  const knex = createKnex(db.url, { poolMax: 4, applicationName: 'bench-fairness' });
  const prefix = `bench_fair_${Date.now().toString(36)}`;
  const env = { DATABASE_URL: db.url, REDIS_URL: redisUrl ?? '', QUEUE_PREFIX: prefix };
  const noisy = await orderFixture(knex, 'noisy');
  const quiet = await orderFixture(knex, 'quiet');

  const port = await freePort();
  const web = await startProcess('dist/src/web.js', { ...env, PORT: String(port), HOST: '127.0.0.1' }, port);
  const procs: ChildProcess[] = Array.from({ length: workers }, () =>
    spawn(process.execPath, ['dist/workers/main.js'], {
      env: {
        ...process.env,
        ...env,
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        SESSION_SECRET: BENCH_SESSION_SECRET,
        WORKER_CONCURRENCY: values['worker-concurrency'],
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  try {
    await new Promise((r) => setTimeout(r, 2000));
    // A few orders of each tenant first, so neither tenant's first order pays for cold caches.
    await Promise.all([paced(port, quiet, 10, 20, 0), paced(port, noisy, 10, 20, 0)]);

    process.stderr.write(`idle: ${idleOrders} quiet orders, one every ${quietEvery} ms\n`);
    const idleSent = await paced(port, quiet, idleOrders, quietEvery, 1000);
    await waitDone(knex, quiet.tenant, idleSent, 120_000);
    const idle = await phase(knex, quiet.tenant, idleSent);

    process.stderr.write(
      `flood: ${noisyOrders} noisy orders at concurrency ${noisyConcurrency}; quiet orders go on every ${quietEvery} ms until the flood is done\n`,
    );
    const floodStarted = Date.now();
    let flooding = true;
    const quietSent: Sent[] = [];
    let quietErrors = 0;
    const quietLoop = (async () => {
      let i = 5000;
      while (flooding) {
        const next = Date.now() + quietEvery;
        // Open loop: the next order goes at its time whether or not the last one has answered.
        void send(port, quiet, i++).then(
          (s) => quietSent.push(s),
          () => quietErrors++,
        );
        await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
      }
    })();
    const noisySent = await burst(port, noisy, noisyOrders, noisyConcurrency, 10_000);
    const intakeSeconds = (Date.now() - floodStarted) / 1000;
    process.stderr.write(`  noisy intake done in ${round(intakeSeconds, 1)} s; waiting for the backlog\n`);
    await waitDone(knex, noisy.tenant, noisySent, 1_800_000);
    flooding = false;
    await quietLoop;
    await new Promise((r) => setTimeout(r, 500)); // the last quiet sends answer
    const floodSeconds = (Date.now() - floodStarted) / 1000;
    if (quietErrors) throw new Error(`${quietErrors} quiet orders were refused during the flood`);
    await waitDone(knex, quiet.tenant, quietSent, 120_000);
    const flood = await phase(knex, quiet.tenant, quietSent);
    const noisyPhase = await phase(knex, noisy.tenant, noisySent);

    const ratio = round(flood.stored.p99ms / idle.stored.p99ms);
    const sentRatio = round(flood.sent.p99ms / idle.sent.p99ms);
    const ms = (q: Phase['stored']) => `${Math.round(q.p50ms)} / ${Math.round(q.p99ms)} / ${Math.round(q.maxms)}`;
    const row = (label: string, p: Phase) =>
      `| ${label} | ${p.orders} | ${ms(p.stored)} | ${ms(p.sent)} | ${ms(p.registered)} | ${p.failed} |`;
    const table = [
      '| orders | count | stored to invoiced p50 / p99 / max ms | sent to invoiced p50 / p99 / max ms | stored to registered (queue turn) p50 / p99 / max ms | failed |',
      '|---|---|---|---|---|---|',
      row('quiet tenant, idle system', idle),
      row('quiet tenant, during the flood', flood),
      row('noisy tenant (the flood)', noisyPhase),
    ].join('\n');
    const out = [
      '',
      `Fairness benchmark (${store}, QUEUE_SHARDS ${shards}, ${workers} worker processes x WORKER_CONCURRENCY ${values['worker-concurrency']}; noisy: ${noisyOrders} orders at concurrency ${noisyConcurrency}, taken in ${round(intakeSeconds, 1)} s, all done after ${round(floodSeconds, 1)} s; quiet: an order every ${quietEvery} ms)`,
      '',
      table,
      '',
      `quiet p99 during the flood / quiet p99 idle, stored to invoiced = **${ratio.toFixed(2)}** (target 2: ${ratio <= 2 ? 'met' : 'NOT met'}); sent to invoiced: ${sentRatio.toFixed(2)}`,
      `429s answered (each retried after its Retry-After): noisy ${refused.get(noisy.tenant.slug) ?? 0}, quiet ${refused.get(quiet.tenant.slug) ?? 0} (ADMISSION_WRITES_PER_SECOND ${process.env.ADMISSION_WRITES_PER_SECOND ?? 'default'})`,
      '',
    ];
    process.stdout.write(out.join('\n') + '\n');
    await writeResult(
      'fairness',
      {
        store,
        shards: Number(shards),
        workers,
        workerConcurrency: Number(values['worker-concurrency']),
        noisyOrders,
        noisyConcurrency,
        quietEveryMs: quietEvery,
        intakeSeconds: round(intakeSeconds),
        floodSeconds: round(floodSeconds),
        idle,
        flood,
        noisy: noisyPhase,
        p99Ratio: ratio,
        noisyRefused: refused.get(noisy.tenant.slug) ?? 0,
        quietRefused: refused.get(quiet.tenant.slug) ?? 0,
        admissionWritesPerSecond: process.env.ADMISSION_WRITES_PER_SECOND ?? 'default',
        sentP99Ratio: sentRatio,
      },
      { table, args: argv },
    );
  } finally {
    await Promise.all(procs.map((p) => stopProcess(p)));
    await stopProcess(web);
    await knex.destroy();
    if (redisUrl) await clearQueues(redisUrl, cluster, prefix);
    if (db.embedded?.owned) await db.embedded.stop();
  }
}

/** 429s answered (ADMISSION_WRITES_PER_SECOND) per tenant slug: each was retried after its Retry-After. */
const refused = new Map<string, number>();

/**
 * Places one order; the time is taken just before it is first sent. A 429 is retried after its
 * `Retry-After`, as an integrator's client would, so every order gets through; the wait counts
 * in the order's time.
 */
async function send(port: number, f: OrderFixture, i: number): Promise<Sent> {
  const sentAt = Date.now();
  for (;;) {
    const res = await requestJson(port, f.order(i));
    if (res.status === 429) {
      refused.set(f.tenant.slug, (refused.get(f.tenant.slug) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, Number(res.headers['retry-after'] ?? 1) * 1000));
      continue;
    }
    const id = (res.json as { order_id?: number } | undefined)?.order_id;
    if (res.status !== 200 || !id) throw new Error(`intake answered ${res.status}: ${JSON.stringify(res.json)}`);
    return { id, sentAt };
  }
}

/** `n` orders, one every `everyMs` (open loop), numbered from `from`. */
async function paced(port: number, f: OrderFixture, n: number, everyMs: number, from: number): Promise<Sent[]> {
  const sends: Promise<Sent>[] = [];
  for (let i = 0; i < n; i++) {
    sends.push(send(port, f, from + i));
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return Promise.all(sends);
}

/** `n` orders, `concurrency` at a time, each sent as soon as the last answered. */
async function burst(port: number, f: OrderFixture, n: number, concurrency: number, from: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i < n) sent.push(await send(port, f, from + i++));
    }),
  );
  return sent;
}

async function waitDone(knex: Knex, tenant: Tenant, sent: Sent[], timeoutMs: number): Promise<void> {
  const ids = sent.map((s) => s.id);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await withTenant(knex, tenant, async (db) =>
      Number((await db('opportunities').whereIn('id', ids).whereIn('state', ['completed', 'failed']).count('* as n').first())!.n),
    );
    if (n >= ids.length) return;
    if (Date.now() > deadline) throw new Error(`only ${n} of ${ids.length} orders of ${tenant.slug} finished`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function phase(knex: Knex, tenant: Tenant, sent: Sent[]): Promise<Phase> {
  const epochMs = (column: string) => knex.raw(`extract(epoch from ${column} at time zone 'utc') * 1000`);
  const rows: { id: number; state: string; stored: string; at: string | null; registered: string | null }[] = await withTenant(
    knex,
    tenant,
    (db) =>
      db('opportunities as o')
        .leftJoin('registrations as r', 'r.opportunity_id', 'o.id')
        .whereIn(
          'o.id',
          sent.map((s) => s.id),
        )
        .select('o.id', 'o.state', { stored: epochMs('o.created_on'), at: epochMs('o.completed_on'), registered: epochMs('r.created_on') }),
  );
  const byId = new Map(
    rows
      .filter((r) => r.state === 'completed' && r.at && r.registered)
      .map((r) => [r.id, { stored: Number(r.stored), at: Number(r.at), registered: Number(r.registered) }]),
  );
  const done = sent.filter((s) => byId.has(s.id));
  return {
    orders: sent.length,
    stored: quantiles(done.map((s) => byId.get(s.id)!.at - byId.get(s.id)!.stored)),
    sent: quantiles(done.map((s) => byId.get(s.id)!.at - s.sentAt)),
    registered: quantiles(done.map((s) => byId.get(s.id)!.registered - byId.get(s.id)!.stored)),
    failed: sent.length - done.length,
  };
}

function quantiles(values: number[]): { p50ms: number; p99ms: number; maxms: number } {
  const ms = [...values].sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;
  return { p50ms: round(at(0.5)), p99ms: round(at(0.99)), maxms: round(ms[ms.length - 1] ?? 0) };
}

/** Deletes the run's queue keys, every shard, on every master of a cluster. */
async function clearQueues(redisUrl: string, cluster: boolean, prefix: string): Promise<void> {
  const client = createRedisClient(redisUrl, cluster, 'patient');
  try {
    await deleteKeys(client, namespaceKeyPatterns(prefix));
  } finally {
    client.disconnect();
  }
}
