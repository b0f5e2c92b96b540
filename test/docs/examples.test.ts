import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { freePort } from '../../src/platform/util/net.js';
import { answerPattern, docFiles, parseDoc, printed, type DocPage, type DocStep } from '../helpers/doc-examples.js';
import { hex, request, ROOT, spawnTs, waitFor } from '../helpers/harness.js';

/**
 * The docs cannot drift (issue 26): every example command of README.md and docs/*.md runs, as a
 * newcomer would type it, against `npm start` on its embedded default (a fresh data folder, the
 * demo seeded), page after page in the README's reading order on the one instance, and what each
 * prints is compared with the answer the docs show under it (`# => ...`). CI runs the pages in
 * reading order and in reverse order, so a page that needs another page's leftovers (an id it did
 * not look up, a record it did not make) fails in one of the two.
 *
 * Each page runs in one bash, so a page's variables (`B`, `TOKEN`, `gql`) carry from block to
 * block. The ports the docs name are ports of the test's choosing: Lectern's 3000, and the 4000 of
 * the webhook receiver the webhooks walk-through starts.
 */
const dataDir = path.join(ROOT, '.lectern', `docs-test-${hex()}`);
let port: number;
let receiverPort: number;
let server: ReturnType<typeof spawnTs> | undefined;

const queuePrefix = `d${hex()}`;
/** The server's environment, and every page's shell's: the CLI's jobs go to the queues the server's worker reads. */
const env = () => ({
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  REDIS_URL: '',
  QUEUE_PREFIX: queuePrefix,
  PORT: String(port),
  NODE_ENV: 'development',
  LOG_LEVEL: 'warn',
});

test.before(async () => {
  port = await freePort();
  receiverPort = await freePort();
  server = spawnTs('src/start.ts', [], env(), { ownGroup: true });
  await waitFor(
    async () => (await request(port, { path: '/healthz' }).catch(() => undefined))?.status === 200,
    'npm start to answer',
    90000,
    250,
  );
});

test.after.always(async () => {
  if (server?.child.pid) {
    try {
      process.kill(-server.child.pid, 'SIGINT');
    } catch {
      // already gone
    }
    await server.done;
  }
  await fs.rm(dataDir, { recursive: true, force: true });
});

// The mark each command's end prints: its index and exit status between ASCII record separators,
// a control character no answer holds.
// eslint-disable-next-line no-control-regex
const STEP_END = /\n?\x1e(\d+) (\d+)\x1e\n/;
const PAGE_TIMEOUT_MS = 240_000;

interface StepResult {
  step: DocStep;
  status?: number;
  output: string;
}

/** The command with the test's ports for the docs' 3000 (Lectern) and 4000 (the webhook receiver). */
function ownPorts(command: string): string {
  return command
    .replaceAll('localhost:3000', `localhost:${port}`)
    .replaceAll('127.0.0.1:4000', `127.0.0.1:${receiverPort}`)
    .replaceAll('listen(4000,', `listen(${receiverPort},`);
}

/** Runs a page's steps in one bash (its own process group, so what a step leaves running is stopped after). */
async function runPage(page: DocPage): Promise<StepResult[]> {
  const own = new RegExp(`localhost:${port}`, 'g');
  const script = ['exec 2>&1', ...page.steps.flatMap((s, i) => [ownPorts(s.command), `printf '\\n\\036%s %s\\036\\n' ${i} "$?"`])].join(
    '\n',
  );
  const child = spawn('bash', ['-c', script], {
    cwd: ROOT,
    env: { ...process.env, ...env() },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), PAGE_TIMEOUT_MS);
  await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // nothing left running
  }
  const results: StepResult[] = [];
  let rest = out;
  for (const [i, step] of page.steps.entries()) {
    const m = STEP_END.exec(rest);
    // A mark of another step (a command that ate the next one's mark) is a step that did not finish.
    if (!m || Number(m[1]) !== i) {
      results.push({ step, output: rest.replace(own, 'localhost:3000') });
      break;
    }
    results.push({ step, status: Number(m[2]), output: rest.slice(0, m.index).replace(own, 'localhost:3000') });
    rest = rest.slice(m.index + m[0].length);
  }
  return results;
}

// In the README's reading order; DOCS_ORDER=reverse runs them the other way round (CI does both), so a
// page that used what a page before it made, or that a page after it relies on, fails one of the two.
const files = process.env.DOCS_ORDER === 'reverse' ? docFiles(ROOT).reverse() : docFiles(ROOT);
const pages = files.map((f) => parseDoc(f, readFileSync(path.join(ROOT, f), 'utf8')));

test.serial('the docs have example commands, and each one that is not run says why', (t) => {
  const steps = pages.flatMap((p) => p.steps);
  t.true(steps.length >= 100, `${steps.length} example commands`);
  t.true(steps.filter((s) => s.expected !== undefined).length >= 80, 'most show their answer');
  for (const p of pages) for (const n of p.notRun) t.regex(n.reason, /\w{3,}/, `${p.file}:${n.line}`);
});

for (const page of pages.filter((p) => p.steps.length > 0)) {
  test.serial(`the example commands of ${page.file} print what the page shows`, async (t) => {
    t.timeout(PAGE_TIMEOUT_MS + 30_000);
    const results = await runPage(page);
    const failures: string[] = [];
    for (const r of results) {
      const where = `${r.step.file}:${r.step.line}`;
      const shown = printed(r.output);
      if (r.status === undefined)
        failures.push(`${where}: did not finish within the page's time\n  $ ${r.step.command}\n  printed: ${shown}`);
      else if (r.status !== 0) failures.push(`${where}: exit status ${r.status}\n  $ ${r.step.command}\n  printed: ${shown}`);
      else if (r.step.expected !== undefined && !answerPattern(r.step.expected).test(shown))
        failures.push(`${where}: printed something else\n  $ ${r.step.command}\n  expected: ${r.step.expected}\n  printed:  ${shown}`);
    }
    t.is(results.length, page.steps.length, 'every command ran');
    t.deepEqual(failures, []);
  });
}
