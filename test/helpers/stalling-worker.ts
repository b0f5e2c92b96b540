import { loadConfig } from '../../src/platform/config.js';
import { createQueueBackend } from '../../src/platform/queues/queues.js';

/**
 * A worker process that takes one job of the `orders` queue and never finishes it: it stands for
 * a worker killed in the middle of a job (the test SIGKILLs it). Prints `active <job id>` when it
 * holds a job. Uses the same queue store and namespace as the test (DATABASE_URL, REDIS_URL,
 * REDIS_CLUSTER, QUEUE_SHARDS, QUEUE_PREFIX); its lock lasts WORKER_LOCK_MS.
 */
const config = loadConfig();
const queues = createQueueBackend({
  redisUrl: config.redisUrl,
  redisCluster: config.redisCluster,
  shards: config.queueShards,
  databaseUrl: config.databaseDirectUrl ?? config.databaseUrl!,
  prefix: config.queuePrefix,
  attempts: config.jobAttempts,
});
// One worker per shard: the order's job is on its tenant's shard, and the test places one order.
queues.workers(
  'orders',
  (job) => {
    process.stdout.write(`active ${job.id}\n`);
    return new Promise(() => undefined);
  },
  { concurrency: 1, lockDuration: config.workerLockMs },
);
