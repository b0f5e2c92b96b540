import { createQueueBackend } from '../../src/platform/queues/queues.js';

/**
 * A worker process that completes jobs of the `noop` queue doing nothing: BullMQ's own rate on
 * the same store, with the same process count, concurrency and lock settings as Lectern's
 * workers, for `npm run bench -- orders` to compare with.
 */
const queues = createQueueBackend({ redisUrl: process.env.REDIS_URL || undefined, databaseUrl: process.env.DATABASE_URL!, prefix: process.env.QUEUE_PREFIX! });
// The noop queue is not one of Lectern's; the backend's worker factory is typed for those.
const worker = queues.worker('noop' as 'orders', async () => undefined, { concurrency: Number(process.env.WORKER_CONCURRENCY ?? 5), lockDuration: 30000 });
process.on('SIGTERM', () => void worker.close().then(() => queues.close()).then(() => process.exit(0)));
