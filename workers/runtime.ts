import type { Worker } from 'bullmq';
import { withRetryPolicy } from '../src/jobs/job-errors.js';
import { startRelay } from '../src/jobs/outbox.js';
import type { Runtime } from '../src/runtime.js';
import { watchJobFailures } from './failure-watcher.js';
import { courseTemplatesProcessor, markFailedBackgroundJob } from './processors/course-templates.processor.js';
import { markFailedOrderJob, orderProcessor } from './processors/orders.processor.js';
import { tenantStatsProcessor } from './processors/tenant-stats.processor.js';

export interface RunningWorkers {
  workers: Worker[];
  /** Stops the relay, then lets each worker finish its active jobs (or return them) and closes. */
  close(): Promise<void>;
}

/** Starts one BullMQ worker per queue and the outbox relay. Never loads Koa. */
export function startWorkers(rt: Runtime): RunningWorkers {
  const opts = { concurrency: rt.config.workerConcurrency, lockDuration: rt.config.workerLockMs };
  let stopping = false;
  const workers: Worker[] = [
    rt.queues.worker('tenant-stats', withRetryPolicy(tenantStatsProcessor(rt)), opts),
    rt.queues.worker('orders', withRetryPolicy(orderProcessor(rt)), opts),
    // Drains the queue invoicing had before orders were one job (see JobPayloads['invoices']).
    rt.queues.worker('invoices', withRetryPolicy(orderProcessor(rt)), opts),
    rt.queues.worker('course-templates', withRetryPolicy(courseTemplatesProcessor(rt, () => stopping)), opts),
  ];
  // Failures BullMQ makes by itself (stalled jobs) from a few lock periods back: a restart after a crash.
  const lookBackMs = 10 * rt.config.workerLockMs;
  const watchers = [
    watchJobFailures(rt, 'orders', lookBackMs, markFailedOrderJob(rt)),
    watchJobFailures(rt, 'invoices', lookBackMs, markFailedOrderJob(rt)),
    watchJobFailures(rt, 'course-templates', lookBackMs, markFailedBackgroundJob(rt)),
  ];
  for (const w of workers) {
    w.on('failed', (job, err) => rt.log.warn({ queue: w.name, jobId: job?.id, attempts: job?.attemptsMade, err: { message: err.message } }, 'job failed'));
    w.on('error', (err) => rt.log.warn({ queue: w.name, err: { message: err.message } }, 'worker error'));
  }
  const relay = startRelay(rt.dispatcher, rt.config.outboxSweepMs, rt.log);
  return {
    workers,
    async close() {
      stopping = true;
      await relay.stop();
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all(watchers.map((w) => w.close()));
    },
  };
}
