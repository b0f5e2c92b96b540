import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/**
 * Every benchmark ends by printing its table (the format of docs/benchmarks.md) and writing the same figures
 * as JSON under `bench/results/<name>-<UTC timestamp>.json`, with what the machine was (cores,
 * CPU model, memory, load average, Node, PostgreSQL's version when known, the git commit and
 * whether the working tree had changes), so runs on other machines or of other commits can be
 * compared. Returns the file's path (printed too).
 *
 * The files are meant to be committed (runs stay comparable across commits); nothing but this
 * function writes in `bench/results/`. With `BENCH_RESULT_LOG` set (`npm run bench -- all` sets
 * it for each benchmark it runs), the file's path is also appended to that file, one a line.
 */
export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

export async function writeResult(
  bench: string,
  figures: Record<string, unknown>,
  opts: { table?: string; args?: string[] } = {},
): Promise<string> {
  // The name becomes a file name in bench/results: nothing that could point elsewhere.
  if (!/^[a-z][a-z0-9-]*$/.test(bench)) throw new Error(`bench name ${JSON.stringify(bench)} is not [a-z][a-z0-9-]*`);
  const at = new Date();
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${bench}-${at.toISOString().replace(/[:.]/g, '-')}.json`);
  const doc = {
    bench,
    at: at.toISOString(),
    args: opts.args ?? [],
    machine: { ...machine(), postgres: await postgresVersion() },
    figures,
    table: opts.table,
  };
  // `wx`: never overwrite another run's file.
  await writeFile(file, JSON.stringify(doc, null, 2) + '\n', { flag: 'wx' });
  process.stdout.write(`results written to ${path.relative(process.cwd(), file)}\n`);
  if (process.env.BENCH_RESULT_LOG) await appendFile(process.env.BENCH_RESULT_LOG, file + '\n');
  return file;
}

function machine() {
  const cpus = os.cpus();
  return {
    cores: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    // 1, 5 and 15 minutes, as the run ends: a high figure says something else shared the machine.
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    ...git(),
  };
}

function git(): { commit?: string; dirty?: boolean } {
  const run = (args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    // dirty: the figures are of the commit plus uncommitted changes.
    return { commit: run(['rev-parse', '--short', 'HEAD']), dirty: run(['status', '--porcelain', '--untracked-files=no']) !== '' };
  } catch {
    return {};
  }
}

/** The server version of DATABASE_URL's PostgreSQL, when set and answering within 2 s. */
async function postgresVersion(): Promise<string | undefined> {
  if (!process.env.DATABASE_URL) return undefined;
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 2000, query_timeout: 2000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    return rows[0]?.server_version;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}
