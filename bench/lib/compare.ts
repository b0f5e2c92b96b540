import type { ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createKnex, type Knex } from '../../src/platform/db/knex.js';
import { migratePlatform } from '../../src/platform/tenancy/migrate.js';
import { createTenant } from '../../src/platform/tenancy/provision.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { benchDatabase } from './env.js';
import { cpuMs, round, rssMb, runLoad, summarise, type LoadResult } from './load.js';

/**
 * Runs requests side by side: the same request types against several servers, or several
 * requests against one. This machine's speed drifts over tens of seconds, so each comparison
 * runs in rounds that take the sides in turn (rotating who goes first), and the rounds are
 * summed; server CPU per request comes from /proc. The first side's peak RSS is sampled (it is
 * the one the bench is about).
 */
export interface BenchServer<Name extends string> {
  name: Name;
  port: number;
  proc: ChildProcess;
}

export interface Outcome extends LoadResult {
  cpuMsPerRequest: number;
}

/** One side of a comparison: a server and the request it is sent (several variants may share a server). */
export interface Variant<Name extends string> extends BenchServer<Name> {
  next: Parameters<typeof runLoad>[0]['next'];
}

/**
 * Runs each variant in turn, in rounds that rotate who goes first, after a warm-up of each; the
 * rounds are summed. The first variant's server has its peak RSS sampled.
 */
export async function compareVariants<Name extends string>(
  variants: Variant<Name>[],
  opts: { seconds: number; rounds: number; concurrency: number },
): Promise<{ results: Record<Name, Outcome>; peakRssMb: number }> {
  let peakRss = 0;
  const acc = new Map(variants.map((v) => [v.name, { latencies: [] as number[], errors: 0, seconds: 0, cpu: 0 }]));
  for (const v of variants) await runLoad({ port: v.port, concurrency: opts.concurrency, seconds: 2, next: v.next });
  for (let r = 0; r < opts.rounds; r++) {
    for (const v of [...variants.slice(r % variants.length), ...variants.slice(0, r % variants.length)]) {
      const a = acc.get(v.name)!;
      const sampler =
        v.proc === variants[0]!.proc
          ? setInterval(() => void rssMb(v.proc.pid!).then((m) => (peakRss = Math.max(peakRss, m))), 250)
          : undefined;
      const cpuBefore = await cpuMs(v.proc.pid!);
      const res = await runLoad({
        port: v.port,
        concurrency: opts.concurrency,
        seconds: opts.seconds / opts.rounds,
        next: v.next,
        latencies: a.latencies,
      });
      a.cpu += (await cpuMs(v.proc.pid!)) - cpuBefore;
      clearInterval(sampler);
      a.errors += res.errors;
      a.seconds += res.seconds;
    }
  }
  const results = Object.fromEntries(
    [...acc].map(([name, a]) => [
      name,
      { ...summarise(a.latencies, a.errors, a.seconds), cpuMsPerRequest: round(a.cpu / Math.max(1, a.latencies.length), 3) },
    ]),
  ) as Record<Name, Outcome>;
  return { results, peakRssMb: peakRss };
}

/** The same request types against several servers, side by side ({@link compareVariants} per request type). */
export async function compareServers<Name extends string>(
  servers: BenchServer<Name>[],
  scenarios: Record<string, Parameters<typeof runLoad>[0]['next']>,
  opts: { seconds: number; rounds: number; concurrency: number },
): Promise<{ results: Record<string, Record<Name, Outcome>>; peakRssMb: number }> {
  const results: Record<string, Record<Name, Outcome>> = {};
  let peakRss = 0;
  for (const [scenario, next] of Object.entries(scenarios)) {
    process.stderr.write(
      `${scenario}: ${opts.rounds} rounds of ${round(opts.seconds / opts.rounds, 1)}s per server, concurrency ${opts.concurrency}\n`,
    );
    const compared = await compareVariants(
      servers.map((s) => ({ ...s, next })),
      opts,
    );
    results[scenario] = compared.results;
    peakRss = Math.max(peakRss, compared.peakRssMb);
  }
  return { results, peakRssMb: peakRss };
}

/** `req/s / p50 ms / p99 ms / CPU ms per request` of one server: one cell of the tables of docs/benchmarks.md. */
export const cell = (o: Outcome) =>
  `${Math.round(o.rps)} / ${o.p50ms.toFixed(1)} / ${o.p99ms.toFixed(1)} / ${o.cpuMsPerRequest.toFixed(2)}`;

/** `--seconds 12 --rounds 3 --concurrency 16`, the flags of the side-by-side benches. */
export function compareArgs(argv: string[]): { seconds: number; rounds: number; concurrency: number } {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '12' },
      rounds: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '16' },
    },
  });
  return { seconds: Number(values.seconds), rounds: Number(values.rounds), concurrency: Number(values.concurrency) };
}

/**
 * Statistics for what a bench has just seeded, as a database in service has them (autovacuum
 * analyzes a table only a minute or more after it changed): without them PostgreSQL plans the
 * first minute's statements on guesses (1 to 3 rows for tables of 200), and a join that an index
 * would answer runs as nested loops over whole tables. The WebLink bench runs it: both its sides
 * are Lectern. The GraphQL bench does not: with statistics its hand-written statements chose
 * plans that took the SDK statement from 436 to 235 requests a second (and the people pages' down
 * too) while Lectern's SDK page stayed put (212 and 203), which would flatter Lectern's rows. The
 * REST bench does not either: not measured there, and left as it was so that its rows compare
 * with earlier runs.
 */
export async function analyzeSeeded(knex: Knex): Promise<void> {
  await knex.raw('analyze');
}

/** A fresh bench database (`lectern_bench_<name>`) with its platform schema and one tenant, `bench`. */
export async function benchTenant(name: string): Promise<{ db: Awaited<ReturnType<typeof benchDatabase>>; knex: Knex; tenant: Tenant }> {
  const db = await benchDatabase(name);
  const knex = createKnex(db.url, { poolMax: 4, applicationName: `bench-${name}` });
  await migratePlatform(knex);
  return { db, knex, tenant: await createTenant(knex, { slug: 'bench', name: 'Bench' }) };
}
