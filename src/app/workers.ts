import type { Job, Worker } from 'bullmq';
import type { Knex } from '../platform/db/knex.js';
import { withRetryPolicy } from '../platform/queues/job-errors.js';
import { settledByJob, settleJob, startRelay, sweepOnNotice } from '../platform/queues/outbox.js';
import { Reconciler, startReconciler } from '../platform/queues/reconciler.js';
import { backgroundJobNeedsWork } from '../modules/background-jobs/background-jobs.service.js';
import { orderNeedsWork } from '../modules/orders/order-processing.service.js';
import { tenantSchemaById } from '../platform/tenancy/tenants.data.js';
import { withTenant } from '../platform/tenancy/with-tenant.js';
import type { Runtime } from './runtime.js';
import { watchJobFailures } from '../platform/queues/failure-watcher.js';
import { courseTemplatesProcessor, markFailedBackgroundJob } from '../modules/background-jobs/background-jobs.processor.js';
import { markFailedOrderJob, orderProcessor } from '../modules/orders/orders.processor.js';
import { tenantStatsProcessor } from '../modules/tenant-stats/tenant-stats.processor.js';
import { deleteExpiredLoginLimits } from '../modules/users/index.js';
import { tenantBaseUrl } from '../platform/config.js';
import { createMailer } from '../platform/mail.js';
import { deliveryPending, pruneDueLogs, type DeliveryDeps } from '../modules/webhooks/webhook-delivery.service.js';
import { closeWebhookAgents, parseAllowance } from '../modules/webhooks/webhook-http.js';
import { storedQueryRunner } from '../modules/webhooks/webhook-payload.graphql.js';
import { markFailedDeliveryJob, webhooksProcessor } from '../modules/webhooks/webhooks.processor.js';
import { DurableCounters } from '../platform/counters.data.js';
import { buildSchema } from './graphql-schema.js';

/** How often the worker deletes expired failed-sign-in counts and waits. */
const LOGIN_LIMITS_SWEEP_MS = 10 * 60_000;
/** How often the worker prunes the webhook delivery logs that are due (and once at start). */
const WEBHOOK_LOG_SWEEP_MS = 10 * 60_000;
const LOG_SWEEP_BATCH = 200;

export interface RunningWorkers {
  workers: Worker[];
  /** Stops the relay, then lets each worker finish its active jobs (or return them) and closes. */
  close(): Promise<void>;
}

/**
 * A job that completed has done its work: its outbox row is settled, so the reconciler no longer
 * follows it. Best effort: a row left open is settled by the reconciler's next look.
 */
function settling<D, R>(
  rt: Pick<Runtime, 'knex' | 'log'>,
  fn: (job: Job<D>, token?: string) => Promise<R>,
): (job: Job<D>, token?: string) => Promise<R> {
  return async (job, token) => {
    const result = await fn(job, token);
    // A job whose last write settled its row (a webhook delivery's success) needs no second statement.
    if (job.id && !settledByJob(result))
      await settleJob(rt.knex, job.id).catch((err: Error) =>
        rt.log.warn({ jobId: job.id, err: { message: err.message } }, 'could not settle the outbox row of a completed job'),
      );
    return result;
  };
}

/**
 * Starts BullMQ workers (one per queue and shard: a worker process consumes every shard), the
 * outbox relay and the reconciler. Never loads Koa.
 *
 * WORKER_CONCURRENCY applies per worker, so per shard: a process runs up to that many jobs of
 * each shard of each queue at once. On Redis, with N = QUEUE_SHARDS, a worker process holds
 * 7N + 4 connections: one blocking connection per worker (4N + 1, `invoices` is not sharded) and
 * per failure listener (3N + 1), one shared by the workers' other commands, one shared by the
 * producer handles. On a cluster each of those is a cluster client, holding a socket to each
 * master it talks to (a shard's blocking connection talks to one).
 */
