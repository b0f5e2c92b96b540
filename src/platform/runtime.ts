import type { Config } from './config.js';
import { ensureEmbeddedDatabase, type EmbeddedDatabase } from './db/embedded.js';
import { createKnex, type Knex } from './db/knex.js';
import { OutboxDispatcher } from './queues/outbox.js';
import { createQueueBackend, type QueueBackend } from './queues/queues.js';
import { createRedisClient, type RedisClient } from './queues/redis-client.js';
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
  /**
   * The same database on a connection of its own, for what needs a session (LISTEN, BullMQ's
   * PostgreSQL backend): DATABASE_DIRECT_URL when DATABASE_URL goes through a pooler in
   * transaction mode, else the same as {@link databaseUrl}.
   */
  directDatabaseUrl: string;
  knex: Knex;
  registry: TenantRegistry;
  queues: QueueBackend;
  dispatcher: OutboxDispatcher;
  /** How much of the pool one tenant's requests may hold at once (web). */
  gate: TenantGate;
  embedded: EmbeddedDatabase | undefined;
  /**
   * A Redis connection for the web process's own counters (rate limits), made on first use;
   * undefined without REDIS_URL. A cluster client with REDIS_CLUSTER=on (a plain client would be
   * answered MOVED for every key on another node).
   */
  redis(): RedisClient | undefined;
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR (reusing a running
 * one found through its state file, or starting it).
 */
export async function resolveDatabase(
  config: Config,
  log: Logger,
  database = 'lectern',
): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const embedded = await ensureEmbeddedDatabase(config.dataDir, database, log);
  return { url: embedded.url, embedded };
}

export async function createPlatformRuntime(config: Config, name: string, log = createLogger(config, name)): Promise<PlatformRuntime> {
  const { url, embedded } = await resolveDatabase(config, log);
  // The embedded PostgreSQL has no pooler in front: a direct URL is only DATABASE_URL's partner.
  const directUrl = (config.databaseUrl && config.databaseDirectUrl) || url;
  const knex = createKnex(url, {
    poolMax: config.dbPoolMax,
    applicationName: `lectern-${name}`,
    log,
    queueNamespace: config.queuePrefix,
    maxSchemasPerConnection: config.dbConnectionMaxSchemas,
    maxConnectionAgeMs: config.dbConnectionMaxAgeMs,
  });
  // Its PostgreSQL backend LISTENs, and pins search_path with a startup option (`-c`), on
  // connections it keeps: sessions a pooler in transaction mode does not give.
  const queues = createQueueBackend({
    redisUrl: config.redisUrl,
    redisCluster: config.redisCluster,
    shards: config.queueShards,
    databaseUrl: directUrl,
    prefix: config.queuePrefix,
    attempts: config.jobAttempts,
  });
  const registry = new TenantRegistry(knex, config.tenantCacheTtlMs);
  const dispatcher = new OutboxDispatcher(knex, queues, log, config.queuePrefix);
  // Half the pool for one tenant, a quarter for its anonymous WebLink traffic (at least one each).
  const gate = new TenantGate({
    perTenant: Math.max(1, Math.floor(config.dbPoolMax / 2)),
    perTenantWeblink: Math.max(1, Math.floor(config.dbPoolMax / 4)),
    maxWaiting: 200,
    maxWaitMs: 10_000,
  });
  let closed = false;
  let redis: RedisClient | undefined;
  return {
    config,
    log,
    databaseUrl: url,
    directDatabaseUrl: directUrl,
    knex,
    registry,
    queues,
    dispatcher,
    gate,
    embedded,
    redis() {
      if (!config.redisUrl || closed) return undefined;
      if (!redis) {
        // Commands give up after one reconnect attempt when Redis is away (on a cluster, at once
        // while it reconnects), so callers fall back (the rate limiter counts in memory meanwhile).
        redis = createRedisClient(config.redisUrl, config.redisCluster, 'fail-fast');
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
