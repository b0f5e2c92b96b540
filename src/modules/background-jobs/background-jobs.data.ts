import type { Db } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import { BaseModel } from '../../platform/db/model.js';

/**
 * Background jobs: the only file that names the `background_jobs` table. Every function takes
 * the transaction first.
 */

export const BACKGROUND_JOB_STATES = ['queued', 'running', 'completed', 'failed'] as const;
export type BackgroundJobState = (typeof BACKGROUND_JOB_STATES)[number];

/** Something a job could not do: for one event, or for the whole job (eventId null). */
export interface BackgroundJobError {
  eventId: number | null;
  message: string;
}

export class BackgroundJob extends BaseModel {
  static override tableName = 'background_jobs';

  declare id: number;
  declare kind: 'apply_course_template';
  declare state: BackgroundJobState;
  declare course_template_id: number | null;
  /** The events the job works through, fixed when it is asked for, in the order it takes them. */
  declare event_ids: number[];
  /** How far it got: the events before this position are done (kept with each batch's commit). */
  declare processed: number;
  declare errors: BackgroundJobError[];
  declare created_by_user_id: number | null;
  declare created_on: string;
  declare started_on: string | null;
  declare finished_on: string | null;
}

export type BackgroundJobRow = Pick<
  BackgroundJob,
  | 'id'
  | 'kind'
  | 'state'
  | 'course_template_id'
  | 'event_ids'
  | 'processed'
  | 'errors'
  | 'created_by_user_id'
  | 'created_on'
  | 'started_on'
  | 'finished_on'
>;

export async function insertApplyJob(db: Db, templateId: number, eventIds: number[], userId: number | null): Promise<BackgroundJobRow> {
  const [job] = (await db(BackgroundJob.tableName)
    .insert({ kind: 'apply_course_template', course_template_id: templateId, event_ids: eventIds, created_by_user_id: userId })
    .returning('*')) as BackgroundJobRow[];
  return job!;
}

/** The job, locked while a batch of it runs. */
export function lockBackgroundJob(db: Db, id: number): Promise<BackgroundJobRow | undefined> {
  return db(BackgroundJob.tableName).where({ id }).forUpdate().first<BackgroundJobRow | undefined>();
}

/** Records a batch done: how far the job got, what it could not do, when it started and whether it finished. */
export async function recordBatch(
  db: Db,
  id: number,
  batch: { processed: number; finished: boolean; errors?: BackgroundJobError[]; started: boolean },
): Promise<void> {
  await db(BackgroundJob.tableName)
    .where({ id })
    .update({
      state: batch.finished ? 'completed' : 'running',
      processed: batch.processed,
      ...(batch.errors ? { errors: JSON.stringify(batch.errors) } : {}),
      ...(batch.started ? {} : { started_on: utcNow(db) }),
      ...(batch.finished ? { finished_on: utcNow(db) } : {}),
    });
}

/** Marks a job failed unless it has finished, adding `error` to its errors. */
export async function markFailed(db: Db, id: number, error: BackgroundJobError): Promise<void> {
  await db(BackgroundJob.tableName)
    .where({ id })
    .whereNotIn('state', ['completed', 'failed'])
    .update({ state: 'failed', finished_on: utcNow(db), errors: db.raw(`errors || ?::jsonb`, [JSON.stringify([error])]) });
}

export function backgroundJobState(db: Db, id: number): Promise<Pick<BackgroundJob, 'state'> | undefined> {
  return db(BackgroundJob.tableName).where({ id }).first<Pick<BackgroundJob, 'state'> | undefined>('state');
}

/** Background jobs by id (a page's batch). */
export function backgroundJobsByIds(db: Db, ids: readonly number[]): Promise<BackgroundJobRow[]> {
  return db(BackgroundJob.tableName).whereIn('id', ids as number[]);
}
