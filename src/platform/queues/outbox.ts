import type { Db, Knex } from '../db/knex.js';
import type { Logger } from '../logger.js';
import {
  claimPendingRows,
  insertOutboxRow,
  lockPendingRows,
  markEnqueued,
  markRowEnqueued,
  pruneSettled,
  recordEnqueueFailure,
  settleByJobIds,
  settleByJobIdsStatement,
  unclaimRows,
} from './outbox.data.js';
import type { JobPayloads, QueueBackend, QueueName } from './queues.js';

/**
 * Transactional outbox. A write that needs a follow-up inserts a row here in the same
 * transaction; after commit the web process enqueues it at once, and the worker's relay
 * sweeps whatever was left (Redis down, process killed). A rolled-back write leaves no row,
 * so nothing is ever enqueued for it. Job ids are deterministic, so enqueuing a row twice
 * (web and relay racing) is a no-op in BullMQ.
 */

export interface OutboxJob<Q extends QueueName = QueueName> {
  queue: Q;
  /** Job name inside the queue, e.g. `process-order`. */
  name: string;
  data: JobPayloads[Q];
  /** Deterministic id without `:`; defaults to `<queue>-<tenantId>-o<outbox id>`. */
  jobId?: string;
}

interface OutboxRow {
  id: number;
  tenant_id: number;
  queue: QueueName;
  job_name: string;
  job_id: string | null;
  payload: JobPayloads[QueueName];
}

// The rows a transaction wrote, as written: dispatched after commit without reading them back.
const pendingByTrx = new WeakMap<object, OutboxRow[]>();

/**
 * Records a job to run after `db`'s transaction commits. Call it with the transaction the
 * write runs in (not a nested savepoint), so the after-commit hook sees it.
 */
export async function addToOutbox<Q extends QueueName>(db: Db, tenantId: number, job: OutboxJob<Q>): Promise<number> {
  if (job.jobId?.includes(':')) throw new Error(`job id must not contain ':' (${job.jobId})`);
  const id = await insertOutboxRow(db, {
    tenant_id: tenantId,
    queue: job.queue,
    job_name: job.name,
    job_id: job.jobId ?? null,
    payload: job.data,
  });
  const list = pendingByTrx.get(db) ?? [];
  list.push({ id, tenant_id: tenantId, queue: job.queue, job_name: job.name, job_id: job.jobId ?? null, payload: job.data });
  pendingByTrx.set(db, list);
  return id;
}

/** Called by withTenant after commit: hands the transaction's outbox rows to the dispatcher. */
export function afterCommitDispatch(trx: Db, dispatcher: OutboxDispatcher): void {
  const rows = pendingByTrx.get(trx);
  if (!rows?.length) return;
  pendingByTrx.delete(trx);
  // Never block or fail the response on the queue: the relay picks up anything that fails here.
  void dispatcher.dispatch(rows);
}

function jobIdOf(row: OutboxRow): string {
  return row.job_id ?? `${row.queue}-${row.tenant_id}-o${row.id}`;
}

