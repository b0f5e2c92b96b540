import {
  Queue,
  QueueEvents,
  Worker,
  createPostgresBackend,
  withBackend,
  type DefaultJobOptions,
  type Job,
  type WorkerOptions,
} from 'bullmq';
import { withTimeout } from '../util/net.js';
import { TenantShare } from './fairness.js';
import { createRedisClient, pingAll, type RedisClient } from './redis-client.js';

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
  /** Deliver one webhook delivery (a webhook told of one change), retrying on its own schedule. */
  webhooks: { tenantId: number; deliveryId: number };
}

export type QueueName = keyof JobPayloads;
export const QUEUE_NAMES: readonly QueueName[] = ['tenant-stats', 'orders', 'invoices', 'course-templates', 'webhooks'];

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

/**
 * Queues that are not sharded. Nothing adds to `invoices` any more: its jobs from before the
 * upgrade sit under the keys of shard 0 (the keys every queue had before shards), so one worker
 * there drains it, rather than one per shard holding a connection each for nothing.
 */
const UNSHARDED: ReadonlySet<QueueName> = new Set<QueueName>(['invoices']);

/**
 * The Redis key prefix of a shard: one hash tag per shard, so every key of a shard's queues
 * lives in one Redis Cluster slot (BullMQ's scripts touch several keys of a queue at once), and
 * different shards hash to different slots, spread over the cluster's masters. Shard 0 keeps the
 * prefix every queue had before shards (`{lectern}`), so jobs queued before the upgrade are
 * still drained. QUEUE_PREFIX cannot contain `-`, so no deployment's prefix is another's shard.
 */
export function shardPrefix(namespace: string, shard: number): string {
  return shard === 0 ? `{${namespace}}` : `{${namespace}-s${shard}}`;
}

/** SCAN MATCH patterns of every key of a queue namespace, all shards. */
export function namespaceKeyPatterns(namespace: string): string[] {
  return [`{${namespace}}:*`, `{${namespace}-s*}:*`];
}

export interface QueueBackendOptions {
  /** Redis for production; without it BullMQ runs on its PostgreSQL backend in `databaseUrl`. */
  redisUrl: string | undefined;
  /** REDIS_CLUSTER: `redisUrl` is a seed node of a Redis Cluster. */
  redisCluster?: boolean;
  /** QUEUE_SHARDS: how many shards each queue has on Redis (the PostgreSQL backend has one). */
  shards?: number;
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
  /** Shards of a sharded queue: QUEUE_SHARDS on Redis, always 1 on PostgreSQL. */
  readonly shardCount: number;
  /** The shard of `name` holding `tenantId`'s jobs: tenantId mod shards (0 for an unsharded queue). */
  shardOf(name: QueueName, tenantId: number): number;
  /** The producer handle of the shard holding `tenantId`'s jobs of `name`. */
  queue(name: QueueName, tenantId: number): Queue;
  /** The producer handles of every shard of a queue, by shard number (for metrics, the dashboard, look-ups). */
  shards(name: QueueName): Queue[];
  /**
   * Adds a job of `tenantId` to its shard, with the priority its tenant's recent share of the
   * queue earns it (fairness.ts). The way Lectern adds jobs: BullMQ serves a job added without a
   * priority before all others. A job id already there is left as it is (the first add wins).
   */
  add<Q extends QueueName>(name: Q, tenantId: number, jobName: string, data: JobPayloads[Q], jobId: string): Promise<Job>;
  /**
   * The job with this id: looked for in `tenantId`'s shard, then in the others (a job queued
   * before QUEUE_SHARDS changed sits in the shard of the count it was queued under).
   */
  findJob(name: QueueName, tenantId: number, jobId: string): Promise<Job | undefined>;
  /** One worker per shard of the queue, each with its own blocking connection. */
  workers<Q extends QueueName>(name: Q, processor: Processor<Q>, opts: Pick<WorkerOptions, 'concurrency' | 'lockDuration'>): Worker[];
  /** A listener per shard (same order as `shards`) on the queue's event stream (jobs failed by BullMQ itself, not by a processor). Closed by their owner. */
  events(name: QueueName): QueueEvents[];
  /** Throws when the queue store does not answer (used by /readyz); on a cluster, every master. */
  ping(): Promise<void>;
  /** Closes the producer side (queues) and the connections the backend made. Workers and listeners are closed by their owner first. */
  close(): Promise<void>;
}

/**
 * A job whose worker dies (SIGKILL, lost host) keeps its lock until `lockDuration` passes; the
 * stalled-job check, run as often, then gives it to another worker, up to `attempts - 1` times
 * (BullMQ's default is once: a deploy that kills workers twice would fail an order for good).
 */
function workerTiming(
  opts: Pick<WorkerOptions, 'concurrency' | 'lockDuration'>,
  attempts: number,
): Pick<WorkerOptions, 'concurrency' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return {
    concurrency: opts.concurrency,
    lockDuration: opts.lockDuration,
    stalledInterval: opts.lockDuration,
    maxStalledCount: Math.max(1, attempts - 1),
  };
}

