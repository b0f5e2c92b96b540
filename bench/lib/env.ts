import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { ensureEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/db/embedded.js';
import { createLogger } from '../../src/platform/logger.js';

/** `url` with its database name replaced by `database`'s. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * The bench database's DATABASE_DIRECT_URL for a process given `databaseUrl`: the bench's own
 * DATABASE_DIRECT_URL (straight to PostgreSQL, when DATABASE_URL goes through a pooler such as
 * PgBouncer) with that database's name; undefined when the bench has none.
 */
export function directUrlFor(databaseUrl: string): string | undefined {
  const direct = process.env.DATABASE_DIRECT_URL;
  return direct ? withDatabase(direct, new URL(databaseUrl).pathname.slice(1)) : undefined;
}

/**
 * A fresh database of the bench's own (`lectern_bench_<name>`) on DATABASE_URL's server, or on
 * the embedded PostgreSQL when DATABASE_URL is unset. Dropped and recreated on each run. `url`
 * goes the way DATABASE_URL goes (through a pooler, if it does); `directUrl` is the same
 * database through DATABASE_DIRECT_URL (else `url`).
 */
export async function benchDatabase(name: string): Promise<{ url: string; directUrl: string; embedded?: EmbeddedDatabase }> {
  const database = `lectern_bench_${name}`;
  let adminUrl = process.env.DATABASE_URL;
  let embedded: EmbeddedDatabase | undefined;
  if (!adminUrl) {
    embedded = await ensureEmbeddedDatabase(
      path.resolve(process.env.DATA_DIR || '.lectern'),
      'postgres',
      createLogger({ logLevel: 'warn' }, 'bench', 2),
    );
    adminUrl = embedded.url;
  }
  const url = withDatabase(adminUrl, database);
  const directUrl = (!embedded && directUrlFor(url)) || url;
  // Straight to PostgreSQL: a pooler would keep server connections to the old database open.
  const admin = new pg.Client({ connectionString: (!embedded && process.env.DATABASE_DIRECT_URL) || adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.query(`create database ${database}`);
  await admin.end();
  return { url, directUrl, ...(embedded ? { embedded } : {}) };
}

export { freePort } from '../../src/platform/util/net.js';

/** Production mode wants a session key shared by web processes; benches use a fixed one. */
export const BENCH_SESSION_SECRET = 'bench-session-secret-0123456789abcdef';

/**
 * Starts a compiled Lectern entry point (`dist/src/web.js`...) as its own process, as in
 * production, and waits for /healthz. bench/run.ts builds first.
 */
export async function startProcess(script: string, env: Record<string, string | undefined>, port?: number): Promise<ChildProcess> {
  // BENCH_PROFILE=<dir>: the process writes a CPU profile there when it exits (open it in Chrome's DevTools).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  // The bench's own DATABASE_DIRECT_URL names its database, not the bench database the process gets.
  const direct = env.DATABASE_URL && !('DATABASE_DIRECT_URL' in env) ? { DATABASE_DIRECT_URL: directUrlFor(env.DATABASE_URL) } : {};
  const child = spawn(process.execPath, [...profile, script], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      PUBLIC_SCHEME: 'http',
      SESSION_SECRET: BENCH_SESSION_SECRET,
      ...direct,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (port) {
    for (let i = 0; i < 150; i++) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return child;
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill('SIGKILL');
    throw new Error(`${script} did not answer /healthz`);
  }
  return child;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Starts a bench helper server (a TypeScript file, through tsx) on a free port; it reads PORT and `env`. */
export async function startHelper(script: string, env: Record<string, string>): Promise<{ port: number; proc: ChildProcess }> {
  const { freePort: free } = await import('../../src/platform/util/net.js');
  const port = await free();
  const proc = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { port, proc };
}
