import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Agent, request } from 'undici';
import { buildSchema } from '../src/app/graphql-schema.js';
import { createUser } from '../src/modules/users/users.service.js';
import { storedQueryCheck } from '../src/modules/webhooks/webhook-payload.graphql.js';
import { createWebhook } from '../src/modules/webhooks/webhooks.service.js';
import { createKnex, type Knex } from '../src/platform/db/knex.js';
import { createQueueBackend, namespaceKeyPatterns, type QueueBackend } from '../src/platform/queues/queues.js';
import { createRedisClient, deleteKeys } from '../src/platform/queues/redis-client.js';
import { migratePlatform } from '../src/platform/tenancy/migrate.js';
import { createTenant } from '../src/platform/tenancy/provision.js';
import type { Tenant } from '../src/platform/tenancy/tenant.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';
import { benchDatabase, startProcess, stopProcess } from './lib/env.js';
import { cpuMs, round } from './lib/load.js';
import { writeResult } from './lib/results.js';
import { noopRate } from './orders.js';

/**
 * Webhooks (issue 24, "Measured"): changes committed in tenant schemas, captured by the tenant's
 * triggers, relayed from the outbox to the `webhooks` queue and delivered by real worker
 * processes (dist/workers/main.js, WEBHOOK_ALLOW=loopback) to a receiver process on 127.0.0.1
 * that records when each delivery arrived. A change is an UPDATE of one event's title (Event
 * Updated), committed by this process in the tenant's transaction as any path commits one; its
 * commit time is taken as the committing call returns, and the receiver matches the delivery by
 * the title its payload carries (each change updates an event of its own, so the stored query,
 * run at delivery, cannot see a later title). The stored query is the sync service's Event tree
 * (real-clients.md 5.A).
 *
 * In one run:
 * 1. Saturation: `--changes` changes committed as fast as `--commit-concurrency` connections
 *    take them, spread over `--tenants` tenants with one webhook each (so WEBHOOK_ENDPOINT_
 *    CONCURRENCY, a per-webhook bound, does not cap the worker's WEBHOOK_CONCURRENCY), against
 *    the bare sender: the same envelopes (captured from Lectern's deliveries, headers and all)
 *    POSTed by a tight undici loop in a process of its own at workers x WEBHOOK_CONCURRENCY
 *    to the same receiver (as many, and for 3 s at least). In `--rounds` rounds taking the two
 *    in turn, summed.
 * 2. Paced: `--rate` changes/s for `--seconds` to one webhook of tenant B (open loop).
 * 3. Isolation: the same again, while tenant A's webhook, whose receiver hangs `--hang-ms` per
 *    request, gets `--hang-rate` changes/s (from 2 s before B's first change to B's last).
 * Targets: saturation >= 0.5 of the bare sender; paced p99 < 1 s; B's p99 with A hanging <= 2x alone.
 *
 * Where the time goes, for each phase: from BullMQ's own job timestamps (added, started,
 * finished), split into relay (commit to job added), queue wait, the job until the receiver has
 * the POST, and the job after it; during saturation, the CPU each process used per delivery and
 * what the worker's PostgreSQL sessions were doing (pg_stat_activity sampled every 100 ms).
 *
 * Flags (defaults take about 2 minutes on a 2-core machine): `--changes 1000 --rounds 2`
 * (saturation), `--rate 100 --seconds 10` (paced, each isolation phase), `--tenants 8`,
 * `--hang-rate 20 --hang-ms 10000` (tenant A), `--workers 1 --webhook-concurrency 25
 * --endpoint-concurrency 4` (the worker processes' WEBHOOK_* settings; the bare sender runs at
 * workers x webhook concurrency), `--commit-concurrency 8`, `--query acted|minimal` (the stored
 * query: the sync service's Event tree, or only `node { id title }`), `--worker-env KEY=VALUE`
 * (repeatable: any other setting of the worker processes, e.g. DB_POOL_MAX=25).
 *
 * This file is also the receiver and the bare sender: `node --import tsx bench/webhooks.ts
 * receiver|bare` (the bench starts them).
 */

// ---------------------------------------------------------------------------------------------
// The receiver and the bare sender (child processes)

interface Arrival {
  /** The payload's `node.title`: the change's key. */
  key: string;
  /** Milliseconds since the epoch, with the fraction (performance.timeOrigin + now). */
  at: number;
  /** The Standard Webhooks `webhook-id` (`msg_<tenant>_<delivery>`), for the delivery's job. */
  id: string;
}

interface Sample {
  body: string;
  headers: Record<string, string>;
}

const now = () => performance.timeOrigin + performance.now();

/** Progress on stderr, with the seconds since the bench started. */
const say = (line: string) => process.stderr.write(`[${Math.round(performance.now() / 1000)} s] ${line}`);

/**
 * Answers POST /ok/... at once (200 `[]`, as the WordPress receiver does) and POST /hang/...
 * after HANG_MS; records every POST's arrival (when its body has been read). GET /arrivals?from=n
 * answers the arrivals from the n-th on; GET /sample one envelope Lectern sent to /ok.
 */
