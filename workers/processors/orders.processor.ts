import type { Job } from 'bullmq';
import { AppError, NotFoundError } from '../../src/errors.js';
import type { JobPayloads } from '../../src/jobs/queues.js';
import { invoiceOrder, markOrderFailed, registerOrder, type StepOutcome } from '../../src/modules/orders/order-processing.service.js';
import type { Runtime } from '../../src/runtime.js';
import { withTenant } from '../../src/tenancy/with-tenant.js';

type OrderJob = Job<JobPayloads['orders'] | JobPayloads['invoices']>;

/**
 * The order steps as BullMQ processors: `orders` registers, `invoices` invoices. Each runs in
 * its tenant's transaction (jobs it adds go out after commit). A permanent failure (a 4xx-like
 * AppError such as a full event), or the last attempt of a transient one, marks the order
 * failed with a reason; ops can run it again with `orders:retry`. The reason never carries
 * internals: a transient error's message stays in the worker log.
 */
export function orderStepProcessor(rt: Pick<Runtime, 'knex' | 'registry' | 'dispatcher' | 'log'>, step: 'register' | 'invoice') {
  return async (job: OrderJob): Promise<StepOutcome> => {
    const { tenantId, orderId } = job.data;
    const tenant = await rt.registry.byId(tenantId);
    if (!tenant) throw new NotFoundError(`Tenant ${tenantId} no longer exists`, 'tenant_not_found');
    try {
      return await withTenant(rt.knex, tenant, (db) => (step === 'register' ? registerOrder(db, tenant.id, orderId) : invoiceOrder(db, orderId)), {
        dispatcher: rt.dispatcher,
      });
    } catch (err) {
      const permanent = err instanceof AppError && err.status < 500;
      const attempts = job.opts.attempts ?? 1;
      if (permanent || job.attemptsMade + 1 >= attempts) {
        const reason = permanent
          ? (err as AppError).message
          : `The ${step} step failed ${attempts} times; the last error is in the worker log (job ${job.id})`;
        rt.log.warn({ tenantId, orderId, step, jobId: job.id, err: { message: (err as Error).message } }, 'order marked failed');
        await withTenant(rt.knex, tenant, (db) => markOrderFailed(db, orderId, permanent ? (err as AppError).code : `${step}_failed`, reason));
      }
      throw err;
    }
  };
}
