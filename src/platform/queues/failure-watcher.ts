import type { Job } from 'bullmq';
import type { JobPayloads, QueueName } from './queues.js';
import type { PlatformRuntime } from '../runtime.js';

/**
 * Watches a queue for jobs that BullMQ fails by itself, without the processor getting a last
 * word: a job whose worker died while holding it more often than BullMQ allows ("job stalled
 * more than allowable limit"), or a last attempt whose own marking could not be written. The
 * record behind such a job (an order, a background job) is then marked failed too, so none
 * waits forever in a state nobody will move it from. Marking must be idempotent and keep the
 * first reason, so every worker process may listen.
 *
 * The event stream is read from "now", and a worker that starts after a crash fails stalled
 * jobs at once, possibly before the stream is being read: so once the listener is up, the
 * failures of the last `lookBackMs` are looked at too.
 */
export function watchJobFailures<Q extends QueueName>(
  rt: Pick<PlatformRuntime, 'log' | 'queues'>,
  queueName: Q,
  lookBackMs: number,
  markFailed: (job: Job<JobPayloads[Q]>, stalled: boolean) => Promise<void>,
): { close(): Promise<void> } {
  const startedAt = Date.now();
  const inFlight = new Set<Promise<void>>();
  // Every shard has an event stream of its own; a job is looked up in the shard that reported it.
  const queues = rt.queues.shards(queueName);
  const listeners = rt.queues.events(queueName).map((events, shard) => {
    const queue = queues[shard]!;
    const at = queues.length > 1 ? { queue: queueName, shard } : { queue: queueName };
    const mark = (jobId: string, failedReason: string) => {
      const p = (async () => {
        const job = (await queue.getJob(jobId)) as Job<JobPayloads[Q]> | undefined;
        if (!job || !(await job.isFailed())) return;
        await markFailed(job, /stalled more than allowable limit/i.test(failedReason));
      })()
        .catch((err: Error) => rt.log.warn({ ...at, jobId, err: { message: err.message } }, 'could not mark a failed job'))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    };
    events.on('error', (err) => rt.log.warn({ ...at, err: { message: err.message } }, 'queue events error'));
    events.on('failed', ({ jobId, failedReason }) => mark(jobId, failedReason));
    const lookBack = (async () => {
      await events.waitUntilReady();
      await new Promise((r) => setTimeout(r, 1000).unref());
      for (const job of await queue.getJobs(['failed'], 0, 499, false)) {
        if (job.id && (job.finishedOn ?? 0) >= startedAt - lookBackMs) mark(job.id, job.failedReason ?? '');
      }
    })().catch((err: Error) => rt.log.warn({ ...at, err: { message: err.message } }, 'could not look back at failed jobs'));
    return { events, lookBack };
  });
  return {
    async close() {
      await Promise.all(listeners.map((l) => l.lookBack));
      await Promise.all(listeners.map((l) => l.events.close()));
      await Promise.allSettled([...inFlight]);
    },
  };
}
