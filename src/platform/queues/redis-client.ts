import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** A connection to REDIS_URL: one Redis, or (REDIS_CLUSTER=on) a Redis Cluster seeded by it. */
export type RedisClient = Redis | Cluster;

/**
 * `fail-fast`: for producers and counters, whose callers have a fallback (the outbox relay, an
 * in-memory count): a command gives up after one reconnect attempt instead of waiting for Redis.
 * `patient`: for consumers (BullMQ workers and event listeners), which BullMQ requires to wait
 * for Redis indefinitely (`maxRetriesPerRequest: null`).
 */
export type RedisRole = 'fail-fast' | 'patient';

/**
 * A client of `url`. On a cluster, `url` is one seed node: the client learns the others (and
 * which node holds which slot) from it, and follows MOVED / ASK redirections itself, so every
 * node gets the same credentials and TLS as the seed.
 */
export function createRedisClient(url: string, cluster: boolean, role: RedisRole): RedisClient {
  const perCommand: RedisOptions =
    role === 'fail-fast' ? { maxRetriesPerRequest: 1, connectTimeout: 2000 } : { maxRetriesPerRequest: null };
  const client = cluster ? clusterClient(url, role, perCommand) : new Redis(url, perCommand);
  // Reported through the failing command (or BullMQ's own error events) instead.
  client.on('error', () => undefined);
  return client;
}

function clusterClient(url: string, role: RedisRole, perCommand: RedisOptions): Cluster {
  const u = new URL(url);
  const cluster = new Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], {
    redisOptions: {
      ...perCommand,
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    },
  });
  if (role === 'fail-fast') {
    // A cluster client holds the commands sent while it is not connected, for as long as that
    // lasts (per-command retries only count once a command reaches a node). A fail-fast caller
    // is answered at once instead, and falls back: commands wait through the first connection
    // only (a few ms, at most connectTimeout), then never. Those that waited for a first
    // connection that failed are answered with the failure rather than kept until Redis is back.
    const settled = () => {
      cluster.options.enableOfflineQueue = false;
    };
    cluster.once('ready', settled);
    cluster.once('close', () => {
      settled();
      // ioredis keeps no public way to answer queued commands; without it they wait for Redis.
      (cluster as unknown as { flushQueue?: (err: Error) => void }).flushQueue?.(new Error('Redis Cluster is not reachable'));
    });
  }
  return cluster;
}

/**
 * Resolves once a cluster client is ready (its map of nodes known), waiting while it makes its
 * first connection (a few ms); rejects at once when it is reconnecting after a failure, or when
 * the attempt under way fails, or after `ms`. A single Redis needs no wait.
 */
export async function whenReady(client: RedisClient, ms = 2000): Promise<void> {
  if (!(client instanceof Cluster) || client.status === 'ready') return;
  if (client.status !== 'connecting' && client.status !== 'connect' && client.status !== 'wait')
    throw new Error(`Redis Cluster is not reachable (${client.status})`);
  await new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onReady = () => done();
    const onClose = () => done(new Error('Redis Cluster is not reachable'));
    const timer = setTimeout(() => done(new Error(`Redis Cluster not ready after ${ms} ms`)), ms);
    client.once('ready', onReady);
    client.once('close', onClose);
  });
}

/** Answers when every node the client talks to (each master of a cluster) answers PING. */
export async function pingAll(client: RedisClient): Promise<void> {
  await whenReady(client, 1500);
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  if (!nodes.length) throw new Error('Redis Cluster has no master');
  const answers = await Promise.all(nodes.map((n) => n.ping()));
  if (answers.some((a) => a !== 'PONG')) throw new Error('redis did not answer PONG');
}

/**
 * Deletes the keys matching `patterns` (SCAN MATCH globs). On a cluster SCAN sees one node's
 * keys, so each master is scanned; keys are deleted one by one (a multi-key DEL must stay in one
 * slot). For tests and benchmarks dropping a queue namespace, not for production paths.
 */
export async function deleteKeys(client: RedisClient, patterns: string[]): Promise<number> {
  await whenReady(client, 5000);
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  let deleted = 0;
  for (const node of nodes) {
    for (const pattern of patterns) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length) {
          const pipeline = node.pipeline();
          for (const key of keys) pipeline.unlink(key);
          await pipeline.exec();
          deleted += keys.length;
        }
      } while (cursor !== '0');
    }
  }
  return deleted;
}
