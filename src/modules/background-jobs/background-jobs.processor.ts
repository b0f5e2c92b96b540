import { DelayedError, type Job } from 'bullmq';
import { AppError, NotFoundError } from '../../platform/errors.js';
import type { JobPayloads } from '../../platform/queues/queues.js';
import { failBackgroundJob, runBackgroundBatch } from './background-jobs.service.js';
import type { PlatformRuntime } from '../../platform/runtime.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';

type BackgroundJob = Job<JobPayloads['course-templates']>;

/**
 * Re-applying a course template to its events (contract rule 8), batch by batch: each batch is
 * one transaction that re-inherits its events and records the job's progress, so hundreds of
 * events never sit in one long transaction, the caller sees progress, and a worker that dies
 * mid-way leaves the batches it committed done and the next worker picks up after them. A job
 * that runs again after it finished changes nothing. When the worker is asked to stop
 * (`stopping()`), the job goes back to the queue after the batch in hand, so a shutdown never
 * waits for a whole job and a deploy does not count as a stall.
 */
export function courseTemplatesProcessor(
  rt: Pick<PlatformRuntime, 'knex' | 'registry' | 'config' | 'log'>,
  stopping: () => boolean = () => false,
) {
  return async (job: BackgroundJob, token?: string): Promise<{ state: string }> => {
    const { tenantId, backgroundJobId } = job.data;
    const tenant = await rt.registry.byId(tenantId);
    if (!tenant) throw new NotFoundError(`Tenant ${tenantId} no longer exists`, 'tenant_not_found');
    try {
      for (;;) {
        const batch = await withTenant(rt.knex, tenant, (db) => runBackgroundBatch(db, backgroundJobId, rt.config.applyBatchSize), {
          via: { context: 'worker' },
        });
        if (batch.finished) return { state: batch.state };
        if (stopping() && token) {
          // Back to the queue at once, for another worker (or this one after its restart) to go on.
          await job.moveToDelayed(Date.now(), token);
          throw new DelayedError('Handed back: the worker is stopping');
        }
        // Keeps BullMQ's view of the job alive and visible on the queue dashboard.
        await job.updateProgress({ backgroundJobId });
      }
    } catch (err) {
      if (err instanceof DelayedError) throw err;
      const permanent = err instanceof AppError && err.status < 500;
      if (permanent || job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
        await markFailedBackgroundJob(rt)(job, false).catch((markErr: Error) =>
          rt.log.warn({ tenantId, backgroundJobId, err: { message: markErr.message } }, 'could not mark a background job failed'),
        );
      }
      throw err;
    }
  };
}

/** Marks the background job of a queue job that failed for good (by the processor, or by BullMQ itself: stalled). */
export function markFailedBackgroundJob(rt: Pick<PlatformRuntime, 'knex' | 'registry'>) {
  return async (job: BackgroundJob, stalled: boolean): Promise<void> => {
    const tenant = await rt.registry.byId(job.data.tenantId);
    if (!tenant) return;
    const reason = stalled
      ? 'The job was cut off repeatedly (its worker stopped while running it); ask for it again'
      : `The job failed; the error is in the worker log (background job ${job.data.backgroundJobId})`;
    await withTenant(rt.knex, tenant, (db) => failBackgroundJob(db, job.data.backgroundJobId, reason));
  };
}
