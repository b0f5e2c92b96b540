import type { Job } from 'bullmq';
import { AppError, NotFoundError } from '../../platform/errors.js';
import type { JobPayloads } from '../../platform/queues/queues.js';
import { invoiceOrder, markOrderFailed, registerOrder, type StepOutcome } from './order-processing.service.js';
import type { PlatformRuntime } from '../../platform/runtime.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';

type OrderJob = Job<JobPayloads['orders'] | JobPayloads['invoices']>;

/** What an order job reports when it ends (BullMQ keeps it as the job's return value). */
export interface OrderJobResult {
  /** The state the job left the order in. */
  state: string;
}

/**
 * Marks the order of a job BullMQ failed by itself (see watchJobFailures); ops run it
 * again with `orders:retry`.
 */
export function markFailedOrderJob(rt: Pick<PlatformRuntime, 'knex' | 'registry'>) {
  return async (job: OrderJob, stalled: boolean): Promise<void> => {
    const tenant = await rt.registry.byId(job.data.tenantId);
    if (!tenant) return;
    const reason = stalled
      ? 'The order job was cut off repeatedly (its worker stopped while running it); run it again with orders:retry'
      : `The order job failed; the error is in the worker log (order ${job.data.orderId})`;
    await withTenant(rt.knex, tenant, (db) => markOrderFailed(db, job.data.orderId, stalled ? 'stalled' : 'job_failed', reason));
  };
}

/**
 * The order job: registration, then (when the tenant has the order's payment type and the order
 * carries a payment) the invoice. Each step is its own transaction in the tenant's schema that
 * locks the order and skips itself when the order is past it, so a job that runs again after a
 * crash or a retry picks up where the last run stopped: exactly one registration and at most one
 * invoice. One job per order rather than one per step: a BullMQ job costs about as much CPU as a
 * step's own work, and the second hop added its queue wait to every order's latency.
 *
 * A permanent failure (a 4xx-like AppError such as a full event), or the last attempt of a
 * transient one, marks the order failed with a reason; ops run it again with `orders:retry`.
 * The reason never carries internals: a transient error's message stays in the worker log.
 */
export function orderProcessor(rt: Pick<PlatformRuntime, 'knex' | 'registry' | 'log'>) {
  return async (job: OrderJob): Promise<OrderJobResult> => {
    const { tenantId, orderId } = job.data;
    const tenant = await rt.registry.byId(tenantId);
    if (!tenant) throw new NotFoundError(`Tenant ${tenantId} no longer exists`, 'tenant_not_found');
    const stateAfter = (o: StepOutcome) => ('done' in o ? o.done : o.skipped);
    let step: 'register' | 'invoice' = 'register';
    try {
      const state = stateAfter(await withTenant(rt.knex, tenant, (db) => registerOrder(db, orderId), { via: { context: 'worker' } }));
      if (state !== 'registered') return { state };
      step = 'invoice';
      return { state: stateAfter(await withTenant(rt.knex, tenant, (db) => invoiceOrder(db, orderId), { via: { context: 'worker' } })) };
    } catch (err) {
      await markIfFinal(rt, tenant, job, step, err);
      throw err;
    }
  };
}

async function markIfFinal(
  rt: Pick<PlatformRuntime, 'knex' | 'log'>,
  tenant: Tenant,
  job: OrderJob,
  step: 'register' | 'invoice',
  err: unknown,
): Promise<void> {
  const permanent = err instanceof AppError && err.status < 500;
  const attempts = job.opts.attempts ?? 1;
  if (!permanent && job.attemptsMade + 1 < attempts) return; // BullMQ retries it
  const { orderId } = job.data;
  const reason = permanent
    ? (err as AppError).message
    : `The ${step} step failed ${attempts} times; the last error is in the worker log (job ${job.id})`;
  rt.log.warn({ tenantId: tenant.id, orderId, step, jobId: job.id, err: { message: (err as Error).message } }, 'order marked failed');
  try {
    await withTenant(rt.knex, tenant, (db) => markOrderFailed(db, orderId, permanent ? (err as AppError).code : `${step}_failed`, reason));
  } catch (markErr) {
    // The job's own error decides how BullMQ treats it; the failure watcher marks the order later.
    rt.log.warn(
      { tenantId: tenant.id, orderId, jobId: job.id, err: { message: (markErr as Error).message } },
      'could not mark order failed',
    );
  }
}