function receiverRole(): void {
  const hangMs = Number(process.env.HANG_MS ?? 10_000);
  const arrivals: Arrival[] = [];
  let sample: Sample | undefined;
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'GET') {
      const u = new URL(url, 'http://127.0.0.1');
      const body =
        u.pathname === '/arrivals'
          ? arrivals.slice(Number(u.searchParams.get('from') ?? 0))
          : u.pathname === '/sample'
            ? (sample ?? null)
            : undefined;
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      const raw = Buffer.concat(chunks).toString('utf8');
      let key = '';
      try {
        key = String((JSON.parse(raw) as { payload?: { node?: { title?: unknown } } }).payload?.node?.title ?? '');
      } catch {
        // not JSON: recorded with no key
      }
      arrivals.push({ key, at, id: String(req.headers['webhook-id'] ?? '') });
      if (!sample && url.startsWith('/ok/')) {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
        sample = { body: raw, headers };
      }
      const answer = () => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      };
      if (url.startsWith('/hang/')) setTimeout(answer, hangMs);
      else answer();
    });
  });
  // Keep-alive connections outlive the bench's pauses; no request deadline (the hanging ones).
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  server.requestTimeout = 0;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`ready ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
}

/** The bare sender's orders (BENCH_BARE, JSON): what to POST where, how many at least, for how long at least, how many at once. */
interface BareSpec {
  url: string;
  body: string;
  headers: Record<string, string>;
  concurrency: number;
  count: number;
  /** It goes on past `count` until this long has passed: a few hundred POSTs take a fraction of a second, too short to time. */
  minSeconds: number;
  warmup: number;
}

/** What the bare sender timed. */
interface BareResult {
  sent: number;
  ok: number;
  seconds: number;
  cpuMs: number;
}

/**
 * POSTs the envelope `count` times and for `minSeconds` at least, `concurrency` at a time on
 * keep-alive connections, after a warm-up; prints what it timed.
 */
async function bareRole(): Promise<void> {
  const spec = JSON.parse(process.env.BENCH_BARE ?? '{}') as BareSpec;
  const agent = new Agent();
  const loop = async (n: number, minMs: number): Promise<{ sent: number; ok: number }> => {
    const until = performance.now() + minMs;
    let sent = 0;
    let ok = 0;
    await Promise.all(
      Array.from({ length: spec.concurrency }, async () => {
        while (sent < n || performance.now() < until) {
          sent++;
          const res = await request(spec.url, { method: 'POST', headers: spec.headers, body: spec.body, dispatcher: agent });
          await res.body.text();
          if (res.statusCode === 200) ok++;
        }
      }),
    );
    return { sent, ok };
  };
  await loop(spec.warmup, 0);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const { sent, ok } = await loop(spec.count, spec.minSeconds * 1000);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const result: BareResult = { sent, ok, seconds, cpuMs: (cpu.user + cpu.system) / 1000 };
  process.stdout.write(JSON.stringify(result) + '\n');
  await agent.close();
}

const SELF = fileURLToPath(import.meta.url);
if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  const role = process.argv[2];
  if (role === 'receiver') receiverRole();
  else if (role === 'bare') await bareRole();
  else {
    process.stderr.write('usage: node --import tsx bench/webhooks.ts receiver|bare\n');
    process.exit(2);
  }
}

/** Starts this file as `role`; answers once it has printed its first line. */
async function startRole(role: 'receiver' | 'bare', env: Record<string, string>): Promise<{ proc: ChildProcess; first: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', SELF, role], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const first = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    proc.once('exit', (code) => reject(new Error(`bench/webhooks.ts ${role} exited (${code}) before answering`)));
  });
  return { proc, first };
}

// ---------------------------------------------------------------------------------------------
// The measured side

/**
 * The sync service's Event tree (real-clients.md 5.A, acted), as its `Event Updated` webhook
 * stores it; `title` is the key the receiver matches by.
 */
const ACTED_QUERY = `query ($objectid: ID!) { node(id: $objectid) { id ... on Event { title lifecycleState cancelledAt isSoldOut learningMode
  maxPlaces minPlaces location { id } venue { id } timeZoneName lmsStart lmsEnd registrationDeadline courseTemplate { id } updatedAt
  customFieldValues { definitionKey value } } } }`;

/** The least a receiver could ask (`--query minimal`): how much of a delivery the stored query is. */
const MINIMAL_QUERY = 'query ($objectid: ID!) { node(id: $objectid) { id ... on Event { title } } }';

/** A tenant with one webhook and a supply of events, each updated once. */
interface Target {
  tenant: Tenant;
  ownerId: number;
  events: number[];
  used: number;
}

interface Quantiles {
  p50ms: number;
  p99ms: number;
  maxms: number;
}

/** Where a delivery's time went, from its job's timestamps (BullMQ's `timestamp`, `processedOn`, `finishedOn`). */
interface Stages {
  /** The commit to the job being added to the queue (the trigger's notice, the relay's sweep). */
  relay: Quantiles;
  /** Added to started by a worker. */
  queued: Quantiles;
  /** Started to the receiver having the POST (the delivery read, the stored query, signing, the POST). */
  toReceiver: Quantiles;
  /** The receiver having it to the job finishing (the answer, recording the attempt, settling the outbox row). */
  afterReceiver: Quantiles;
  /** Deliveries whose job was found (completed jobs are kept up to BullMQ's limit). */
  jobs: number;
}

interface PhaseResult {
  changes: number;
  delivered: number;
  /** First commit's start to the last delivery's arrival. */
  seconds: number;
  changesPerSecond: number;
  /** Commits alone: first start to last commit. */
  commitsPerSecond: number;
  latency: Quantiles;
  stages?: Stages;
  /**
   * Index look-ups of the tenant's webhook_deliveries per delivery (pg_stat_user_tables): 2 when
   * each is sent at its first turn (its read, its update), one more each time it is put back
   * because its webhook already has WEBHOOK_ENDPOINT_CONCURRENCY deliveries in flight.
   */
  lookupsPerDelivery?: number;
}

/** CPU used per delivery (ms) by each process during saturation. */
interface CpuPerDelivery {
  workers: number;
  postgres: number;
  redis: number;
  receiver: number;
  committer: number;
  /** All of them: deliveries/s cannot exceed cores x 1000 / this. */
  total: number;
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '10' },
      rate: { type: 'string', default: '100' },
      changes: { type: 'string', default: '1000' },
      rounds: { type: 'string', default: '2' },
      tenants: { type: 'string', default: '8' },
      workers: { type: 'string', default: '1' },
      'webhook-concurrency': { type: 'string', default: '25' },
      'endpoint-concurrency': { type: 'string', default: '4' },
      'commit-concurrency': { type: 'string', default: '8' },
      'hang-rate': { type: 'string', default: '20' },
      'hang-ms': { type: 'string', default: '10000' },
      'worker-env': { type: 'string', multiple: true, default: [] },
      query: { type: 'string', default: 'acted' },
    },
  });
  const opts = {
    seconds: Number(values.seconds),
    rate: Number(values.rate),
    changes: Number(values.changes),
    rounds: Number(values.rounds),
    tenants: Number(values.tenants),
    workers: Number(values.workers),
    webhookConcurrency: Number(values['webhook-concurrency']),
    endpointConcurrency: Number(values['endpoint-concurrency']),
    commitConcurrency: Number(values['commit-concurrency']),
    hangRate: Number(values['hang-rate']),
    hangMs: Number(values['hang-ms']),
  };
  for (const [k, v] of Object.entries(opts)) if (!(Number.isFinite(v) && v > 0)) throw new Error(`--${k} must be a positive number`);
  const workerEnv = Object.fromEntries(
    (values['worker-env'] as string[]).map((kv) => {
      const at = kv.indexOf('=');
      if (at < 1) throw new Error(`--worker-env takes KEY=VALUE, not ${kv}`);
      return [kv.slice(0, at), kv.slice(at + 1)];
    }),
  );
  if (values.query !== 'acted' && values.query !== 'minimal') throw new Error('--query is acted or minimal');
  const storedQuery = values.query === 'acted' ? ACTED_QUERY : MINIMAL_QUERY;
  const redisUrl = process.env.REDIS_URL || undefined;
  const store = redisUrl ? 'Redis' : 'PostgreSQL';
  const bareConcurrency = opts.workers * opts.webhookConcurrency;
  const perRound = Math.ceil(opts.changes / opts.rounds);

  const db = await benchDatabase('webhooks');
  const dbName = new URL(db.url).pathname.slice(1);
  const prefix = `bench_wh_${Date.now().toString(36)}`;
  const knex = createKnex(db.url, { poolMax: opts.commitConcurrency + 2, applicationName: 'bench-webhooks', queueNamespace: prefix });
  const queues = createQueueBackend({
    redisUrl,
    redisCluster: process.env.REDIS_CLUSTER === 'on',
    databaseUrl: db.url,
    prefix,
    shards: Number(process.env.QUEUE_SHARDS || 1),
  });
  const receiver = await startRole('receiver', { HANG_MS: String(opts.hangMs) });
  const receiverPort = Number(receiver.first.split(' ')[1]);
  const arrivals = new ArrivalLog(receiverPort);
  const workers: ChildProcess[] = [];
  try {
    // Tenants: s0..s{n-1} (saturation; s0 is tenant B of the paced and isolation phases), hang (A).
    say(`setting up ${opts.tenants + 1} tenants\n`);
    await migratePlatform(knex);
    const check = storedQueryCheck(buildSchema());
    const why = check(storedQuery);
    if (why) throw new Error(`the stored query is refused: ${why}`);
    const warmupEach = 20;
    const satEach = Math.ceil(opts.changes / opts.tenants) + 1;
    const paced = Math.ceil(opts.rate * opts.seconds);
    const targets: Target[] = [];
    for (let k = 0; k < opts.tenants; k++) {
      const events = warmupEach + satEach + (k === 0 ? 2 * paced + 10 : 0);
      targets.push(await setUpTarget(knex, `s${k}`, events, `http://127.0.0.1:${receiverPort}/ok/s${k}`, storedQuery, check));
    }
    const hanging = await setUpTarget(
      knex,
      'hang',
      Math.ceil(opts.hangRate * (opts.seconds + 3)) + 10,
      `http://127.0.0.1:${receiverPort}/hang/a`,
      storedQuery,
      check,
    );
    const b = targets[0]!;

    if (redisUrl) await clearPrefix(redisUrl, prefix);
    say(`starting ${opts.workers} worker process(es)\n`);
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: redisUrl ?? '',
      QUEUE_PREFIX: prefix,
      WEBHOOK_ALLOW: 'loopback',
      WEBHOOK_CONCURRENCY: String(opts.webhookConcurrency),
      WEBHOOK_ENDPOINT_CONCURRENCY: String(opts.endpointConcurrency),
      WEBHOOK_TIMEOUT_MS: '10000',
      ...workerEnv,
    };
    for (let w = 0; w < opts.workers; w++) workers.push(await startProcess('dist/workers/main.js', env));
    await new Promise((r) => setTimeout(r, 2000));

    // Warm-up: every tenant's first deliveries (connections, caches, the compiled query), and the envelope the bare sender sends.
    say('warm-up\n');
    const warm = await pacedChanges(knex, opts.tenants * warmupEach, 100, (i) => [targets[i % targets.length]!, `w-${i}`]);
    await arrivals.waitFor([...warm.commits.keys()], 60_000);
    const sample = await getJson<Sample | null>(receiverPort, '/sample');
    if (!sample) throw new Error('no delivery reached the receiver during the warm-up');

    // 1. Saturation, Lectern and the bare sender in turn.
    const sat: { lectern: Measured[]; bare: BareResult[] } = { lectern: [], bare: [] };
    const cpu: CpuTotals = { workers: 0, postgres: 0, redis: 0, receiver: 0, committer: 0, deliveries: 0 };
    const activity = new Map<string, number>();
    let activitySamples = 0;
    let busySessions = 0;
    let lecternSeconds = 0;
    for (let r = 0; r < opts.rounds; r++) {
      const order = r % 2 === 0 ? (['lectern', 'bare'] as const) : (['bare', 'lectern'] as const);
      for (const side of order) {
        if (side === 'bare') {
          say(`round ${r + 1}: bare sender, ${perRound} POSTs and 3 s at least, at concurrency ${bareConcurrency}\n`);
          const spec: BareSpec = {
            url: `http://127.0.0.1:${receiverPort}/ok/bare`,
            body: sample.body,
            headers: sample.headers,
            concurrency: bareConcurrency,
            count: perRound,
            minSeconds: 3,
            warmup: Math.min(500, perRound),
          };
          const bare = await startRole('bare', { BENCH_BARE: JSON.stringify(spec) });
          sat.bare.push(JSON.parse(bare.first) as BareResult);
          await new Promise((resolve) => (bare.proc.exitCode !== null ? resolve(null) : bare.proc.once('exit', resolve)));
          continue;
        }
        say(
          `round ${r + 1}: Lectern, ${perRound} changes over ${opts.tenants} tenants, ${opts.commitConcurrency} connections committing\n`,
        );
        const sampler = sampleActivity(db.url, dbName, activity);
        const before = await cpuNow(workers, receiver.proc, dbName, redisUrl);
        const burst = await burstChanges(knex, perRound, opts.commitConcurrency, (i) => [targets[i % targets.length]!, `s${r}-${i}`]);
        const measured = await measure(arrivals, burst, 300_000);
        const after = await cpuNow(workers, receiver.proc, dbName, redisUrl);
        const sampled = await sampler.stop();
        activitySamples += sampled.samples;
        busySessions += sampled.busy;
        lecternSeconds += phaseOf(measured).seconds;
        addCpu(cpu, before, after, measured.arrived.size);
        sat.lectern.push(measured);
      }
    }
    const satStages = await stagesOf(queues, sat.lectern.at(-1)!);

    // 2. Paced: tenant B alone.
    say(`paced: ${opts.rate} changes/s for ${opts.seconds} s to tenant B's webhook\n`);
    const bReads = () => deliveryReads(knex, b.tenant.schema);
    const settledStats = () => new Promise((r) => setTimeout(r, 1500)); // statistics reach pg_stat_user_tables within a second
    let bBefore = await bReads();
    const alone = await measure(arrivals, await pacedChanges(knex, paced, opts.rate, (i) => [b, `b0-${i}`]), 120_000);
    const aloneStages = await stagesOf(queues, alone);
    await settledStats();
    const aloneLookups = round(((await bReads()) - bBefore) / alone.arrived.size);
    bBefore = await bReads();

    // 3. Isolation: tenant B again while tenant A's receiver hangs.
    say(
      `isolation: tenant A ${opts.hangRate} changes/s to a receiver hanging ${opts.hangMs} ms; tenant B ${opts.rate} changes/s for ${opts.seconds} s\n`,
    );
    const hangCount = Math.ceil(opts.hangRate * (opts.seconds + 2));
    const aReads = () => deliveryReads(knex, hanging.tenant.schema);
    const readsBefore = await aReads();
    const isolationStarted = Date.now();
    const aRun = pacedChanges(knex, hangCount, opts.hangRate, (i) => [hanging, `a-${i}`]);
    await new Promise((r) => setTimeout(r, 2000));
    const withA = await measure(arrivals, await pacedChanges(knex, paced, opts.rate, (i) => [b, `b1-${i}`]), 120_000);
    const withAStages = await stagesOf(queues, withA);
    const aCommitted = (await aRun).commits.size;
    const aArrived = arrivals.count((k) => k.startsWith('a-'));
    const isolationSeconds = (Date.now() - isolationStarted) / 1000;
    await settledStats();
    const aReadCount = (await aReads()) - readsBefore;
    const withALookups = round(((await bReads()) - bBefore) / withA.arrived.size);
    const aDeliveries = await withTenant(knex, hanging.tenant, async (trx) =>
      Object.fromEntries(
        ((await trx('webhook_deliveries').select('state').count('* as n').groupBy('state')) as { state: string; n: number }[]).map((r) => [
          r.state,
          Number(r.n),
        ]),
      ),
    );

    // 4. The ceiling that one BullMQ job per delivery (the issue's design) sets: jobs that do
    // nothing, on the same store, with the same worker processes and concurrency.
    // Then jobs that only POST the bare sender's envelope: what any design of one job per delivery can reach here.
    const noopJobs = 10_000;
    const ceiling = (what: string, env: Record<string, string>) => {
      say(`ceiling: ${noopJobs} BullMQ jobs ${what}, ${opts.workers} worker process(es) at concurrency ${opts.webhookConcurrency}\n`);
      return noopRate(
        redisUrl ? 'redis' : 'postgres',
        db.url,
        redisUrl,
        `${prefix}_noop`,
        noopJobs,
        (noopPrefix) =>
          Array.from({ length: opts.workers }, () =>
            spawn(process.execPath, ['--import', 'tsx', 'bench/lib/noop-worker.ts'], {
              env: {
                ...process.env,
                ...env,
                DATABASE_URL: db.url,
                QUEUE_PREFIX: noopPrefix,
                WORKER_CONCURRENCY: String(opts.webhookConcurrency),
              },
              stdio: ['ignore', 'inherit', 'inherit'],
            }),
          ),
        (procs) => Promise.all(procs.map((p) => stopProcess(p))),
        async () => undefined,
      );
    };
    const noop = await ceiling('doing nothing', {});
    const noopPost = await ceiling('each POSTing the envelope', {
      NOOP_POST: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/ok/bare`, body: sample.body, headers: sample.headers }),
    });

    // Results.
    const lectern = summariseMeasured(sat.lectern);
    const bareOk = sat.bare.reduce((n, x) => n + x.ok, 0);
    const bareSent = sat.bare.reduce((n, x) => n + x.sent, 0);
    const bareSeconds = sat.bare.reduce((n, x) => n + x.seconds, 0);
    const bareRate = round(bareOk / bareSeconds);
    const bareCpuMs = round(sat.bare.reduce((n, x) => n + x.cpuMs, 0) / bareOk, 3);
    const ratio = round(lectern.changesPerSecond / bareRate, 3);
    const noopToBare = round(noop.jobsPerSecond / bareRate, 3);
    const postToBare = round(noopPost.jobsPerSecond / bareRate, 3);
    const lecternToPost = round(lectern.changesPerSecond / noopPost.jobsPerSecond, 3);
    const alonePhase = { ...phaseOf(alone, aloneStages), lookupsPerDelivery: aloneLookups };
    const withAPhase = { ...phaseOf(withA, withAStages), lookupsPerDelivery: withALookups };
    const isolation = round(withAPhase.latency.p99ms / alonePhase.latency.p99ms);
    const perDelivery = cpuPerDelivery(cpu);
    const topActivity = [...activity]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 12)
      .map(([what, n]) => ({ what, sessions: round(n / Math.max(1, activitySamples), 2) }));
    const meanBusy = round(busySessions / Math.max(1, activitySamples), 2);
    const workerCorePct = Math.round((cpu.workers / (lecternSeconds * 1000 * opts.workers)) * 100);

    const ms = (q: Quantiles) => `${Math.round(q.p50ms)} / ${Math.round(q.p99ms)} / ${Math.round(q.maxms)}`;
    const int = (n: number) => Math.round(n).toLocaleString('en-US');
    const row = (label: string, p: PhaseResult) =>
      `| ${label} | ${p.changes} | ${int(p.commitsPerSecond)} | ${int(p.changesPerSecond)} | ${ms(p.latency)} | ${p.changes - p.delivered} |`;
    const table = [
      '| phase | changes | committed/s | delivered/s | commit to delivery p50 / p99 / max ms | not delivered |',
      '|---|---|---|---|---|---|',
      row(`Lectern, saturation (${opts.tenants} tenants, 1 webhook each)`, { ...lectern, stages: satStages }),
      `| bare sender, same envelopes, concurrency ${bareConcurrency} | ${bareSent} | - | ${int(bareRate)} | - | ${bareSent - bareOk} |`,
      `| BullMQ no-op jobs, same store and worker processes, concurrency ${opts.webhookConcurrency} | ${noop.jobs} | - | ${int(noop.jobsPerSecond)} | - | - |`,
      `| BullMQ jobs that only POST the envelope, the same | ${noopPost.jobs} | - | ${int(noopPost.jobsPerSecond)} | - | - |`,
      row(`Lectern, ${opts.rate} changes/s, tenant B alone`, alonePhase),
      row(`Lectern, ${opts.rate} changes/s, tenant B while A's receiver hangs`, withAPhase),
    ].join('\n');
    const stageRow = (label: string, s: Stages | undefined) =>
      s
        ? `| ${label} | ${s.jobs} | ${ms(s.relay)} | ${ms(s.queued)} | ${ms(s.toReceiver)} | ${ms(s.afterReceiver)} |`
        : `| ${label} | 0 | - | - | - | - |`;
    const stageTable = [
      '| phase | jobs | commit to job added (relay) | added to started (queue) | started to receiver has it | receiver to job finished |',
      '|---|---|---|---|---|---|',
      stageRow(`saturation, last round`, satStages),
      stageRow('paced, B alone', aloneStages),
      stageRow('paced, B while A hangs', withAStages),
    ].join('\n');
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const out = [
      '',
      `Webhooks benchmark (${store}, stored query ${values.query}, ${opts.workers} worker process(es), WEBHOOK_CONCURRENCY ${opts.webhookConcurrency}, WEBHOOK_ENDPOINT_CONCURRENCY ${opts.endpointConcurrency}; saturation ${opts.changes} changes in ${opts.rounds} rounds, ${opts.commitConcurrency} connections committing; paced ${opts.rate}/s for ${opts.seconds} s; envelope ${Buffer.byteLength(sample.body)} bytes)`,
      '',
      table,
      '',
      'Each change: one event title updated and committed (Event Updated); latency from the commit returning to the receiver having read the POST (p50 / p99 / max ms).',
      '',
      stageTable,
      '',
      `Where the time went (p50 / p99 / max ms), from the delivery jobs' BullMQ timestamps.`,
      `CPU per delivery at saturation (ms): worker(s) ${perDelivery.workers}, PostgreSQL (this database's sessions) ${perDelivery.postgres}, Redis ${perDelivery.redis}, receiver ${perDelivery.receiver}, committing ${perDelivery.committer}; in all ${perDelivery.total} (bare sender ${bareCpuMs} in its own process).`,
      `Worker process(es) at saturation: ${workerCorePct}% of a core each. Their PostgreSQL sessions not idle: ${meanBusy} on average (of DB_POOL_MAX per process); by what they were doing (mean sessions, ${activitySamples} samples): ${topActivity
        .slice(0, 6)
        .map((a) => `${a.sessions} ${a.what}`)
        .join('; ')}`,
      `Tenant B: look-ups of its webhook_deliveries per delivery: ${aloneLookups} alone, ${withALookups} while A hangs (2 when each delivery is sent at its first turn; one more for each time it was put back for 0.5-1 s because its webhook already had WEBHOOK_ENDPOINT_CONCURRENCY in flight).`,
      `Tenant A: ${aCommitted} changes committed, ${aArrived} POSTs reached its hanging receiver, its deliveries read ${aReadCount} times by the worker(s) in ${round(isolationSeconds, 1)} s (${Math.round(aReadCount / isolationSeconds)}/s); its deliveries now ${JSON.stringify(aDeliveries)}.`,
      '',
      `Lectern / bare sender at saturation = **${ratio.toFixed(2)}** (target 0.5: ${verdict(ratio >= 0.5)})`,
      `  the ceiling of one BullMQ job per delivery: jobs that only POST the envelope / bare sender = ${postToBare.toFixed(2)} (no-op jobs ${noopToBare.toFixed(2)}); Lectern / those jobs = ${lecternToPost.toFixed(2)}`,
      `p99 commit to delivery at ${opts.rate} changes/s = **${Math.round(alonePhase.latency.p99ms)} ms** (target under 1000: ${verdict(alonePhase.latency.p99ms < 1000)})`,
      `tenant B's p99 while A's receiver hangs / alone = **${isolation.toFixed(2)}** (target 2: ${verdict(isolation <= 2)})`,
      '',
    ];
    process.stdout.write(out.join('\n') + '\n');
    await writeResult(
      'webhooks',
      {
        store,
        ...opts,
        query: values.query,
        bareConcurrency,
        envelopeBytes: Buffer.byteLength(sample.body),
        saturation: {
          lectern: { ...lectern, stagesLastRound: satStages, rounds: sat.lectern.map((m) => phaseOf(m)) },
          bare: { posts: bareOk, seconds: round(bareSeconds), deliveriesPerSecond: bareRate, cpuMsPerPost: bareCpuMs, rounds: sat.bare },
          ratio,
          ceiling: {
            noop: { ...noop, toBare: noopToBare },
            postOnly: { ...noopPost, toBare: postToBare },
            lecternToPostOnly: lecternToPost,
          },
          cpuMsPerDelivery: perDelivery,
          workerCorePct,
          workerSessions: { samples: activitySamples, meanNotIdle: meanBusy, top: topActivity },
        },
        paced: alonePhase,
        isolation: {
          alone: alonePhase,
          whileHanging: withAPhase,
          p99Ratio: isolation,
          hanging: {
            committed: aCommitted,
            postsReached: aArrived,
            deliveryReads: aReadCount,
            deliveryReadsPerSecond: round(aReadCount / isolationSeconds),
            deliveries: aDeliveries,
          },
        },
      },
      { table: `${table}\n\n${stageTable}`, args: argv },
    );
  } finally {
    // The receiver first: the hanging requests end, so the workers stop at once.
    await stopProcess(receiver.proc);
    await Promise.all(workers.map((w) => stopProcess(w)));
    await queues.close();
    await knex.destroy();
    if (redisUrl) await clearPrefix(redisUrl, prefix);
    if (db.embedded?.owned) await db.embedded.stop();
  }
}

