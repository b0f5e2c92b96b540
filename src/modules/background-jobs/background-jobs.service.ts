import type { Db } from '../../platform/db/knex.js';
import { addToOutbox } from '../../platform/queues/outbox.js';
import { readInheritance, reinheritEvents } from '../events/events.service.js';

/**
 * Background jobs: work a request asks for and the worker does, with a handle the caller polls
 * (`backgroundJob(id) { state progress errors }`). Today one kind: re-applying a course template
 * to its events (contract rule 8). The job row fixes the events at the time it is asked for and
 * records how far the worker got with each batch's own commit, so a worker that dies resumes at
 * the next batch, and a job that runs again changes nothing more.
 */

export const BACKGROUND_JOB_STATES = ['queued', 'running', 'completed', 'failed'] as const;

export interface BackgroundJobRow {
  id: number;
  kind: 'apply_course_template';
  state: (typeof BACKGROUND_JOB_STATES)[number];
  course_template_id: number | null;
  event_ids: number[];
  processed: number;
  errors: { eventId: number | null; message: string }[];
  created_by_user_id: number | null;
  created_on: string;
  started_on: string | null;
  finished_on: string | null;
}

const utcNow = (db: Db) => db.raw(`(now() at time zone 'utc')`);

/** Job id of a background job in the `course-templates` queue (deterministic, no `:`). */
export const backgroundQueueJobId = (tenantId: number, id: number) => `bg-${tenantId}-${id}`;

/**
 * Asks for `templateId` to be re-applied to `eventIds` (all its events when null), in id order.
 * The job is queued after the caller's transaction commits.
 */
export async function requestApplyCourseTemplate(db: Db, tenantId: number, templateId: number, eventIds: number[] | null, userId: number | null): Promise<BackgroundJobRow> {
  const targets: number[] = eventIds ?? (await db('events').where({ course_template_id: templateId }).orderBy('id').pluck('id'));
  const [job] = (await db('background_jobs')
    .insert({ kind: 'apply_course_template', course_template_id: templateId, event_ids: [...new Set(targets)].sort((a, b) => a - b), created_by_user_id: userId })
    .returning('*')) as BackgroundJobRow[];
  await addToOutbox(db, tenantId, { queue: 'course-templates', name: 'apply', data: { tenantId, backgroundJobId: job!.id }, jobId: backgroundQueueJobId(tenantId, job!.id) });
  return job!;
}

/**
 * One batch of a background job, in the caller's transaction: the next `batchSize` events are
 * re-inherited and the job's progress moves past them in the same commit. Answers whether the
 * job has finished (done now, or already).
 */
export async function runBackgroundBatch(db: Db, id: number, batchSize: number): Promise<{ finished: boolean; state: BackgroundJobRow['state'] }> {
  const job = await db('background_jobs').where({ id }).forUpdate().first<BackgroundJobRow | undefined>();
  if (!job) return { finished: true, state: 'failed' };
  if (job.state === 'completed' || job.state === 'failed') return { finished: true, state: job.state };
  const batch = job.event_ids.slice(job.processed, job.processed + batchSize);
  const from = job.course_template_id === null ? undefined : await readInheritance(db, job.course_template_id);
  const updated = from ? await reinheritEvents(db, from, batch) : [];
  const missing = batch.filter((eventId) => !updated.includes(eventId)).map((eventId) => ({ eventId, message: 'The event no longer exists or no longer belongs to this Course Template' }));
  const processed = job.processed + batch.length;
  const finished = processed >= job.event_ids.length;
  await db('background_jobs')
    .where({ id })
    .update({
      state: finished ? 'completed' : 'running',
      processed,
      ...(missing.length ? { errors: JSON.stringify([...job.errors, ...missing]) } : {}),
      ...(job.started_on ? {} : { started_on: utcNow(db) }),
      ...(finished ? { finished_on: utcNow(db) } : {}),
    });
  return { finished, state: finished ? 'completed' : 'running' };
}

/** Marks a job failed, keeping what it did; the reason is for people (no internals). */
export async function failBackgroundJob(db: Db, id: number, message: string): Promise<void> {
  await db('background_jobs')
    .where({ id })
    .whereNotIn('state', ['completed', 'failed'])
    .update({ state: 'failed', finished_on: utcNow(db), errors: db.raw(`errors || ?::jsonb`, [JSON.stringify([{ eventId: null, message: message.slice(0, 1000) }])]) });
}

/** Whether a background job still needs its queue job's work: it is queued or running. */
export async function backgroundJobNeedsWork(db: Db, id: number): Promise<boolean> {
  const row = await db('background_jobs').where({ id }).first<{ state: BackgroundJobRow['state'] } | undefined>('state');
  return row?.state === 'queued' || row?.state === 'running';
}
