import { DelayedError, type Job } from 'bullmq';
import type { PlatformRuntime } from '../../platform/runtime.js';
import type { JobPayloads } from '../../platform/queues/queues.js';
import { attemptDelivery, markDeliveryFailed, type DeliveryDeps } from './webhook-delivery.service.js';

type DeliveryJob = Job<JobPayloads['webhooks']>;

/**
 * The `webhooks` queue: one job per delivery (a webhook told of one change). A retry is the same
 * job moved to the delayed set until its time (WEBHOOK_RETRY_SCHEDULE), so its id and its outbox
 * row stay the same and the reconciler sees it alive; the attempts are counted on the delivery
 * row, not by BullMQ (whose own attempts and backoff are left for server failures of the worker).
 */
export function webhooksProcessor(rt: Pick<PlatformRuntime, 'registry'>, deps: DeliveryDeps) {
  return async (job: DeliveryJob, token?: string): Promise<{ delivered: boolean; settled?: boolean }> => {
    const { tenantId, deliveryId } = job.data;
    const tenant = await rt.registry.byId(tenantId);
    if (!tenant) return { delivered: false };
    const result = await attemptDelivery(deps, tenant, deliveryId, job.id);
    // `settled`: the delivery's record settled the job's outbox row in its statement.
    if (result.next === 'done') return { delivered: true, ...(result.settled ? { settled: true } : {}) };
    if (!token) throw new Error('a webhook delivery needs its job lock to be retried later');
    await job.moveToDelayed(result.at, token);
    throw new DelayedError('Delivery retried later');
  };
}

/** Marks the delivery of a queue job that failed for good (by BullMQ itself: stalled past its attempts). */
export function markFailedDeliveryJob(rt: Pick<PlatformRuntime, 'knex' | 'registry'>) {
  return async (job: DeliveryJob, stalled: boolean): Promise<void> => {
    const tenant = await rt.registry.byId(job.data.tenantId);
    if (!tenant) return;
    const reason = stalled
      ? 'Not sent: its worker stopped while sending it, too often'
      : 'Not sent: the worker failed (see its log); resend it once fixed';
    await markDeliveryFailed(rt.knex, tenant, job.data.deliveryId, reason);
  };
}