/** A tenant with an admin (the webhook's owner), `events` events (made before the webhook, so not captured), and one Event Updated webhook. */
async function setUpTarget(
  knex: Knex,
  slug: string,
  events: number,
  url: string,
  query: string,
  checkQuery: (q: string) => string | null,
): Promise<Target> {
  const tenant = await createTenant(knex, { slug, name: slug });
  return withTenant(knex, tenant, async (trx) => {
    const owner = await createUser(trx, { email: `${slug}@${slug}.test`, password: `${slug}-password-1`, role: 'admin' });
    const [tpl] = (await trx('course_templates')
      .insert({ title: `${slug} course` })
      .returning('id')) as { id: number }[];
    const ids: number[] = [];
    for (let i = 0; i < events; i += 1000) {
      const rows = Array.from({ length: Math.min(1000, events - i) }, (_, k) => ({
        course_template_id: tpl!.id,
        title: `${slug} event ${i + k}`,
        price: 100,
        currency_code: 'GBP',
      }));
      ids.push(...((await trx('events').insert(rows).returning('id')) as { id: number }[]).map((r) => r.id));
    }
    const made = await createWebhook(
      trx,
      {
        name: `Bench ${slug} Event Updated`,
        webhookTypeId: Buffer.from('WebhookType:event_updated').toString('base64'),
        query,
        url,
        config: '{"secret": "bench"}',
        notificationEmails: [`${slug}@${slug}.test`],
      },
      { tenantId: tenant.id, userId: owner.id, checkQuery, context: 'graphql' },
    );
    if (!made.webhook) throw new Error(`webhook not created: ${JSON.stringify(made.problems)}`);
    return { tenant, ownerId: owner.id, events: ids, used: 0 };
  });
}

