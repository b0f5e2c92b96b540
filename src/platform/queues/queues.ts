import { Queue, QueueEvents, Worker, createPostgresBackend, withBackend, type DefaultJobOptions, type Job, type WorkerOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { withTimeout } from '../util/net.js';

/**
 * The queues shared by web (producer) and workers (consumers), and the typed payload of each
 * job kind. Payloads carry ids only, never personal data: a job is a pointer to rows that the
 * processor reads inside its tenant's transaction.
 */
export interface JobPayloads {
  /** Recompute a tenant's headline counters into the platform registry. */
  'tenant-stats': { tenantId: number };
  /** Turn an order (opportunity) into a registration with its delegates, then its invoice and payment. */
  orders: { tenantId: number; orderId: number };
  /**
   * Before orders were one job, invoicing had a queue of its own. Workers still drain it (with
   * the order processor, which skips the registration already made), so an order queued there
   * before an upgrade is finished; nothing adds to it any more.
   */
  invoices: { tenantId: number; orderId: number };
  /** Work through a background job of a course template (re-applying it to its events), batch by batch. */
  'course-templates': { tenantId: number; backgroundJobId: number };
}

export type QueueName = keyof JobPayloads;
export const QUEUE_NAMES: readonly QueueName[] = ['tenant-stats', 'orders', 'invoices', 'course-templates'];

/** How often a job runs before it fails for good (JOB_ATTEMPTS), unless the queue backend is told otherwise. */
export const DEFAULT_ATTEMPTS = 8;

export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: DEFAULT_ATTEMPTS,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 5000 },
  removeOnFail: { age: 14 * 24 * 3600 },
};

/** `token` is the worker's lock on the job (for `job.moveToDelayed`). */
export type Processor<Q extends QueueName> = (job: Job<JobPayloads[Q]>, token?: string) => Promise<unknown>;

export interface QueueBackendOptions {
  /** Redis for production; without it BullMQ runs on its PostgreSQL backend in `databaseUrl`. */
  redisUrl: string | undefined;
  databaseUrl: string;
  /** Namespaces every queue: a Redis key prefix, or a PostgreSQL schema. */
  prefix: string;
  /**
   * How often a job may run before it fails for good (JOB_ATTEMPTS): a job that fails is
   * retried with backoff up to this many attempts, and a job whose worker died holding it
   * (stalled) is given out again as often, rather than failed on its second stall.
   */
  attempts?: number;
}

export interface QueueBackend {
  readonly kind: 'redis' | 'postgres';
  /** The producer handle of a queue (payload types are enforced by OutboxJob). */
  queue(name: QueueName): Queue;
  worker<Q extends QueueName>(name: Q, processor: Processor<Q>, opts: Pick<WorkerOptions, 'concurrency' | 'lockDuration'>): Worker;
  /** A listener on a queue's event stream (jobs failed by BullMQ itself, not by a processor). Closed by its owner. */
  events(name: QueueName): QueueEvents;
  /** Throws when the queue store does not answer (used by /readyz). */
  ping(): Promise<void>;
  /** Closes the producer side (queues). Workers are closed by their owner. */
  close(): Promise<void>;
}

/**
 * A job whose worker dies (SIGKILL, lost host) keeps its lock until `lockDuration` passes; the
 * stalled-job check, run as often, then gives it to another worker, up to `attempts - 1` times
 * (BullMQ's default is once: a deploy that kills workers twice would fail an order for good).
 */
function workerTiming(opts: Pick<WorkerOptions, 'concurrency' | 'lockDuration'>, attempts: number): Pick<WorkerOptions, 'concurrency' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return { concurrency: opts.concurrency, lockDuration: opts.lockDuration, stalledInterval: opts.lockDuration, maxStalledCount: Math.max(1, attempts - 1) };
}

/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq's backend-generic classes are typed per backend; the two branches below hide that behind QueueBackend. */
export function createQueueBackend(opts: QueueBackendOptions): QueueBackend {
  const queues = new Map<QueueName, Queue>();
  const attempts = opts.attempts ?? DEFAULT_ATTEMPTS;
  const jobOptions: DefaultJobOptions = { ...DEFAULT_JOB_OPTIONS, attempts };
  if (opts.redisUrl) {
    const redisUrl = opts.redisUrl;
    // Hash-tagged so every key of a queue lands in one Redis Cluster slot.
    const prefix = `{${opts.prefix}}`;
    // Producers give up after one reconnect attempt when Redis is down (the outbox keeps the
    // job for the relay); consumers (workers) wait for Redis indefinitely, as BullMQ requires.
    const producer = { url: redisUrl, maxRetriesPerRequest: 1, connectTimeout: 2000 };
    let pinger: Redis | undefined;
    return {
      kind: 'redis',
      queue(name) {
        let q = queues.get(name);
        if (!q) {
          q = new Queue(name, { connection: producer, prefix, defaultJobOptions: jobOptions, skipWaitingForReady: true });
          q.on('error', () => undefined); // reported through the failing call instead
          queues.set(name, q);
        }
        return q;
      },
      worker(name, processor, wopts) {
        return new Worker(name, processor as any, {
          connection: { url: redisUrl, maxRetriesPerRequest: null },
          prefix,
          ...workerTiming(wopts, attempts),
        });
      },
      events(name) {
        return new QueueEvents(name, { connection: { url: redisUrl, maxRetriesPerRequest: null }, prefix });
      },
      async ping() {
        if (!pinger) {
          pinger = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 1500 });
          pinger.on('error', () => undefined);
        }
        const answer = await withTimeout(pinger.ping(), 1500, 'redis ping');
        if (answer !== 'PONG') throw new Error('redis did not answer PONG');
      },
      async close() {
        await Promise.allSettled([...queues.values()].map((q) => q.close()));
        pinger?.disconnect();
      },
    };
  }

  const pgBackend = withBackend(createPostgresBackend);
  const connection = { connectionString: opts.databaseUrl, schema: `bullmq_${opts.prefix}`, migrate: true, max: 4 };
  return {
    kind: 'postgres',
    queue(name) {
      let q = queues.get(name);
      if (!q) {
        q = new pgBackend.Queue(name, { connection, defaultJobOptions: jobOptions }) as unknown as Queue;
        q.on('error', () => undefined);
        queues.set(name, q);
      }
      return q;
    },
    worker(name, processor, wopts) {
      return new pgBackend.Worker(name, processor as any, { connection, ...workerTiming(wopts, attempts) }) as unknown as Worker;
    },
    events(name) {
      return new pgBackend.QueueEvents(name, { connection }) as unknown as QueueEvents;
    },
    async ping() {
      // Same database as the app: a count proves the queue tables are reachable.
      await this.queue('tenant-stats').getJobCounts('waiting');
    },
    async close() {
      await Promise.allSettled([...queues.values()].map((q) => q.close()));
    },
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */
