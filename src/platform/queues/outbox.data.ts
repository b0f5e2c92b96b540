import type { ModelObject } from 'objection';
import { queueNamespaceOf, type Db, type Knex } from '../db/knex.js';
import { BaseModel } from '../db/model.js';
import { PLATFORM_SCHEMA } from '../tenancy/tenant.js';
import type { JobPayloads, QueueName } from './queues.js';

/**
 * The transactional outbox (`platform.outbox`): a job to enqueue once the transaction that wrote
 * the row commits, open until the job's work is done. The only file that names the table; the
 * dispatcher and relay (outbox.ts) and the reconciler (reconciler.ts) call these functions.
 */
export class OutboxEntry extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.outbox`;

  declare id: number;
  declare tenant_id: number;
  declare queue: QueueName;
  declare job_name: string;
  /** Deterministic job id; null for a job not followed by the reconciler (settled at once). */
  declare job_id: string | null;
  declare payload: JobPayloads[QueueName];
  declare created_at: Date;
  declare enqueued_at: Date | null;
  declare attempts: number;
  declare last_error: string | null;
  /** QUEUE_PREFIX of the process that wrote it (written by {@link insertOutboxRow}; see migrations/platform/005). */
  declare queue_namespace: string;
  declare settled_at: Date | null;
  declare checked_at: Date;
  declare requeues: number;
}

export type OutboxRecord = ModelObject<OutboxEntry>;

const TABLE = OutboxEntry.tableName;

/**
 * Writes an outbox row in `db`'s transaction; returns its id. Runs with every write that queues
 * a job (orders): one insert, as it always was. The row belongs to the queue namespace of the
 * pool `db` runs on.
 */
export async function insertOutboxRow(
  db: Db,
  row: { tenant_id: number; queue: QueueName; job_name: string; job_id: string | null; payload: unknown },
): Promise<number> {
  // Named in the row, not left to the column's default (a session setting, which a pooler in
  // transaction mode shares between processes). A pool with none keeps the default ('lectern').
  const namespace = queueNamespaceOf(db);
  const [inserted] = await db(TABLE)
    // A job without an id of its own (a statistics refresh) is not followed by the reconciler.
    .insert({
      tenant_id: row.tenant_id,
      queue: row.queue,
      job_name: row.job_name,
      job_id: row.job_id,
      payload: JSON.stringify(row.payload),
      ...(namespace ? { queue_namespace: namespace } : {}),
      ...(row.job_id ? {} : { settled_at: db.fn.now() }),
    })
    .returning<{ id: number }[]>('id');
  if (!inserted) throw new Error('outbox insert returned no id');
  return inserted.id;
}

/** Marks rows enqueued (those not marked already). */
export async function markEnqueued(db: Db, ids: number[]): Promise<void> {
  await db(TABLE).whereIn('id', ids).whereNull('enqueued_at').update({ enqueued_at: db.fn.now() });
}

/**
 * The relay's batch: rows of `namespace` still pending after `minAgeMs`, oldest first, locked
 * (SKIP LOCKED, so several workers sweep at once without double work). Run in a transaction.
 */
export function lockPendingRows(trx: Knex.Transaction, namespace: string, minAgeMs: number, limit: number): Promise<OutboxRecord[]> {
  return trx<OutboxRecord>(TABLE)
    .where('queue_namespace', namespace)
    .whereNull('enqueued_at')
    .where('created_at', '<', trx.raw(`now() - make_interval(secs => ?)`, [minAgeMs / 1000]))
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked();
}

/**
 * Claims up to `limit` pending rows of `queue` (oldest first) by marking them enqueued, in one
 * statement that commits at once, and answers them: the caller enqueues them with no lock held,
 * so jobs that complete meanwhile settle their rows without waiting. Rows it then fails to
 * enqueue are given back ({@link unclaimRows}); rows of a process that dies before enqueuing are
 * the reconciler's (their jobs are missing, their work still pending).
 */
export async function claimPendingRows(db: Db, namespace: string, queue: QueueName, limit: number): Promise<OutboxRecord[]> {
  const { rows } = await db.raw<{ rows: OutboxRecord[] }>(
    `update ?? set enqueued_at = now() where id in (
       select id from ?? where queue_namespace = ? and queue = ? and enqueued_at is null order by id limit ? for update skip locked)
     returning id, tenant_id, queue, job_name, job_id, payload`,
    [TABLE, TABLE, namespace, queue, limit],
  );
  return rows;
}

/** Gives back claimed rows that could not be enqueued: pending again, the failure counted. */
export async function unclaimRows(db: Db, ids: number[], message: string): Promise<void> {
  await db(TABLE)
    .whereIn('id', ids)
    .update({ enqueued_at: null, attempts: db.raw('attempts + 1'), last_error: message });
}

/** The relay could not enqueue a row: counted, with the reason. */
export async function recordEnqueueFailure(db: Db, id: number, message: string): Promise<void> {
  await db(TABLE)
    .where({ id })
    .update({ attempts: db.raw('attempts + 1'), last_error: message });
}

/** The relay enqueued a row. */
export async function markRowEnqueued(db: Db, id: number): Promise<void> {
  await db(TABLE).where({ id }).update({ enqueued_at: db.fn.now(), last_error: null });
}

/** Deletes rows enqueued and settled more than `days` ago; returns how many. */
export function pruneSettled(db: Db, days: number): Promise<number> {
  return db(TABLE)
    .whereNotNull('enqueued_at')
    .whereNotNull('settled_at')
    .where('settled_at', '<', db.raw(`now() - make_interval(days => ?)`, [days]))
    .delete();
}

/** Settles the open rows of these job ids (a job completed). */
export async function settleByJobIds(db: Db, jobIds: string[]): Promise<void> {
  await settleByJobIdsStatement(db, jobIds);
}

/**
 * The statement that settles the rows of these jobs, not run: for a statement of the job's own to
 * carry it (`db.with('settled', ...)`), so its write and the settle commit as one.
 */
export function settleByJobIdsStatement(db: Db, jobIds: string[]) {
  return db(TABLE).whereIn('job_id', jobIds).whereNull('settled_at').update({ settled_at: db.fn.now() });
}

/** An open row as the reconciler looks at it (the tenant picks the queue shard its job is in). */
export type OpenOutboxRow = Pick<OutboxRecord, 'id' | 'tenant_id' | 'queue' | 'job_name' | 'payload' | 'requeues'> & { job_id: string };

/**
 * The reconciler's batch: open, enqueued rows of `namespace` not looked at for `afterMs`, oldest
 * look first, locked (SKIP LOCKED). Run in a transaction.
 */
export function lockOpenRowsDue(trx: Knex.Transaction, namespace: string, afterMs: number, limit: number): Promise<OpenOutboxRow[]> {
  return trx<OpenOutboxRow>(TABLE)
    .where('queue_namespace', namespace)
    .whereNull('settled_at')
    .whereNotNull('enqueued_at')
    .whereNotNull('job_id')
    .where('checked_at', '<', trx.raw('now() - make_interval(secs => ?)', [afterMs / 1000]))
    .orderBy('checked_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .select('id', 'tenant_id', 'queue', 'job_name', 'job_id', 'payload', 'requeues');
}

/** The reconciler settles a row (its work is done, failed for good, or gone). */
export async function settleRow(db: Db, id: number): Promise<void> {
  await db(TABLE).where({ id }).update({ settled_at: db.fn.now(), checked_at: db.fn.now() });
}

/** The reconciler found the row's job alive: look again later. */
export async function markRowChecked(db: Db, id: number): Promise<void> {
  await db(TABLE).where({ id }).update({ checked_at: db.fn.now() });
}

/** The reconciler queued the row's job again under a new id. */
export async function markRowRequeued(db: Db, id: number, jobId: string, requeues: number): Promise<void> {
  await db(TABLE).where({ id }).update({ job_id: jobId, requeues, checked_at: db.fn.now() });
}

/** How long the oldest open row of `queue` has waited (its work not done yet), in ms; null when none is open. */
export async function oldestOpenAgeMs(db: Db, namespace: string, queue: QueueName): Promise<number | null> {
  const row = await db(TABLE)
    .where({ queue_namespace: namespace, queue })
    .whereNull('settled_at')
    .first<{ age: string | null } | undefined>(db.raw('extract(epoch from now() - min(created_at)) * 1000 as age'));
  return row?.age == null ? null : Number(row.age);
}
