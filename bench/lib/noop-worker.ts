import { Agent, request } from 'undici';
import { createQueueBackend } from '../../src/platform/queues/queues.js';

/**
 * A worker process that completes jobs of the `noop` queue doing nothing: BullMQ's own rate on
 * the same store (REDIS_URL, REDIS_CLUSTER, QUEUE_SHARDS), with the same process count,
 * concurrency and lock settings as Lectern's workers, for `npm run bench -- orders` to compare with.
 * With NOOP_POST (JSON `{ url, body, headers }`), each job POSTs that body and reads the answer,
 * nothing else: the least a delivery job can do (`npm run bench -- webhooks`).
 */
const post = process.env.NOOP_POST
  ? (JSON.parse(process.env.NOOP_POST) as { url: string; body: string; headers: Record<string, string> })
  : undefined;
const agent = new Agent({ connections: Number(process.env.WORKER_CONCURRENCY ?? 5) });
const job = post
  ? async () => {
      const res = await request(post.url, { method: 'POST', body: post.body, headers: post.headers, dispatcher: agent });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`the receiver answered ${res.statusCode}`);
    }
  : async () => undefined;
const queues = createQueueBackend({
  redisUrl: process.env.REDIS_URL || undefined,
  redisCluster: process.env.REDIS_CLUSTER === 'on',
  shards: Number(process.env.QUEUE_SHARDS || 1),
  databaseUrl: process.env.DATABASE_URL!,
  prefix: process.env.QUEUE_PREFIX!,
});
// The noop queue is not one of Lectern's; the backend's worker factory is typed for those. One
// worker per shard, as Lectern's worker processes run.
const workers = queues.workers('noop' as 'orders', job, {
  concurrency: Number(process.env.WORKER_CONCURRENCY ?? 5),
  lockDuration: 30000,
});
process.on(
  'SIGTERM',
  () =>
    void Promise.all(workers.map((w) => w.close()))
      .then(() => queues.close())
      .then(() => process.exit(0)),
);