/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq's backend-generic classes are typed per backend; the two branches below hide that behind QueueBackend. */
export function createQueueBackend(opts: QueueBackendOptions): QueueBackend {
  const handles = new Map<string, Queue>();
  const attempts = opts.attempts ?? DEFAULT_ATTEMPTS;
  const jobOptions: DefaultJobOptions = { ...DEFAULT_JOB_OPTIONS, attempts };
  const share = new TenantShare();
  if (opts.redisUrl) {
    const redisUrl = opts.redisUrl;
    const cluster = opts.redisCluster ?? false;
    const shardCount = opts.shards ?? 1;
    const shardsOf = (name: QueueName) => (UNSHARDED.has(name) ? 1 : shardCount);
    // Connections are shared, made on first use: producers (every queue handle of the process)
    // share one that gives up after one reconnect attempt when Redis is down (the outbox keeps
    // the job for the relay); workers share one for their ordinary commands, which waits for
    // Redis indefinitely as BullMQ requires. BullMQ gives each worker and each event listener a
    // copy of it for its blocking reads, its own. On a cluster each is a cluster client, holding
    // a socket to each master it has talked to.
    let producer: RedisClient | undefined;
    let consumer: RedisClient | undefined;
    const producerClient = () => (producer ??= createRedisClient(redisUrl, cluster, 'fail-fast'));
    const consumerClient = () => (consumer ??= createRedisClient(redisUrl, cluster, 'patient'));
    const handle = (name: QueueName, shard: number): Queue => {
      const key = `${name}#${shard}`;
      let q = handles.get(key);
      if (!q) {
        // No version check (an INFO at creation): a handle made while Redis is away would keep
        // that failure for good, and the workers' connections check the version anyway.
        q = new Queue(name, {
          connection: producerClient(),
          prefix: shardPrefix(opts.prefix, shard),
          defaultJobOptions: jobOptions,
          skipWaitingForReady: true,
          skipVersionCheck: true,
        });
        q.on('error', () => undefined); // reported through the failing call instead
        handles.set(key, q);
      }
      return q;
    };
    const shardOf = (name: QueueName, tenantId: number) => (UNSHARDED.has(name) ? 0 : tenantId % shardCount);
    const shards = (name: QueueName) => Array.from({ length: shardsOf(name) }, (_, k) => handle(name, k));
    return {
      kind: 'redis',
      shardCount,
      shardOf,
      queue: (name, tenantId) => handle(name, shardOf(name, tenantId)),
      shards,
      async add(name, tenantId, jobName, data, jobId) {
        return handle(name, shardOf(name, tenantId)).add(jobName, data, { jobId, priority: share.priority(name, tenantId) });
      },
      async findJob(name, tenantId, jobId) {
        const own = shardOf(name, tenantId);
        const others = Array.from({ length: shardsOf(name) }, (_, k) => k).filter((k) => k !== own);
        for (const shard of [own, ...others]) {
          const job = (await handle(name, shard).getJob(jobId)) as Job | undefined;
          if (job) return job;
        }
        return undefined;
      },
      workers(name, processor, wopts) {
        return Array.from(
          { length: shardsOf(name) },
          (_, k) =>
            new Worker(name, processor as any, {
              connection: consumerClient(),
              prefix: shardPrefix(opts.prefix, k),
              ...workerTiming(wopts, attempts),
            }),
        );
      },
      events(name) {
        return Array.from(
          { length: shardsOf(name) },
          (_, k) => new QueueEvents(name, { connection: consumerClient(), prefix: shardPrefix(opts.prefix, k) }),
        );
      },
      async ping() {
        await withTimeout(pingAll(producerClient()), 1500, 'redis ping');
      },
      async close() {
        await Promise.allSettled([...handles.values()].map((q) => q.close()));
        producer?.disconnect();
        consumer?.disconnect();
      },
    };
  }

  // BullMQ's PostgreSQL backend (the embedded default) has no cluster to spread over: one shard.
  const pgBackend = withBackend(createPostgresBackend);
  const connection = { connectionString: opts.databaseUrl, schema: `bullmq_${opts.prefix}`, migrate: true, max: 4 };
  const handle = (name: QueueName): Queue => {
    let q = handles.get(name);
    if (!q) {
      q = new pgBackend.Queue(name, { connection, defaultJobOptions: jobOptions }) as unknown as Queue;
      q.on('error', () => undefined);
      handles.set(name, q);
    }
    return q;
  };
  return {
    kind: 'postgres',
    shardCount: 1,
    shardOf: () => 0,
    queue: (name) => handle(name),
    shards: (name) => [handle(name)],
    // Its claim query takes waiting jobs by (priority, order added), as Redis does.
    add: (name, tenantId, jobName, data, jobId) => handle(name).add(jobName, data, { jobId, priority: share.priority(name, tenantId) }),
    async findJob(name, _tenantId, jobId) {
      return ((await handle(name).getJob(jobId)) as Job | undefined) ?? undefined;
    },
    workers(name, processor, wopts) {
      return [new pgBackend.Worker(name, processor as any, { connection, ...workerTiming(wopts, attempts) }) as unknown as Worker];
    },
    events(name) {
      return [new pgBackend.QueueEvents(name, { connection }) as unknown as QueueEvents];
    },
    async ping() {
      // Same database as the app: a count proves the queue tables are reachable.
      await handle('tenant-stats').getJobCounts('waiting');
    },
    async close() {
      await Promise.allSettled([...handles.values()].map((q) => q.close()));
    },
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */
