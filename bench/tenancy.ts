import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pLimit from 'p-limit';
import { tenantMigrations } from '../migrations/tenant/index.js';
import type { SchemaMigration } from '../src/platform/db/migration-source.js';
import { createKnex, type Knex } from '../src/platform/db/knex.js';
import { migrateAll, migratePlatform, type TenantMigrationResult } from '../src/platform/tenancy/migrate.js';
import { createTenant } from '../src/platform/tenancy/provision.js';
import { backendMemory, type BackendMemory } from './lib/backend-memory.js';
import { benchDatabase, freePort, startProcess, stopProcess } from './lib/env.js';
import { round, rssMb, runLoad, summarise, type LoadResult } from './lib/load.js';
import { writeResult } from './lib/results.js';

/**
 * A new migration as a release would bring one, for the bench only (never in migrations/tenant):
 * a small index on a table every tenant has. migrate-all gets it through its `migrations` option.
 */
const benchMigration: SchemaMigration = {
  name: '900_bench_contacts_created_on',
  async up(knex: Knex, schema: string) {
    await knex.schema.withSchema(schema).alterTable('contacts', (t) => t.index(['created_on'], 'bench_contacts_created_on'));
  },
  async down(knex: Knex, schema: string) {
    await knex.schema.withSchema(schema).alterTable('contacts', (t) => t.dropIndex(['created_on'], 'bench_contacts_created_on'));
  },
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
const load = () => os.loadavg().map((n) => round(n, 2));

/**
 * Tenancy at scale: provision N tenants (seconds per tenant, and how that moves as the catalog
 * grows), migrate-all over all of them with nothing pending, then with a new migration (time,
 * and a report line per tenant), then the same tenant-scoped request (`GET /` on a tenant host:
 * tenant resolution, a transaction-local search_path, one query in the tenant's schema) against a
 * real web process with 1 tenant and with N, in the same run, with the PostgreSQL memory of the
 * web process's connections at each. Target: p50 at N within 1.1x of p50 at 1.
 */
export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      tenants: { type: 'string', default: '2000' },
      seconds: { type: 'string', default: '10' },
      // Long enough for every pooled connection to meet every tenant a few times (10 connections):
      // 40 s at 2,000 tenants, scaled with the number of tenants.
      warmup: { type: 'string' },
      concurrency: { type: 'string', default: '16' },
      // The warm comparison: rounds of 1 tenant and of all N in turn, on the same process.
      rounds: { type: 'string', default: '3' },
      'provision-concurrency': { type: 'string', default: '4' },
      'migrate-concurrency': { type: 'string', default: '4' },
      // Keep the bench database of an earlier run that did not finish (provisioning 10,000
      // tenants takes hours here) and provision only the tenants it lacks.
      reuse: { type: 'boolean', default: false },
    },
  });
  const n = Number(values.tenants);
  const seconds = Number(values.seconds);
  const warmup = Number(values.warmup ?? Math.max(40, Math.round(n / 50)));
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: a whole number of rounds, 1 or more (got ${values.rounds})`);
  const migrateConcurrency = Number(values['migrate-concurrency']);
  const loadAtStart = load();
  const db = values.reuse ? await existingBenchDatabase('tenancy') : await benchDatabase('tenancy');
  const database = new URL(db.url).pathname.slice(1);
  const knex = createKnex(db.url, { poolMax: 8, applicationName: 'bench-tenancy' });
  await migratePlatform(knex);
  const slug = (i: number) => `bench-${i}`;
  const existing = new Set(await knex('platform.tenants').pluck('slug'));
  const missing = Array.from({ length: n }, (_, i) => i).filter((i) => !existing.has(slug(i)));
  if (missing[0] === 0) await createTenant(knex, { slug: slug(0), name: 'Bench 0' });
  const toProvision = missing.filter((i) => i > 0);
  const before = n - 1 - toProvision.length; // tenants besides bench-0 already there (--reuse)
  if (values.reuse) await undoBenchMigration(knex, migrateConcurrency);

  const port = await freePort();
  // The web process as deployed: its connections replaced past DB_CONNECTION_MAX_SCHEMAS (default 1000).
  let web = await startProcess('dist/src/web.js', { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1' }, port);
  const pid = web.pid!;
  const hostOf = (i: number) => `${slug(i)}.localhost:${port}`;
  const webMemory = () => backendMemory(knex, database, 'lectern-web');
  try {
    process.stderr.write(`phase 1: ${seconds}s of GET / with 1 tenant (load ${load().join(' ')})\n`);
    // A warm process (its code compiled, its connections open), as the N-tenant phases get.
    await runLoad({ port, concurrency, seconds: Math.max(5, seconds), next: () => ({ path: '/', host: hostOf(0) }) });
    const one = await runLoad({ port, concurrency, seconds, next: () => ({ path: '/', host: hostOf(0) }) });
    const rssOne = await rssMb(pid);
    const pgOne = await webMemory();

    process.stderr.write(
      `phase 2: provisioning ${toProvision.length} more tenants${before ? ` (${before + 1} there already)` : ''} (load ${load().join(' ')})\n`,
    );
    const limit = pLimit(Number(values['provision-concurrency']));
    const t0 = Date.now();
    // Seconds per tenant over each tenth of the run: how provisioning moves as the catalog grows.
    const step = Math.max(1, Math.round(n / 10));
    const steps: { upTo: number; secondsPerTenant: number }[] = [];
    let done = 0;
    let stepStart = Date.now();
    await Promise.all(
      toProvision.map((i) =>
        limit(async () => {
          await createTenant(knex, { slug: slug(i), name: `Bench ${i}` });
          if ((before + ++done) % step === 0 || done === toProvision.length) {
            const count = (before + done) % step || step;
            steps.push({ upTo: before + done + 1, secondsPerTenant: round((Date.now() - stepStart) / 1000 / Math.min(count, done), 3) });
            stepStart = Date.now();
            process.stderr.write(
              `  ${before + done + 1} tenants, ${steps.at(-1)!.secondsPerTenant} s per tenant lately (load ${load().join(' ')})\n`,
            );
          }
        }),
      ),
    );
    const provisionSeconds = (Date.now() - t0) / 1000;
    const pgProvisioning = await backendMemory(knex, database, 'bench-tenancy');

    process.stderr.write(`phase 3: migrate-all over ${n} tenants, nothing pending, then a new migration, then again\n`);
    const t1 = Date.now();
    const upToDate = await migrateAll(knex, { concurrency: migrateConcurrency });
    const migrateAllSeconds = (Date.now() - t1) / 1000;
    if (upToDate.failed.length) throw new Error(`migrate-all failed for ${upToDate.failed.join(', ')}`);

    const migrations = [...tenantMigrations, benchMigration];
    const reportFile = path.join(os.tmpdir(), `lectern-bench-tenancy-migrate-all-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
    const report = fs.openSync(reportFile, 'w');
    let reported = 0;
    const t2 = Date.now();
    const withNew = await migrateAll(knex, {
      concurrency: migrateConcurrency,
      migrations,
      onResult: (r: TenantMigrationResult) => {
        fs.writeSync(report, JSON.stringify(r) + '\n');
        if (++reported % step === 0) process.stderr.write(`  ${reported} tenants migrated\n`);
      },
    });
    const newMigrationSeconds = (Date.now() - t2) / 1000;
    fs.closeSync(report);
    const applied = withNew.tenants.filter((r) => r.applied.includes(benchMigration.name)).length;
    const perTenant = withNew.tenants.map((r) => r.ms).sort((a, b) => a - b);
    const slowest = [...withNew.tenants]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map((r) => ({ slug: r.slug, ms: r.ms }));
    // What a rerun after an interrupted release does for the tenants already done.
    const t3 = Date.now();
    const rerun = await migrateAll(knex, { concurrency: migrateConcurrency, migrations });
    const rerunSeconds = (Date.now() - t3) / 1000;
    if (withNew.failed.length || rerun.failed.length)
      throw new Error(`migrate-all failed for ${[...withNew.failed, ...rerun.failed].join(', ')}`);

    // Cold: right after provisioning, each pooled connection meets most tenant schemas for the
    // first time (PostgreSQL's per-connection catalog caches). Warm: after every connection has
    // seen every schema, as in a web process that has been up for a while.
    process.stderr.write(
      `phase 4: ${seconds}s of GET / rotating across ${n} tenants (cold), ${warmup}s warm-up, then ${rounds} rounds of 1 and ${n} tenants in turn (load ${load().join(' ')})\n`,
    );
    const rotate = (i: number) => ({ path: '/', host: hostOf(i % n) });
    const single = () => ({ path: '/', host: hostOf(0) });
    /**
     * The warm comparison, side by side: `rounds` rounds of `seconds` with 1 tenant and with all
     * N in turn (rotating which goes first) on the same warm process, each side's latencies
     * pooled over its rounds. The machine's speed drifts over tens of seconds; phases run one
     * after the other minutes apart moved the ratio by a factor of two between runs.
     */
    const sideBySide = async (): Promise<{ one: LoadResult; many: LoadResult }> => {
      const sides = {
        one: { latencies: [] as number[], errors: 0, seconds: 0 },
        many: { latencies: [] as number[], errors: 0, seconds: 0 },
      };
      for (let r = 0; r < rounds; r++) {
        for (const side of (r % 2 ? ['many', 'one'] : ['one', 'many']) as ('one' | 'many')[]) {
          const res = await runLoad({
            port,
            concurrency,
            seconds,
            next: side === 'one' ? single : rotate,
            latencies: sides[side].latencies,
          });
          sides[side].errors += res.errors;
          sides[side].seconds += res.seconds;
        }
      }
      const of = (side: 'one' | 'many') => summarise(sides[side].latencies, sides[side].errors, sides[side].seconds);
      return { one: of('one'), many: of('many') };
    };
    const cold = await runLoad({ port, concurrency, seconds, next: rotate });
    await runLoad({ port, concurrency, seconds: warmup, next: rotate });
    // The single tenant again (now that the database holds N schemas) and all N, in the same warm process.
    const { one: oneAgain, many } = await sideBySide();
    const rssMany = await rssMb(pid);
    const pgMany = await webMemory();

    // Side by side: the same warm phase on a web process whose connections are never replaced
    // (DB_CONNECTION_MAX_SCHEMAS=0, DB_CONNECTION_MAX_AGE=0), what the bound saves and costs.
    await stopProcess(web);
    process.stderr.write(`phase 5: the same, connections never replaced: ${warmup}s warm-up, then 1 and ${n} tenants in turn\n`);
    web = await startProcess(
      'dist/src/web.js',
      { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', DB_CONNECTION_MAX_SCHEMAS: '0', DB_CONNECTION_MAX_AGE: '0' },
      port,
    );
    await runLoad({ port, concurrency, seconds: warmup, next: rotate });
    const { one: unboundedOne, many: unbounded } = await sideBySide();
    const pgUnbounded = await webMemory();
    const rssUnbounded = await rssMb(web.pid!);
    const loadAtEnd = load();

    // The table and figures of docs/benchmarks.md, as they are written there.
    const num = (k: number) => k.toLocaleString('en-US');
    const mb = (m: BackendMemory | undefined) =>
      m ? `${m.meanMb.toFixed(1)} (max ${m.maxMb.toFixed(1)}, ${m.connections} connections)` : 'n/a';
    const row = (label: string, r: LoadResult, rss: number, pgm: BackendMemory | undefined) =>
      `| ${label} | ${Math.round(r.rps)} | ${r.p50ms.toFixed(2)} | ${r.p99ms.toFixed(2)} | ${r.errors} | ${Math.round(rss)} | ${mb(pgm)} |`;
    const ratio = round(many.p50ms / oneAgain.p50ms);
    // The first minute's single tenant ran before provisioning, or (--reuse) with schemas already there.
    const firstMinute = before ? ` (${num(before + 1)} tenants already there, --reuse)` : ', before provisioning';
    const unboundedRatio = round(unbounded.p50ms / unboundedOne.p50ms);
    const table = [
      '| tenants | req/s | p50 ms | p99 ms | errors | web RSS MB | PostgreSQL MB per web connection |',
      '|---|---|---|---|---|---|---|',
      row(`1, first minute${firstMinute}`, one, rssOne, pgOne),
      row(`${num(n)}, cold`, cold, rssMany, undefined),
      row(`1, warm, in turn with ${num(n)}`, oneAgain, rssMany, pgMany),
      row(`${num(n)}, warm, in turn with 1`, many, rssMany, pgMany),
      row(`1, connections never replaced, in turn with ${num(n)}`, unboundedOne, rssUnbounded, pgUnbounded),
      row(`${num(n)}, connections never replaced, in turn with 1`, unbounded, rssUnbounded, pgUnbounded),
    ].join('\n');
    const out = [
      '',
      `Tenancy benchmark (${num(n)} tenants, concurrency ${concurrency}, ${seconds} s per phase, ${warmup} s warm-up, queues on ${process.env.REDIS_URL ? 'Redis' : 'PostgreSQL'}; load average ${loadAtStart.join(' ')} at the start, ${loadAtEnd.join(' ')} at the end)`,
      '',
      `- provisioning: ${round(provisionSeconds, 1)} s for ${num(toProvision.length)} tenants${before ? ` (from ${num(before + 1)} to ${num(n)}, --reuse)` : ''} = **${round(provisionSeconds / Math.max(1, toProvision.length), 3)} s per tenant** (${values['provision-concurrency']} at a time); by tenth of the run: ${steps.map((s) => `${s.secondsPerTenant}`).join(', ')} s per tenant${pgProvisioning ? `; its connections ${mb(pgProvisioning)} MB each at the end` : ''}`,
      `- migrate-all over ${num(n)} tenants with nothing pending: **${round(migrateAllSeconds)} s**`,
      `- migrate-all of a new migration (an index on each tenant's contacts) over ${num(n)} tenants: **${round(newMigrationSeconds, 1)} s** (${migrateConcurrency} at a time), ${num(applied)} migrated, ${withNew.failed.length} failed; per tenant p50 ${percentile(perTenant, 50)} ms, p99 ${percentile(perTenant, 99)} ms, max ${perTenant.at(-1) ?? 0} ms; slowest ${slowest.map((s) => `${s.slug} ${s.ms} ms`).join(', ')}; report (a JSON line per tenant): ${reportFile}`,
      `- the same again, every tenant done (what a rerun after an interrupted release costs): **${round(rerunSeconds)} s**`,
      '',
      table,
      '',
      `p50 at ${num(n)} tenants (warm) / p50 at 1, in ${rounds} rounds of ${seconds} s each in turn = **${ratio.toFixed(2)}** (target 1.1: ${ratio <= 1.1 ? 'met' : 'NOT met'}); connections never replaced: ${unboundedRatio.toFixed(2)}; cold / 1 in the first minute: ${round(cold.p50ms / one.p50ms).toFixed(2)}`,
      `PostgreSQL memory per web connection at ${num(n)} tenants: **${pgMany ? pgMany.meanMb.toFixed(1) : 'n/a'} MB** (DB_CONNECTION_MAX_SCHEMAS ${process.env.DB_CONNECTION_MAX_SCHEMAS ?? 'default, 1000'}), ${pgUnbounded ? pgUnbounded.meanMb.toFixed(1) : 'n/a'} MB with connections never replaced`,
      '',
    ];
    process.stdout.write(out.join('\n') + '\n');
    await writeResult(
      'tenancy',
      {
        tenants: n,
        concurrency,
        seconds,
        warmupSeconds: warmup,
        provisionConcurrency: Number(values['provision-concurrency']),
        migrateConcurrency,
        queueBackend: process.env.REDIS_URL ? 'redis' : 'postgres',
        loadAverage: { start: loadAtStart, end: loadAtEnd },
        provisionSeconds: round(provisionSeconds),
        provisioned: toProvision.length,
        reused: before ? before + 1 : 0,
        provisionSecondsPerTenant: round(provisionSeconds / Math.max(1, toProvision.length), 3),
        provisionSteps: steps,
        provisioningConnectionMemory: pgProvisioning,
        migrateAllSeconds: round(migrateAllSeconds),
        newMigration: {
          name: benchMigration.name,
          seconds: round(newMigrationSeconds),
          migrated: applied,
          failed: withNew.failed,
          perTenantMs: { p50: percentile(perTenant, 50), p99: percentile(perTenant, 99), max: perTenant.at(-1) ?? 0 },
          slowest,
          reportFile,
          rerunSeconds: round(rerunSeconds),
        },
        one,
        cold,
        many,
        oneAgain,
        rssOne,
        rssMany,
        postgresMemoryPerWebConnection: { one: pgOne, many: pgMany, manyNeverReplaced: pgUnbounded },
        p50Ratio: ratio,
        rounds,
        neverReplaced: { one: unboundedOne, many: unbounded, p50Ratio: unboundedRatio },
      },
      { table, args: argv },
    );
  } finally {
    await stopProcess(web);
    await knex.destroy();
    if (db.embedded?.owned) await db.embedded.stop();
  }
}

/**
 * `--reuse`: the bench database as an earlier run left it (DATABASE_URL's server only). A run
 * that did not finish leaves complete tenants only: each is provisioned in one transaction.
 */
async function existingBenchDatabase(name: string): Promise<{ url: string; embedded?: undefined }> {
  if (!process.env.DATABASE_URL) throw new Error('--reuse needs DATABASE_URL');
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/lectern_bench_${name}`;
  const probe = new pg.Client({ connectionString: url.toString() });
  await probe.connect().catch((err: Error) => {
    throw new Error(`--reuse: no database lectern_bench_${name} to reuse (${err.message})`);
  });
  await probe.end();
  return { url: url.toString() };
}

/** `--reuse` after a run that got as far as the new migration: take it out again, so it is new again. */
async function undoBenchMigration(knex: Knex, concurrency: number): Promise<void> {
  const limit = pLimit(concurrency);
  const schemas = await knex('platform.tenants').pluck('schema_name');
  await Promise.all(
    schemas.map((schema: string) =>
      limit(async () => {
        const { rows } = await knex.raw<{ rows: { done: boolean }[] }>(`select to_regclass(?) is not null as done`, [
          `"${schema}".bench_contacts_created_on`,
        ]);
        if (!rows[0]?.done) return;
        await knex.transaction(async (trx) => {
          await benchMigration.down(trx, schema);
          await trx(`${schema}.knex_migrations`).where({ name: benchMigration.name }).delete();
        });
      }),
    ),
  );
}