/** One change: the next unused event of `t` gets `key` as its title, committed; answers the time the commit returned. */
async function commitChange(knex: Knex, t: Target, key: string): Promise<number> {
  const id = t.events[t.used++];
  if (id === undefined) throw new Error(`tenant ${t.tenant.slug} has no event left for ${key}`);
  await withTenant(knex, t.tenant, (trx) => trx('events').where({ id }).update({ title: key }), {
    via: { context: 'graphql', actorUserId: t.ownerId },
  });
  return now();
}

/** Changes committed and when: `started` is just before the first one began. */
interface Committed {
  started: number;
  commits: Map<string, number>;
}

/** `n` changes, one every 1/rate s whether or not the last one has committed (open loop). */
async function pacedChanges(knex: Knex, n: number, rate: number, next: (i: number) => [Target, string]): Promise<Committed> {
  const commits = new Map<string, number>();
  const started = now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const [t, key] = next(i);
    pending.push(commitChange(knex, t, key).then((at) => void commits.set(key, at)));
    const due = started + ((i + 1) * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, due - now())));
  }
  await Promise.all(pending);
  return { started, commits };
}

/** `n` changes, `concurrency` at a time, each as soon as the last has committed. */
async function burstChanges(knex: Knex, n: number, concurrency: number, next: (i: number) => [Target, string]): Promise<Committed> {
  const commits = new Map<string, number>();
  const started = now();
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i < n) {
        const [t, key] = next(i++);
        commits.set(key, await commitChange(knex, t, key));
      }
    }),
  );
  return { started, commits };
}

