import { Redis } from 'ioredis';
import type { Config } from '../platform/config.js';
import { ensureEmbeddedDatabase, type EmbeddedDatabase } from '../platform/db/embedded.js';
import { createKnex, type Knex } from '../platform/db/knex.js';
import { OutboxDispatcher } from '../platform/queues/outbox.js';
import { createQueueBackend, type QueueBackend } from '../platform/queues/queues.js';
import { createLogger, type Logger } from '../platform/logger.js';
import { PasswordGuard } from '../modules/users/password-guard.js';
import { LegacyUsageRecorder } from '../kit/rest/usage.js';
import { TenantRegistry } from '../platform/tenancy/registry.js';
import { TenantGate } from '../platform/tenancy/tenant-gate.js';

/** The shared parts of a process (web, worker, CLI, all-in-one): pool, queues, registry, logger. */
export interface Runtime {
  config: Config;
  log: Logger;
  databaseUrl: string;
  knex: Knex;
  registry: TenantRegistry;
  queues: QueueBackend;
  dispatcher: OutboxDispatcher;
  /** Legacy REST call counts (web only; flushed on close). */
  legacyUsage: LegacyUsageRecorder;
  /** Every password check of this process (REST Basic auth, the dashboard, the sign-in pages) goes through it. */
  passwords: PasswordGuard;
  /** How much of the pool one tenant's requests may hold at once (web). */
  gate: TenantGate;
  embedded: EmbeddedDatabase | undefined;
  /** A Redis connection for the web process's own counters (rate limits), made on first use; undefined without REDIS_URL. */
  redis(): Redis | undefined;
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR (reusing a running
 * one found through its state file, or starting it).
 */
export async function resolveDatabase(config: Config, log: Logger, database = 'lectern'): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const embedded = await ensureEmbeddedDatabase(config.dataDir, database, log);
  return { url: embedded.url, embedded };
}

export async function createRuntime(config: Config, name: string, log = createLogger(config, name)): Promise<Runtime> {
  const { url, embedded } = await resolveDatabase(config, log);
  const knex = createKnex(url, { poolMax: config.dbPoolMax, applicationName: `lectern-${name}`, log, queueNamespace: config.queuePrefix });
  const queues = createQueueBackend({ redisUrl: config.redisUrl, databaseUrl: url, prefix: config.queuePrefix, attempts: config.jobAttempts });
  const registry = new TenantRegistry(knex, config.tenantCacheTtlMs);
  const dispatcher = new OutboxDispatcher(knex, queues, log, config.queuePrefix);
  const legacyUsage = new LegacyUsageRecorder(knex, log);
  // Half the pool for one tenant, a quarter for its anonymous WebLink traffic (at least one each).
  const gate = new TenantGate({ perTenant: Math.max(1, Math.floor(config.dbPoolMax / 2)), perTenantWeblink: Math.max(1, Math.floor(config.dbPoolMax / 4)), maxWaiting: 200, maxWaitMs: 10_000 });
  const passwords = new PasswordGuard(knex, { concurrency: config.passwordCheckConcurrency, queue: config.passwordCheckQueue, addressFreeFailures: config.passwordFailuresPerAddress });
  let closed = false;
  let redis: Redis | undefined;
  return {
    config,
    log,
    databaseUrl: url,
    knex,
    registry,
    queues,
    dispatcher,
    legacyUsage,
    passwords,
    gate,
    embedded,
    redis() {
      if (!config.redisUrl || closed) return undefined;
      if (!redis) {
        // Commands wait for the connection, but give up after one reconnect attempt when Redis
        // is away, so callers fall back (the rate limiter counts in memory meanwhile).
        redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
        redis.on('error', () => undefined);
      }
      return redis;
    },
    async close() {
      if (closed) return;
      closed = true;
      redis?.disconnect();
      await legacyUsage.stop();
      await dispatcher.drain();
      await queues.close();
      await knex.destroy();
      if (embedded?.owned) await embedded.stop();
    },
  };
}
