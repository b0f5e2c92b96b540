import type { Job } from 'bullmq';
import type { Knex } from '../db/knex.js';
import type { Logger } from '../logger.js';
import { lockOpenRowsDue, markRowChecked, markRowRequeued, settleRow, type OpenOutboxRow } from './outbox.data.js';
import type { JobPayloads, QueueBackend, QueueName } from './queues.js';

/**
 * The reconciler: work whose job the queue store no longer has is queued again.
 *
 * The outbox row of a job stays open until the job completes (`settleJob`). Jobs die with a
 * queue store that loses its data (Redis restarted without persistence, keys evicted): their
 * records (an order, a background job) then sit in a state no worker will move them from. A
 * sweep reads the open rows not looked at for `afterMs` (an index on `checked_at`, so a sweep
 * costs what the stuck rows cost, not what all orders do) and for each:
 * - the job is in the queue store and not finished (waiting, active, delayed...): it is alive;
 *   look again in `afterMs`;
 * - otherwise the record is asked whether it still needs the work: if not (done, failed for
 *   good, deleted), the row is settled; if the job failed for good in the store and nobody
 *   marked the record, it is marked failed (ops retry it); else the job is queued again under a
 *   new id (`<job id>-q<n>`), so a completed job kept under the old id cannot swallow it.
 * Steps are idempotent (each checks its record's state under a row lock), so a job queued again
 * never does a step twice.
 *
 * A sweep claims its rows first, in a transaction of its own that commits at once (locked with
 * SKIP LOCKED and marked looked at: several workers may sweep at once, each row is looked at by
 * one), then looks at them holding no lock. A sweep that held its batch locked while it asked the
 * pool for a connection per row (the record's check) deadlocked with the jobs it had queued: they
 * completed at once and their `settleJob` waited for those locks holding connections, so a batch
 * larger than the pool (a queue store lost with its jobs) stopped every worker's database work
 * until the pool's acquire timeout failed the sweep (its record of the jobs it queued rolled back)
 * and the jobs waiting for a connection (a webhook sent, its outcome never recorded). A job queued
 * again is named by its row before it is queued, so it completes under an id its row has.
 */

/** What the reconciler needs to know of the records behind one queue's jobs. */
export interface ReconcileCheck<Q extends QueueName = QueueName> {
  /** Whether the record still needs this job's work; false when it is done, failed for good, or gone. */
  pending(data: JobPayloads[Q]): Promise<boolean>;
  /** Marks the record failed when its job failed for good and the record was not marked (ops then retry it). */
  markFailed(job: Job<JobPayloads[Q]>): Promise<void>;
}

export type ReconcileChecks = { [Q in QueueName]?: ReconcileCheck<Q> };

export interface SweepResult {
  alive: number;
  settled: number;
  requeued: number;
  markedFailed: number;
}

/** BullMQ states of a job that is still going to run or running. */
const ALIVE = new Set(['waiting', 'wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'paused']);

export class Reconciler {
  constructor(
    private readonly knex: Knex,
    private readonly queues: QueueBackend,
    private readonly log: Logger,
    /** The queue namespace whose rows this process reconciles (QUEUE_PREFIX). */
    private readonly namespace: string,
    /** How long a row may go without a look: RECONCILE_AFTER_MS. */
    private readonly afterMs: number,
    private readonly checks: ReconcileChecks,
  ) {}

  /**
   * One sweep over at most `limit` rows due for a look. Stops early when the queue store does not
   * answer: the rows it claimed and did not get to are looked at again after `afterMs`.
   */
  async sweep(limit = 100): Promise<SweepResult> {
    const result: SweepResult = { alive: 0, settled: 0, requeued: 0, markedFailed: 0 };
    const rows = await this.knex.transaction(async (trx) => {
      const due = await lockOpenRowsDue(trx, this.namespace, this.afterMs, limit);
      for (const row of due) await markRowChecked(trx, row.id);
      return due;
    });
    try {
      for (const row of rows) {
        const outcome = await this.reconcile(row);
        result[outcome]++;
      }
    } finally {
      if (result.requeued || result.markedFailed) this.log.warn({ ...result }, 'reconciler found work the queue store had lost');
    }
    return result;
  }

  /** Looks at one claimed row (marked looked at already), with no lock held. */
  private async reconcile(row: OpenOutboxRow): Promise<keyof SweepResult> {
    const settle = async () => {
      await settleRow(this.knex, row.id);
      return 'settled' as const;
    };
    const check = this.checks[row.queue] as ReconcileCheck | undefined;
    if (!check) return settle();
    // A queue store that does not answer decides nothing: the error ends the sweep.
    const job = (await this.queues.findJob(row.queue, row.tenant_id, row.job_id)) as Job<JobPayloads[QueueName]> | undefined;
    const state = job ? await job.getState() : 'missing';
    if (ALIVE.has(state)) return 'alive';
    if (!(await check.pending(row.payload))) return settle();
    if (state === 'failed' && job) {
      await check.markFailed(job);
      await settle();
      return 'markedFailed';
    }
    // Missing (the store lost it), or completed without its work done (a store restored from an
    // older copy): queued again under an id of its own, which the row names first. A job queued
    // again is thus settled by its own id when it completes; a row whose job could not be queued
    // names a job the store does not have, and is queued again (`-q<n+1>`) at its next look.
    const requeues = row.requeues + 1;
    const jobId = `${row.job_id.replace(/-q\d+$/, '')}-q${requeues}`;
    await markRowRequeued(this.knex, row.id, jobId, requeues);
    await this.queues.add(row.queue, row.tenant_id, row.job_name, row.payload, jobId);
    this.log.warn(
      { queue: row.queue, shard: this.queues.shardOf(row.queue, row.tenant_id), outboxId: row.id, lostJobId: row.job_id, jobId, state },
      'job queued again: the queue store no longer had it',
    );
    return 'requeued';
  }
}

/** The reconciler's loop in a worker process: a sweep every quarter of RECONCILE_AFTER_MS (at most every 15 s). */
export function startReconciler(reconciler: Reconciler, afterMs: number, log: Logger): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(
    () => {
      running = running
        .then(async () => {
          // Sweeps until nothing is due, so a backlog after an outage clears in one tick.
          for (let n = 0; n < 50; n++) {
            const r = await reconciler.sweep();
            if (r.alive + r.settled + r.requeued + r.markedFailed < 100) break;
          }
        })
        .catch((err: Error) => log.warn({ err: { message: err.message } }, 'reconciler sweep failed; will try again'));
    },
    Math.min(15_000, Math.max(250, Math.floor(afterMs / 4))),
  );
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