/** The receiver's arrivals, fetched as they come (from where the last fetch ended). */
class ArrivalLog {
  private readonly byKey = new Map<string, Arrival>();
  private fetched = 0;
  constructor(private readonly port: number) {}

  async refresh(): Promise<void> {
    const more = await getJson<Arrival[]>(this.port, `/arrivals?from=${this.fetched}`);
    this.fetched += more.length;
    // A key's first arrival counts (a retry of it would be a second).
    for (const a of more) if (a.key && !this.byKey.has(a.key)) this.byKey.set(a.key, a);
  }

  get(key: string): Arrival | undefined {
    return this.byKey.get(key);
  }

  count(match: (key: string) => boolean): number {
    let n = 0;
    for (const k of this.byKey.keys()) if (match(k)) n++;
    return n;
  }

  /** Waits until every key has arrived, or `timeoutMs` (then answers with those missing left out). */
  async waitFor(keys: string[], timeoutMs: number): Promise<Map<string, Arrival>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.refresh();
      const missing = keys.filter((k) => !this.byKey.has(k)).length;
      if (missing === 0) break;
      if (Date.now() > deadline) {
        process.stderr.write(`  ${missing} of ${keys.length} changes not delivered after ${timeoutMs / 1000} s\n`);
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return new Map(keys.flatMap((k) => (this.byKey.has(k) ? [[k, this.byKey.get(k)!] as const] : [])));
  }
}