export class OutboxDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly unmarked: number[] = [];
  private marking: Promise<void> | undefined;

  constructor(
    private readonly knex: Knex,
    private readonly queues: QueueBackend,
    private readonly log: Logger,
    /** The queue namespace whose rows the relay sweeps (the outbox may hold other namespaces' rows). */
    private readonly namespace: string,
  ) {}

  private async enqueue(row: OutboxRow): Promise<void> {
    // To the tenant's shard, with the priority its recent share of the queue earns (fairness.ts).
    await this.queues.add(row.queue, row.tenant_id, row.job_name, row.payload, jobIdOf(row));
  }

  /** Enqueues the given rows now (right after commit). Failures stay in the outbox for the relay. */
  dispatch(rows: OutboxRow[]): Promise<void> {
    const p = this.dispatchNow(rows).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
    return p;
  }

  /** Waits for after-commit enqueues still in flight (before closing the queues at shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async dispatchNow(rows: OutboxRow[]): Promise<void> {
    const done: number[] = [];
    try {
      // A row the relay got to first is enqueued again harmlessly: the job id is the same.
      for (const row of rows) {
        await this.enqueue(row);
        done.push(row.id);
      }
    } catch (err) {
      this.log.warn(
        { err: { message: (err as Error).message }, outboxIds: rows.map((r) => r.id) },
        'enqueue after commit failed; the relay will retry',
      );
    }
    if (done.length) await this.markEnqueued(done);
  }

  /**
   * Marks rows enqueued. Rows enqueued while an update is running wait and go together in the
   * next one, so under load many after-commit dispatches share one statement.
   */
  private markEnqueued(ids: number[]): Promise<void> {
    this.unmarked.push(...ids);
    this.marking ??= this.markPending();
    return this.marking;
  }

  private async markPending(): Promise<void> {
    try {
      while (this.unmarked.length) {
        // Bounded: a statement has at most 65,535 parameters.
        const batch = this.unmarked.splice(0, 5000);
        try {
          await markEnqueued(this.knex, batch);
        } catch (err) {
          // The jobs are queued; the relay may queue them again, which their job ids make a no-op.
          this.log.warn({ err: { message: (err as Error).message }, outboxIds: batch }, 'could not mark outbox rows enqueued');
        }
      }
    } finally {
      // In the same turn as the last emptiness check: no id pushed after it can be left behind.
      this.marking = undefined;
    }
  }

  /**
   * Relay: enqueues rows older than `minAgeMs` that are still pending. Rows are locked with
   * SKIP LOCKED so several workers can sweep at once without double work. Returns how many
   * rows were enqueued; stops at the first enqueue failure (the queue is down).
   */
  async sweep(limit = 200, minAgeMs = 1000): Promise<number> {
    return this.knex.transaction(async (trx) => {
      const rows = await lockPendingRows(trx, this.namespace, minAgeMs, limit);
      let done = 0;
      for (const row of rows) {
        try {
          await this.enqueue(row);
        } catch (err) {
          const message = String((err as Error).message).slice(0, 500);
          await recordEnqueueFailure(trx, row.id, message);
          this.log.warn({ err: { message }, outboxId: row.id }, 'outbox relay could not enqueue; will retry');
          break;
        }
        await markRowEnqueued(trx, row.id);
        done++;
      }
      return done;
    });
  }

  /**
   * Enqueues `queue`'s pending rows now, however new, claimed first so that no lock is held
   * while they are enqueued (side by side); answers how many went. Rows that fail are given back
   * for the next sweep.
   */
  async enqueuePending(queue: QueueName, limit = 500): Promise<number> {
    const rows = await claimPendingRows(this.knex, this.namespace, queue, limit);
    const results = await Promise.allSettled(rows.map((row) => this.enqueue(row)));
    const failed = rows.filter((_, i) => results[i]!.status === 'rejected');
    if (failed.length) {
      const reason = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as Error;
      const message = String(reason?.message).slice(0, 500);
      await unclaimRows(
        this.knex,
        failed.map((r) => r.id),
        message,
      );
      this.log.warn({ err: { message }, queue, failed: failed.length }, 'could not enqueue outbox rows; the relay will retry');
    }
    return rows.length - failed.length;
  }

  /** Deletes rows enqueued and settled more than `days` ago (open rows stay for the reconciler). */
  async prune(days = 7): Promise<number> {
    return pruneSettled(this.knex, days);
  }
}

/**
 * Closes the outbox row of a job that completed: its work is done, the reconciler need not
 * follow it. Best effort by design: a row left open is settled by the reconciler's next look.
 */
export async function settleJob(knex: Knex, jobId: string): Promise<void> {
  await settleByJobIds(knex, settledIdsOf(jobId));
}

/**
 * The job ids whose outbox row a completed job settles. A job the reconciler queued again
 * (`<id>-q<n>`) can complete before the reconciler's transaction commits the row's new job id:
 * matching the first id too, the update waits for that commit and then settles the row by its new id.
 */
function settledIdsOf(jobId: string): string[] {
  const original = jobId.replace(/-q\d+$/, '');
  return [...new Set([jobId, original])];
}

/**
 * The settle of a completed job's outbox row as a statement not run, for the job's last write to
 * carry (`db.with('settled', settleStatement(db, jobId))`): one statement and one commit instead of
 * two. A job that does so says `settled: true` in its result, and `settleJob` is not run for it.
 */
export function settleStatement(db: Db, jobId: string) {
  return settleByJobIdsStatement(db, settledIdsOf(jobId));
}

/** Whether a job's result says its outbox row is settled already (see {@link settleStatement}). */
export const settledByJob = (result: unknown): boolean =>
  typeof result === 'object' && result !== null && (result as { settled?: unknown }).settled === true;

/**
 * Sweeps `queue`'s pending rows as soon as the database announces some (`outbox` on the changes
 * channel, sent by the triggers that write them at commit): rows no process dispatches after its
 * own commit (webhook deliveries) are queued within moments instead of at the relay's next tick.
 * Announcements that come during a sweep fold into one more sweep. The periodic relay still covers
 * any announcement missed (the listener reconnecting).
 */
export function sweepOnNotice(
  dispatcher: OutboxDispatcher,
  changes: { onChange(handler: (payload: string) => void): void },
  queue: QueueName,
  log: Logger,
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const run = async (): Promise<void> => {
    do {
      again = false;
      try {
        while ((await dispatcher.enqueuePending(queue, 500)) === 500 && !stopped);
      } catch (err) {
        log.warn({ err: { message: (err as Error).message }, queue }, 'outbox sweep on notice failed; the relay will retry');
      }
    } while (again && !stopped);
  };
  changes.onChange((payload) => {
    if (payload !== 'outbox' || stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = run().finally(() => (running = undefined));
  });
  return {
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** Periodic relay loop used by the worker process. */
export function startRelay(dispatcher: OutboxDispatcher, everyMs: number, log: Logger): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let ticks = 0;
  const timer = setInterval(() => {
    running = running
      .then(async () => {
        const n = await dispatcher.sweep();
        if (n > 0) log.info({ enqueued: n }, 'outbox relay enqueued pending jobs');
        if (++ticks % 720 === 0) await dispatcher.prune();
      })
      .catch((err: Error) => log.warn({ err: { message: err.message } }, 'outbox relay tick failed'));
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
