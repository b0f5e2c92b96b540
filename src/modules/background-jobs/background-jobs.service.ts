import type { Db } from '../../platform/db/knex.js';
import type { Problem } from '../../platform/problems.js';
import { addToOutbox } from '../../platform/queues/outbox.js';
import { eventsOfTemplate, templateEventIds, readInheritance, reinheritEvents } from '../events/index.js';
import {
  backgroundJobState,
  insertApplyJob,
  lockBackgroundJob,
  markFailed,
  recordBatch,
  type BackgroundJobRow,
} from './background-jobs.data.js';

export { BACKGROUND_JOB_STATES, type BackgroundJobRow } from './background-jobs.data.js';

/**
 * Background jobs: work a request asks for and the worker does, with a handle the caller polls
 * (`backgroundJob(id) { state progress errors }`). Today one kind: re-applying a course template
 * to its events (contract rule 8). The job row fixes the events at the time it is asked for and
 * records how far the worker got with each batch's own commit, so a worker that dies resumes at
 * the next batch, and a job that runs again changes nothing more.
 */

/** Job id of a background job in the `course-templates` queue (deterministic, no `:`). */
export const backgroundQueueJobId = (tenantId: number, id: number) => `bg-${tenantId}-${id}`;

/**
 * Asks for `templateId` to be re-applied to `eventIds` (all its events when null), in id order.
 * The job is queued after the caller's transaction commits.
 */
export async function requestApplyCourseTemplate(
  db: Db,
  tenantId: number,
  templateId: number,
  eventIds: number[] | null,
  userId: number | null,
): Promise<BackgroundJobRow> {
  const targets: number[] = eventIds ?? (await templateEventIds(db, templateId));
  const job = await insertApplyJob(
    db,
    templateId,
    [...new Set(targets)].sort((a, b) => a - b),
    userId,
  );
  await addToOutbox(db, tenantId, {
    queue: 'course-templates',
    name: 'apply',
    data: { tenantId, backgroundJobId: job.id },
    jobId: backgroundQueueJobId(tenantId, job.id),
  });
  return job;
}

/**
 * `courseTemplate.applyToEvents` once the template is found: `eventIds` (undefined where the
 * caller's id named no event; null for all its events) must all be events of the template, else a
 * problem for each that is not, on `eventIds[<i>]` with the id (or null).
 */
export async function applyCourseTemplate(
  db: Db,
  request: { tenantId: number; templateId: number; userId: number | null },
  eventIds: (number | undefined)[] | null,
): Promise<{ job: BackgroundJobRow | null; problems: Problem[] }> {
  let targets: number[] | null = null;
  if (eventIds !== null) {
    const known = new Set<number>(
      await eventsOfTemplate(
        db,
        request.templateId,
        eventIds.filter((id): id is number => id !== undefined),
      ),
    );
    const problems = eventIds.flatMap((id, i) =>
      id !== undefined && known.has(id)
        ? []
        : [{ field: `eventIds[${i}]`, value: id ?? null, message: 'Event not found among the events of this Course Template' }],
    );
    if (problems.length) return { job: null, problems };
    targets = [...known];
  }
  return { job: await requestApplyCourseTemplate(db, request.tenantId, request.templateId, targets, request.userId), problems: [] };
}

/**
 * One batch of a background job, in the caller's transaction: the next `batchSize` events are
 * re-inherited and the job's progress moves past them in the same commit. Answers whether the
 * job has finished (done now, or already).
 */
export async function runBackgroundBatch(
  db: Db,
  id: number,
  batchSize: number,
): Promise<{ finished: boolean; state: BackgroundJobRow['state'] }> {
  const job = await lockBackgroundJob(db, id);
  if (!job) return { finished: true, state: 'failed' };
  if (job.state === 'completed' || job.state === 'failed') return { finished: true, state: job.state };
  const batch = job.event_ids.slice(job.processed, job.processed + batchSize);
  const from = job.course_template_id === null ? undefined : await readInheritance(db, job.course_template_id);
  const updated = from ? await reinheritEvents(db, from, batch) : [];
  const missing = batch
    .filter((eventId) => !updated.includes(eventId))
    .map((eventId) => ({ eventId, message: 'The event no longer exists or no longer belongs to this Course Template' }));
  const processed = job.processed + batch.length;
  const finished = processed >= job.event_ids.length;
  await recordBatch(db, id, {
    processed,
    finished,
    started: Boolean(job.started_on),
    ...(missing.length ? { errors: [...job.errors, ...missing] } : {}),
  });
  return { finished, state: finished ? 'completed' : 'running' };
}

/** Marks a job failed, keeping what it did; the reason is for people (no internals). */
export async function failBackgroundJob(db: Db, id: number, message: string): Promise<void> {
  await markFailed(db, id, { eventId: null, message: message.slice(0, 1000) });
}

/** Whether a background job still needs its queue job's work: it is queued or running. */
export async function backgroundJobNeedsWork(db: Db, id: number): Promise<boolean> {
  const row = await backgroundJobState(db, id);
  return row?.state === 'queued' || row?.state === 'running';
}
