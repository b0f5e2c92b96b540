import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createKnex } from '../src/platform/db/knex.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';
import { BENCH_SESSION_SECRET, benchDatabase, freePort, startProcess, stopProcess } from './lib/env.js';
import { orderFixture } from './lib/order-fixture.js';
import { requestJson, round } from './lib/load.js';
import { writeResult } from './lib/results.js';

/**
 * Orders through failures, as the reliability issue measured them: orders placed through a web
 * process of their own while the worker process is SIGKILLed every `--kill-every-ms` (and
 * started again), and Redis, without persistence, is SIGKILLed once mid-run and started again
 * empty. Reports accepted / completed / failed / duplicated (an order with more than one
 * registration, invoice or payment) and how many jobs the reconciler queued again.
 * Needs `redis-server` on the PATH (a Redis of the bench's own is started on a free port).
 */
export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      orders: { type: 'string', default: '120' },
      'kill-every-ms': { type: 'string', default: '1500' },
      'reconcile-after-ms': { type: 'string', default: '5000' },
      concurrency: { type: 'string', default: '4' },
    },
  });
  const total = Number(values.orders);
  const killEveryMs = Number(values['kill-every-ms']);
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0)
    throw new Error('the chaos bench needs redis-server on the PATH');

  const redisPort = await freePort();
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  let redis = await startRedis(redisPort);
  const db = await benchDatabase('chaos');
  const knex = createKnex(db.url, { poolMax: 4, applicationName: 'bench-chaos' });
  const { tenant, order } = await orderFixture(knex, 'chaos');
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: 'bench_chaos',
    RECONCILE_AFTER_MS: values['reconcile-after-ms'],
    WORKER_LOCK_MS: '2000',
    OUTBOX_SWEEP_MS: '500',
  };
  const port = await freePort();
  const web = await startProcess('dist/src/web.js', { ...env, PORT: String(port), HOST: '127.0.0.1' }, port);
  const startWorker = () =>
    spawn(process.execPath, ['dist/workers/main.js'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'warn', NODE_ENV: 'production', SESSION_SECRET: BENCH_SESSION_SECRET },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
  let worker: ChildProcess = startWorker();
  let workerKills = 0;
  let killing = true;
  const killer = (async () => {
    while (killing) {
      await new Promise((r) => setTimeout(r, killEveryMs));
      if (!killing) break;
      worker.kill('SIGKILL');
      workerKills++;
      worker = startWorker();
    }
  })();

  const accepted: number[] = [];
  let refused = 0;
  let sent = 0;
  let redisKilledAt = -1;
  const started = Date.now();
  try {
    await Promise.all(
      Array.from({ length: Number(values.concurrency) }, async () => {
        while (sent < total) {
          const i = sent++;
          // Redis dies once, a third of the way in, and comes back empty a second later.
          if (i === Math.floor(total / 3)) {
            redisKilledAt = i;
            await stopRedis(redis, 'SIGKILL');
            setTimeout(() => void startRedis(redisPort).then((r) => (redis = r)), 1000);
          }
          const res = await requestJson(port, order(i));
          const id = (res.json as { order_id?: number } | undefined)?.order_id;
          if (res.status === 200 && id) accepted.push(id);
          else refused++;
          await new Promise((r) => setTimeout(r, 50)); // a steady trickle over the run
        }
      }),
    );
    process.stderr.write(
      `placed ${accepted.length} orders (${refused} refused) in ${round((Date.now() - started) / 1000)} s; waiting for them to finish...\n`,
    );
    // Kills go on while the orders finish, then stop so the last ones can complete.
    const deadline = Date.now() + 180_000;
    const finished = () =>
      withTenant(knex, tenant, async (trx) =>
        Number((await trx('opportunities').whereIn('id', accepted).whereIn('state', ['completed', 'failed']).count('* as n').first())!.n),
      );
    while ((await finished()) < accepted.length && Date.now() < deadline) {
      if (Date.now() - started > 30_000) killing = false;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    killing = false;
    await killer;
  }
  const seconds = round((Date.now() - started) / 1000);
  const rows = await withTenant(knex, tenant, (trx) =>
    trx('opportunities as o')
      .whereIn('o.id', accepted)
      .select(
        'o.state',
        trx.raw('(select count(*)::int from registrations r where r.opportunity_id = o.id) as registrations'),
        trx.raw('(select count(*)::int from invoices i where i.opportunity_id = o.id) as invoices'),
        trx.raw('(select count(*)::int from payments p join invoices i on i.id = p.invoice_id where i.opportunity_id = o.id) as payments'),
      ),
  );
  const requeued = Number(
    (await knex('platform.outbox').where({ tenant_id: tenant.id }).where('requeues', '>', 0).count('* as n').first())!.n,
  );
  const result = {
    orders: total,
    accepted: accepted.length,
    completed: rows.filter((r: { state: string }) => r.state === 'completed').length,
    failed: rows.filter((r: { state: string }) => r.state === 'failed').length,
    stranded: rows.filter((r: { state: string }) => r.state !== 'completed' && r.state !== 'failed').length,
    duplicated: rows.filter(
      (r: { registrations: number; invoices: number; payments: number }) => r.registrations > 1 || r.invoices > 1 || r.payments > 1,
    ).length,
    requeuedByReconciler: requeued,
    workerKills,
    redisKilledAtOrder: redisKilledAt,
    seconds,
  };
  // The table of docs/reliability.md: the row is this run's.
  const table = [
    '| code | accepted | completed | failed | stranded | duplicated | requeued by the reconciler |',
    '|---|---|---|---|---|---|---|',
    `| this run | ${result.accepted} | ${result.completed} | ${result.failed} | ${result.stranded} | ${result.duplicated} | ${result.requeuedByReconciler} |`,
  ].join('\n');
  process.stdout.write(
    [
      '',
      `Chaos (${total} orders through a web process; worker SIGKILLed every ${killEveryMs} ms, ${workerKills} times; Redis SIGKILLed once at order ${redisKilledAt} and restarted empty; RECONCILE_AFTER_MS ${values['reconcile-after-ms']})`,
      '',
      table,
      '',
      `${seconds} s from the first order to the last one finished (or the 180 s wait running out).`,
      '',
    ].join('\n'),
  );
  await stopProcess(worker);
  await stopProcess(web);
  await knex.destroy();
  await stopRedis(redis, 'SIGTERM');
  if (db.embedded?.owned) await db.embedded.stop();
  await writeResult(
    'chaos',
    { killEveryMs, reconcileAfterMs: Number(values['reconcile-after-ms']), concurrency: Number(values.concurrency), ...result },
    { table, args: argv },
  );
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    const probe = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    probe.on('error', () => undefined);
    const ok = await probe
      .connect()
      .then(() => probe.ping())
      .then(
        (p) => p === 'PONG',
        () => false,
      );
    probe.disconnect();
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not start');
}

async function stopRedis(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}
