import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { ensureEmbeddedDatabase, type EmbeddedDatabase } from './db/embedded.js';
import { createKnex, type Knex } from './db/knex.js';
import { OutboxDispatcher } from './queues/outbox.js';
import { createQueueBackend, type QueueBackend } from './queues/queues.js';
import { createLogger, type Logger } from './logger.js';
import { TenantRegistry } from './tenancy/registry.js';
import { TenantGate } from './tenancy/tenant-gate.js';

/**
 * The parts of a process (web, worker, CLI, all-in-one) that everything above the platform runs
 * on: pool, queues, registry, logger, the outbox dispatcher, the tenant gate.
 */
export interface PlatformRuntime {
  config: Config;
  log: Logger;
  databaseUrl: string;
  knex: Knex;
  registry: TenantRegistry;
  queues: QueueBackend;
  dispatcher: OutboxDispatcher;
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

export async function createPlatformRuntime(config: Config, name: string, log = createLogger(config, name)): Promise<PlatformRuntime> {
  const { url, embedded } = await resolveDatabase(config, log);
  const knex = createKnex(url, { poolMax: config.dbPoolMax, applicationName: `lectern-${name}`, log, queueNamespace: config.queuePrefix });
  const queues = createQueueBackend({ redisUrl: config.redisUrl, databaseUrl: url, prefix: config.queuePrefix, attempts: config.jobAttempts });
  const registry = new TenantRegistry(knex, config.tenantCacheTtlMs);
  const dispatcher = new OutboxDispatcher(knex, queues, log, config.queuePrefix);
  // Half the pool for one tenant, a quarter for its anonymous WebLink traffic (at least one each).
  const gate = new TenantGate({ perTenant: Math.max(1, Math.floor(config.dbPoolMax / 2)), perTenantWeblink: Math.max(1, Math.floor(config.dbPoolMax / 4)), maxWaiting: 200, maxWaitMs: 10_000 });
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
      await dispatcher.drain();
      await queues.close();
      await knex.destroy();
      if (embedded?.owned) await embedded.stop();
    },
  };
}