export function startWorkers(rt: Runtime): RunningWorkers {
  const opts = { concurrency: rt.config.workerConcurrency, lockDuration: rt.config.workerLockMs };
  let stopping = false;
  const run = <D, R>(fn: (job: Job<D>, token?: string) => Promise<R>) => settling(rt, withRetryPolicy(fn));
  const settings = rt.config.webhooks;
  const mailer = createMailer({ smtpUrl: rt.config.smtpUrl, from: rt.config.mailFrom, log: rt.log });
  const counts = new DurableCounters(rt.knex, rt.config.queuePrefix, rt.log);
  const deliveries: DeliveryDeps = {
    knex: rt.knex,
    log: rt.log,
    runQuery: storedQueryRunner(buildSchema({ webhookSecretOverlapMs: settings.secretOverlapMs })),
    mailer,
    settings: { ...settings, allow: parseAllowance(settings.allow), statementTimeoutMs: rt.config.statementTimeoutMs },
    instanceUrl: (tenant) => tenantBaseUrl(rt.config, tenant.slug),
    count: (outcome) => counts.add(`webhook_deliveries_${outcome}`),
  };
  const workers: Worker[] = [
    ...rt.queues.workers('tenant-stats', run(tenantStatsProcessor(rt)), opts),
    ...rt.queues.workers('orders', run(orderProcessor(rt)), opts),
    // Drains the queue invoicing had before orders were one job (see JobPayloads['invoices']).
    ...rt.queues.workers('invoices', run(orderProcessor(rt)), opts),
    ...rt.queues.workers('course-templates', run(courseTemplatesProcessor(rt, () => stopping)), opts),
    // Deliveries wait on receivers, not on CPU: many at once (a slow receiver holds at most twice
    // WEBHOOK_ENDPOINT_CONCURRENCY of them: that many sending, as many waiting their turn).
    ...rt.queues.workers('webhooks', run(webhooksProcessor(rt, deliveries)), { ...opts, concurrency: settings.concurrency }),
  ];
  // Failures BullMQ makes by itself (stalled jobs) from a few lock periods back: a restart after a crash.
  const lookBackMs = 10 * rt.config.workerLockMs;
  const watchers = [
    watchJobFailures(rt, 'orders', lookBackMs, markFailedOrderJob(rt)),
    watchJobFailures(rt, 'invoices', lookBackMs, markFailedOrderJob(rt)),
    watchJobFailures(rt, 'course-templates', lookBackMs, markFailedBackgroundJob(rt)),
    watchJobFailures(rt, 'webhooks', lookBackMs, markFailedDeliveryJob(rt)),
  ];
  for (const w of workers) {
    const at = { queue: w.name, ...(rt.queues.shardCount > 1 ? { prefix: w.opts.prefix } : {}) };
    w.on('failed', (job, err) =>
      rt.log.warn({ ...at, jobId: job?.id, attempts: job?.attemptsMade, err: { message: err.message } }, 'job failed'),
    );
    w.on('error', (err) => rt.log.warn({ ...at, err: { message: err.message } }, 'worker error'));
  }
  const relay = startRelay(rt.dispatcher, rt.config.outboxSweepMs, rt.log);
  // Webhook deliveries are written by triggers, which no process dispatches after its commit:
  // the database's announcement sweeps them at once (the relay's tick covers a missed one).
  const deliveriesRelay = sweepOnNotice(rt.dispatcher, rt.changes, 'webhooks', rt.log);
  void rt.changes.ensureStarted();
  // Failed sign-in and client-secret counts and their waits, once expired: nothing else deletes
  // them, and every new address (IPv6 makes them free) leaves one.
  const loginLimitsSweep = setInterval(() => {
    deleteExpiredLoginLimits(rt.knex, Date.now()).catch((err: Error) =>
      rt.log.warn({ err: { message: err.message } }, 'login limits sweep failed; will try again'),
    );
  }, LOGIN_LIMITS_SWEEP_MS);
  loginLimitsSweep.unref();
  // Delivered deliveries older than WEBHOOK_LOG_DAYS, of tenants that may receive nothing more
  // (those that do are pruned as they deliver): the tenants due, a batch at a time.
  let logSweep: Promise<void> = Promise.resolve();
  const sweepLogs = () => {
    logSweep = logSweep
      .then(async () => {
        // Each batch claims tenants out of the due set, so this ends.
        const opts = { limit: LOG_SWEEP_BATCH, stopping: () => stopping };
        while (!stopping && (await pruneDueLogs(deliveries, (id) => tenantSchemaById(rt.knex, id), opts)) === LOG_SWEEP_BATCH);
      })
      .catch((err: Error) => rt.log.warn({ err: { message: err.message } }, 'webhook log sweep failed; will try again'));
  };
  const logSweepTimer = setInterval(sweepLogs, WEBHOOK_LOG_SWEEP_MS);
  logSweepTimer.unref();
  sweepLogs();
  const reconciler = startReconciler(
    new Reconciler(rt.knex, rt.queues, rt.log, rt.config.queuePrefix, rt.config.reconcileAfterMs, {
      orders: {
        pending: inTenant(rt, (db, d) => orderNeedsWork(db, d.orderId)),
        markFailed: (job) => markFailedOrderJob(rt)(job, /stalled/i.test(job.failedReason ?? '')),
      },
      'course-templates': {
        pending: inTenant(rt, (db, d) => backgroundJobNeedsWork(db, d.backgroundJobId)),
        markFailed: (job) => markFailedBackgroundJob(rt)(job, /stalled/i.test(job.failedReason ?? '')),
      },
      webhooks: {
        pending: inTenant(rt, (db, d) => deliveryPending(db, d.deliveryId)),
        markFailed: (job) => markFailedDeliveryJob(rt)(job, /stalled/i.test(job.failedReason ?? '')),
      },
    }),
    rt.config.reconcileAfterMs,
    rt.log,
  );
  return {
    workers,
    async close() {
      stopping = true;
      clearInterval(loginLimitsSweep);
      clearInterval(logSweepTimer);
      await reconciler.stop();
      await deliveriesRelay.stop();
      await relay.stop();
      await Promise.all(workers.map((w) => w.close()));
      // Stops between tenants: at most one prune to wait for.
      await logSweep;
      await Promise.all(watchers.map((w) => w.close()));
      await counts.stop();
      mailer.close();
      await closeWebhookAgents();
    },
  };
}

/** A record check run in the job's tenant; a tenant that is gone has no record that needs work. */
function inTenant<D extends { tenantId: number }>(rt: Pick<Runtime, 'knex' | 'registry'>, check: (db: Knex, data: D) => Promise<boolean>) {
  return async (data: D): Promise<boolean> => {
    const tenant = await rt.registry.byId(data.tenantId);
    return tenant ? withTenant(rt.knex, tenant, (db) => check(db, data)) : false;
  };
}