interface Measured {
  committed: Committed;
  arrived: Map<string, Arrival>;
}

async function measure(log: ArrivalLog, committed: Committed, timeoutMs: number): Promise<Measured> {
  return { committed, arrived: await log.waitFor([...committed.commits.keys()], timeoutMs) };
}

function quantiles(values: number[]): Quantiles {
  const ms = [...values].sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? NaN;
  return { p50ms: round(at(0.5)), p99ms: round(at(0.99)), maxms: round(ms[ms.length - 1] ?? NaN) };
}

function phaseOf(m: Measured, stages?: Stages): PhaseResult {
  const latencies: number[] = [];
  let last = m.committed.started;
  for (const [key, a] of m.arrived) {
    latencies.push(a.at - m.committed.commits.get(key)!);
    last = Math.max(last, a.at);
  }
  const seconds = (last - m.committed.started) / 1000;
  const lastCommit = Math.max(...m.committed.commits.values());
  return {
    changes: m.committed.commits.size,
    delivered: m.arrived.size,
    seconds: round(seconds),
    changesPerSecond: round(m.arrived.size / seconds),
    commitsPerSecond: round(m.committed.commits.size / ((lastCommit - m.committed.started) / 1000)),
    latency: quantiles(latencies),
    ...(stages ? { stages } : {}),
  };
}

