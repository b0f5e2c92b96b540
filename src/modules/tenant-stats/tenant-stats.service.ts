import type { Db } from '../../platform/db/knex.js';
import { countTenantRecords as countRecords, type TenantStats } from './tenant-stats.data.js';
import { addToOutbox } from '../../platform/queues/outbox.js';
import { saveTenantStats as saveStats } from '../../platform/tenancy/tenants.data.js';

export type { TenantStats };

/** Counts the tenant's headline records (runs on a tenant transaction). */
export function countTenantRecords(db: Db): Promise<TenantStats> {
  return countRecords(db);
}

/** Stores the counters in the platform registry, where `tenants:list` shows them. */
export async function saveTenantStats(db: Db, tenantId: number, stats: TenantStats): Promise<void> {
  await saveStats(db, tenantId, stats);
}

/** Asks the worker to refresh the tenant's counters after this transaction commits. */
export function requestTenantStats(db: Db, tenantId: number): Promise<number> {
  return addToOutbox(db, tenantId, { queue: 'tenant-stats', name: 'refresh', data: { tenantId } });
}
