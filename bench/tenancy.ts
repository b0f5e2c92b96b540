import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { createKnex } from '../src/platform/db/knex.js';
import { migrateAll, migratePlatform } from '../src/platform/tenancy/migrate.js';
import { createTenant } from '../src/platform/tenancy/provision.js';
import { benchDatabase, freePort, startProcess, stopProcess } from './lib/env.js';
import { round, rssMb, runLoad, type LoadResult } from './lib/load.js';
import { writeResult } from './lib/results.js';

/**
 * Tenancy at scale: provision N tenants (seconds per tenant), migrate-all over all of them,
 * then the same tenant-scoped request (`GET /` on a tenant host: tenant resolution, a
 * transaction with a transaction-local search_path, one query in the tenant's schema) against
 * a real web process with 1 tenant and with N, in the same run. Target: p50 at N within 1.1x.
 */
export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      tenants: { type: 'string', default: '2000' },
      seconds: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '40' },
      concurrency: { type: 'string', default: '16' },
      'provision-concurrency': { type: 'string', default: '4' },
    },
  });
  const n = Number(values.tenants);
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const db = await benchDatabase('tenancy');
  const knex = createKnex(db.url, { poolMax: 8, applicationName: 'bench-tenancy' });
  await migratePlatform(knex);
  const slug = (i: number) => `bench-${i}`;
  await createTenant(knex, { slug: slug(0), name: 'Bench 0' });

  const port = await freePort();
  const web = await startProcess('dist/src/web.js', { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1' }, port);
  const pid = web.pid!;
  const hostOf = (i: number) => `${slug(i)}.localhost:${port}`;
  try {
    process.stderr.write(`phase 1: ${seconds}s of GET / with 1 tenant\n`);
    await runLoad({ port, concurrency, seconds: 2, next: () => ({ path: '/', host: hostOf(0) }) });
    const one = await runLoad({ port, concurrency, seconds, next: () => ({ path: '/', host: hostOf(0) }) });
    const rssOne = await rssMb(pid);

    process.stderr.write(`phase 2: provisioning ${n - 1} more tenants\n`);
    const limit = pLimit(Number(values['provision-concurrency']));
    const t0 = Date.now();
    let done = 0;
    await Promise.all(
      Array.from({ length: n - 1 }, (_, k) =>
        limit(async () => {
          await createTenant(knex, { slug: slug(k + 1), name: `Bench ${k + 1}` });
          if (++done % 250 === 0) process.stderr.write(`  ${done} provisioned\n`);
        }),
      ),
    );
    const provisionSeconds = (Date.now() - t0) / 1000;

    process.stderr.write(`phase 3: migrate-all over ${n} tenants (nothing pending)\n`);
    const t1 = Date.now();
    const migrated = await migrateAll(knex, { concurrency: 4 });
    const migrateAllSeconds = (Date.now() - t1) / 1000;
    if (migrated.failed.length) throw new Error(`migrate-all failed for ${migrated.failed.join(', ')}`);

    // Cold: right after provisioning, each pooled connection meets most tenant schemas for the
    // first time (PostgreSQL's per-connection catalog caches). Warm: after every connection has
    // seen every schema, as in a web process that has been up for a while.
    process.stderr.write(`phase 4: ${seconds}s of GET / rotating across ${n} tenants (cold), ${values.warmup}s warm-up, ${seconds}s warm\n`);
    const rotate = (i: number) => ({ path: '/', host: hostOf(i % n) });
    const cold = await runLoad({ port, concurrency, seconds, next: rotate });
    await runLoad({ port, concurrency, seconds: Number(values.warmup), next: rotate });
    const many = await runLoad({ port, concurrency, seconds, next: rotate });
    const rssMany = await rssMb(pid);
    // The single tenant again, now that the database holds N schemas, in the same warm process.
    const oneAgain = await runLoad({ port, concurrency, seconds, next: () => ({ path: '/', host: hostOf(0) }) });

    // The README's table and figures, as they are written there.
    const num = (k: number) => k.toLocaleString('en-US');
    const row = (label: string, r: LoadResult, rss: number) => `| ${label} | ${Math.round(r.rps)} | ${r.p50ms.toFixed(2)} | ${r.p99ms.toFixed(2)} | ${r.errors} | ${Math.round(rss)} |`;
    const ratio = round(many.p50ms / one.p50ms);
    const table = [
      '| tenants | req/s | p50 ms | p99 ms | errors | web RSS MB |',
      '|---|---|---|---|---|---|',
      row('1', one, rssOne),
      row(`${num(n)}, cold`, cold, rssMany),
      row(`${num(n)}, warm`, many, rssMany),
      row('1, again', oneAgain, rssMany),
    ].join('\n');
    const out = [
      '',
      `Tenancy benchmark (${num(n)} tenants, concurrency ${concurrency}, ${seconds} s per phase, ${values.warmup} s warm-up, queues on ${process.env.REDIS_URL ? 'Redis' : 'PostgreSQL'})`,
      '',
      `- provisioning: ${round(provisionSeconds, 1)} s for ${num(n - 1)} tenants = **${round(provisionSeconds / (n - 1), 3)} s per tenant** (${values['provision-concurrency']} at a time)`,
      `- migrate-all over ${num(n)} tenants with nothing pending: **${round(migrateAllSeconds)} s**`,
      '',
      table,
      '',
      `p50 at ${num(n)} tenants (warm) / p50 at 1 = **${ratio.toFixed(2)}** (target 1.1: ${ratio <= 1.1 ? 'met' : 'NOT met'}); cold: ${round(cold.p50ms / one.p50ms).toFixed(2)}`,
      '',
    ];
    process.stdout.write(out.join('\n') + '\n');
    await writeResult(
      'tenancy',
      {
        tenants: n,
        concurrency,
        seconds,
        warmupSeconds: Number(values.warmup),
        provisionConcurrency: Number(values['provision-concurrency']),
        queueBackend: process.env.REDIS_URL ? 'redis' : 'postgres',
        provisionSeconds: round(provisionSeconds),
        provisionSecondsPerTenant: round(provisionSeconds / (n - 1), 3),
        migrateAllSeconds: round(migrateAllSeconds),
        one,
        cold,
        many,
        oneAgain,
        rssOne,
        rssMany,
        p50Ratio: ratio,
      },
      { table, args: argv },
    );
  } finally {
    await stopProcess(web);
    await knex.destroy();
    if (db.embedded?.owned) await db.embedded.stop();
  }
}