/** The rounds together: deliveries over the rounds' seconds summed, latencies pooled. */
function summariseMeasured(rounds: Measured[]): PhaseResult {
  const phases = rounds.map((m) => phaseOf(m));
  const seconds = phases.reduce((n, p) => n + p.seconds, 0);
  const delivered = phases.reduce((n, p) => n + p.delivered, 0);
  const changes = phases.reduce((n, p) => n + p.changes, 0);
  const commitSeconds = phases.reduce((n, p) => n + p.changes / p.commitsPerSecond, 0);
  const latencies = rounds.flatMap((m) => [...m.arrived].map(([k, a]) => a.at - m.committed.commits.get(k)!));
  return {
    changes,
    delivered,
    seconds: round(seconds),
    changesPerSecond: round(delivered / seconds),
    commitsPerSecond: round(changes / commitSeconds),
    latency: quantiles(latencies),
  };
}

/** The stages of a phase's deliveries, from their jobs (`webhooks-<tenant>-d<delivery>`, named by the `webhook-id` header). */
async function stagesOf(queues: QueueBackend, m: Measured): Promise<Stages | undefined> {
  const rows: { relay: number; queued: number; toReceiver: number; afterReceiver: number }[] = [];
  const entries = [...m.arrived];
  for (let i = 0; i < entries.length; i += 500) {
    const batch = entries.slice(i, i + 500);
    const jobs = await Promise.all(
      batch.map(([, a]) => {
        const id = /^msg_(\d+)_(\d+)$/.exec(a.id);
        return id ? queues.findJob('webhooks', Number(id[1]), `webhooks-${id[1]}-d${id[2]}`) : Promise.resolve(undefined);
      }),
    );
    batch.forEach(([key, a], k) => {
      const job = jobs[k];
      if (!job?.processedOn || !job.finishedOn) return;
      const committed = m.committed.commits.get(key)!;
      rows.push({
        relay: job.timestamp - committed,
        queued: job.processedOn - job.timestamp,
        toReceiver: a.at - job.processedOn,
        afterReceiver: job.finishedOn - a.at,
      });
    });
  }
  if (!rows.length) return undefined;
  return {
    relay: quantiles(rows.map((r) => r.relay)),
    queued: quantiles(rows.map((r) => r.queued)),
    toReceiver: quantiles(rows.map((r) => r.toReceiver)),
    afterReceiver: quantiles(rows.map((r) => r.afterReceiver)),
    jobs: rows.length,
  };
}

