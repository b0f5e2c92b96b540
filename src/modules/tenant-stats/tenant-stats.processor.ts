import type { Job } from 'bullmq';
import { NotFoundError } from '../../platform/errors.js';
import type { JobPayloads } from '../../platform/queues/queues.js';
import { countTenantRecords, saveTenantStats, type TenantStats } from './tenant-stats.service.js';
import type { PlatformRuntime } from '../../platform/runtime.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';

/** Recomputes a tenant's counters. Idempotent: running it twice stores the same figures. */
export function tenantStatsProcessor(rt: Pick<PlatformRuntime, 'knex' | 'registry'>) {
  return async (job: Job<JobPayloads['tenant-stats']>): Promise<TenantStats> => {
    const tenant = await rt.registry.byId(job.data.tenantId);
    if (!tenant) throw new NotFoundError(`Tenant ${job.data.tenantId} no longer exists`, 'tenant_not_found');
    return withTenant(rt.knex, tenant, async (db) => {
      const stats = await countTenantRecords(db);
      await saveTenantStats(db, tenant.id, stats);
      return stats;
    });
  };
}
