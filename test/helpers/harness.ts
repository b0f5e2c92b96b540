import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { createApp, type AppOptions } from '../../src/app/web.js';
import { loadConfig, type Config } from '../../src/platform/config.js';
import { startHttpServer } from '../../src/kit/http/server.js';
import { createRuntime, type Runtime } from '../../src/app/runtime.js';
import { createTenant, dropTenant } from '../../src/platform/tenancy/provision.js';
import { freePort } from '../../src/platform/util/net.js';
import { namespaceKeyPatterns } from '../../src/platform/queues/queues.js';
import { createRedisClient, deleteKeys } from '../../src/platform/queues/redis-client.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import type { Knex } from 'knex';

/**
 * Test harness. Each test file gets its own tenants (random slugs) and its own queue namespace
 * (QUEUE_PREFIX), so ava's parallel processes never see each other's data or jobs. The database
 * and Redis come from DATABASE_URL / REDIS_URL, which `npm test` sets (embedded default when unset).
 */

export const ROOT = path.resolve(import.meta.dirname, '../..');

export const hex = (n = 4) => crypto.randomBytes(n).toString('hex');

/**
 * Polls `check` until it holds, for at most `ms`; how long it took, or undefined when it never
 * held. For what takes effect "within" a time: a change to users or tokens reaches every web
 * process's caches through the database's notifications, moments after it commits.
 */
export async function within(ms: number, check: () => Promise<boolean>): Promise<number | undefined> {
  const start = Date.now();
  do {
    if (await check()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 20));
  } while (Date.now() - start < ms);
  return undefined;
}

export function testConfig(extra: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    ...process.env,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    QUEUE_PREFIX: `t${hex()}`,
    PORT: '0',
    HOST: '127.0.0.1',
    OUTBOX_SWEEP_MS: '200',
    WORKER_CONCURRENCY: '4',
    // Every test file sends from 127.0.0.1 into one shared count per address: the per-address
    // slow-down is tested on its own (test/http/password-guard.test.ts), not tripped by the suite.
    PASSWORD_FAILURES_PER_ADDRESS: '1000000',
    ...extra,
  });
}

export interface TestContext {
  rt: Runtime;
  tenants: Tenant[];
  freshTenant(label?: string): Promise<Tenant>;
  /** Drops the tenants, the queue namespace and closes the runtime. */
  cleanup(): Promise<void>;
}

/** `name`: the runtime's name, which its database connections carry as `lectern-<name>` (application_name). */
export async function setupTestRuntime(extra: Record<string, string | undefined> = {}, name = 'test'): Promise<TestContext> {
  // The port the app will listen on is known up front, so the addresses it gives out (the OAuth
  // issuer, tenant URLs) are the ones the tests call.
  const config = testConfig({ PORT: String(await freePort()), ...extra });
  const rt = await createRuntime(config, name);
  const tenants: Tenant[] = [];
  return {
    rt,
    tenants,
    async freshTenant(label = 't') {
      const tenant = await createTenant(rt.knex, { slug: `t-${label}-${hex(3)}`, name: `Test ${label}` });
      tenants.push(tenant);
      return tenant;
    },
    async cleanup() {
      for (const t of tenants) await dropTenant(rt.knex, t.slug).catch(() => undefined);
      await rt.close();
      await dropQueueNamespace(config);
    },
  };
}

/** Removes a test file's queues: its Redis keys (every shard, every cluster master), or its BullMQ PostgreSQL schema. */
export async function dropQueueNamespace(config: Config): Promise<void> {
  if (config.redisUrl) {
    const redis = createRedisClient(config.redisUrl, config.redisCluster, 'fail-fast');
    try {
      await deleteKeys(redis, namespaceKeyPatterns(config.queuePrefix));
    } finally {
      redis.disconnect();
    }
  } else {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`drop schema if exists ${client.escapeIdentifier(`bullmq_${config.queuePrefix}`)} cascade`).catch(() => undefined);
    await client.end();
  }
}

export async function startTestApp(rt: Runtime, options: AppOptions = {}): Promise<{ port: number; close(): Promise<void> }> {
  const server = await startHttpServer(createApp(rt, options), rt.config.port, '127.0.0.1');
  return { port: server.port, close: () => server.close(1000) };
}

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field in tests
  json: any;
}

/**
 * Two web apps side by side, one in development and one in production (`NODE_ENV`), for what
 * only development serves (GraphiQL, the landing page's instance list): their runtimes and ports,
 * and one close for both.
 */
export async function developmentAndProductionApps(): Promise<{
  dev: TestContext;
  prod: TestContext;
  port: number;
  prodPort: number;
  close(): Promise<void>;
}> {
  const dev = await setupTestRuntime();
  const app = await startTestApp(dev.rt);
  const prod = await setupTestRuntime({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32) });
  const prodApp = await startTestApp(prod.rt);
  return {
    dev,
    prod,
    port: app.port,
    prodPort: prodApp.port,
    async close() {
      await app.close();
      await prodApp.close();
      await dev.cleanup();
      await prod.cleanup();
    },
  };
}

/** Inserts one row into `table` (a tenant transaction's `k`) and answers its id: test fixtures. */
export async function insertedId(k: Knex, table: string, row: Record<string, unknown>): Promise<number> {
  return ((await k(table).insert(row).returning('id')) as { id: number }[])[0]!.id;
}

/**
 * A real HTTP request with an explicit Host header (how tenants are addressed). `from`: the local
 * address to send from (any of 127.0.0.0/8), for tests of what is counted per client address.
 */
export function request(
  port: number,
  opts: {
    method?: string;
    path?: string;
    host?: string;
    headers?: Record<string, string>;
    body?: unknown;
    rawBody?: string | Buffer;
    from?: string;
  },
): Promise<HttpResult> {
  const body = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const headers: Record<string, string> = {
    host: opts.host ?? `localhost:${port}`,
    ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...opts.headers,
  };
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: opts.method ?? 'GET',
        path: opts.path ?? '/',
        headers,
        ...(opts.from ? { localAddress: opts.from } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 20000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface ProcResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts a TypeScript entry point (`src/cli/main.ts`, `src/web.ts`...) as a real child process.
 * `ownGroup`: in a process group of its own, as a shell runs a foreground command, so
 * `process.kill(-child.pid, 'SIGINT')` is what a terminal's Ctrl-C does (it reaches every
 * process of the group, the children the entry point started included).
 */
export function spawnTs(script: string, args: string[], env: Record<string, string | undefined>, opts: { ownGroup?: boolean } = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.ownGroup ?? false,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<ProcResult>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, output: () => ({ stdout, stderr }) };
}

export function runTs(script: string, args: string[], env: Record<string, string | undefined> = {}): Promise<ProcResult> {
  return spawnTs(script, args, env).done;
}