// ---------------------------------------------------------------------------------------------
// Where the CPU went, and what the worker's sessions did

interface CpuSnapshot {
  workers: number;
  postgres: number;
  redis: number;
  receiver: number;
  committer: number;
}

interface CpuTotals extends CpuSnapshot {
  deliveries: number;
}

/** CPU ms used so far by each side (PostgreSQL: the sessions connected to the bench database, from /proc). */
async function cpuNow(workers: ChildProcess[], receiver: ChildProcess, dbName: string, redisUrl: string | undefined): Promise<CpuSnapshot> {
  let postgres = 0;
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres:') && cmd.includes(` ${dbName} `)) postgres += await cpuMs(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  let redis = 0;
  if (redisUrl) {
    const client = createRedisClient(redisUrl, false, 'fail-fast');
    try {
      const info = await client.info('cpu');
      const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
      redis = (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
    } finally {
      client.disconnect();
    }
  }
  const own = process.cpuUsage();
  return {
    workers: (await Promise.all(workers.map((w) => cpuMs(w.pid!)))).reduce((a, b) => a + b, 0),
    postgres,
    redis,
    receiver: await cpuMs(receiver.pid!),
    committer: (own.user + own.system) / 1000,
  };
}

function addCpu(acc: CpuTotals, before: CpuSnapshot, after: CpuSnapshot, deliveries: number): void {
  for (const k of ['workers', 'postgres', 'redis', 'receiver', 'committer'] as const) acc[k] += after[k] - before[k];
  acc.deliveries += deliveries;
}

function cpuPerDelivery(t: CpuTotals): CpuPerDelivery {
  const per = (v: number) => round(v / Math.max(1, t.deliveries), 3);
  return {
    workers: per(t.workers),
    postgres: per(t.postgres),
    redis: per(t.redis),
    receiver: per(t.receiver),
    committer: per(t.committer),
    total: per(t.workers + t.postgres + t.redis + t.receiver + t.committer),
  };
}

/**
 * Samples what the workers' sessions are doing every 100 ms into `into` (state, wait event and
 * the statement's start, counted); `stop` answers how many samples were taken and how many
 * sessions not idle they saw in all.
 */
function sampleActivity(url: string, dbName: string, into: Map<string, number>): { stop(): Promise<{ samples: number; busy: number }> } {
  const client = new pg.Client({ connectionString: url, application_name: 'bench-webhooks-sampler' });
  let samples = 0;
  let busy = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ what: string }>(
        // A session waiting for a lock names what holds it.
        `select a.state || ' | ' || coalesce(a.wait_event_type || ':' || a.wait_event, 'on CPU') || ' | ' || regexp_replace(left(a.query, 70), '\\s+', ' ', 'g')
             || case when a.wait_event_type = 'Lock' then coalesce(' | held by: ' || (select b.state || ' | ' || regexp_replace(left(b.query, 60), '\\s+', ' ', 'g')
                  from pg_stat_activity b where b.pid = (pg_blocking_pids(a.pid))[1]), '') else '' end as what
           from pg_stat_activity a where a.datname = $1 and a.application_name = 'lectern-worker' and a.state <> 'idle'`,
        [dbName],
      );
      samples++;
      busy += rows.length;
      for (const r of rows) into.set(r.what, (into.get(r.what) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 100));
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { samples, busy };
    },
  };
}

/**
 * How often a tenant's deliveries have been read by primary key (each attempt reads its delivery
 * first, including one put back because its webhook's receiver already has its share in flight).
 */
async function deliveryReads(knex: Knex, schema: string): Promise<number> {
  const row = (await knex('pg_stat_user_tables').where({ schemaname: schema, relname: 'webhook_deliveries' }).first('idx_scan')) as
    { idx_scan: string | number | null } | undefined;
  return Number(row?.idx_scan ?? 0);
}

function getJson<T>(port: number, urlPath: string): Promise<T> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as T);
          } catch (err) {
            reject(err as Error);
          }
        });
      })
      .on('error', reject);
  });
}

/** Deletes the run's queue keys. */
async function clearPrefix(url: string, prefix: string): Promise<void> {
  const redis = createRedisClient(url, process.env.REDIS_CLUSTER === 'on', 'fail-fast');
  try {
    await deleteKeys(redis, namespaceKeyPatterns(prefix));
  } finally {
    redis.disconnect();
  }
}
