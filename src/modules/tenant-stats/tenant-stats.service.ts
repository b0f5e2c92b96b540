import type { Db } from '../../platform/db/knex.js';
import { addToOutbox } from '../../platform/queues/outbox.js';
import { saveTenantStats as saveStats } from '../../platform/tenancy/tenants.data.js';

export interface TenantStats {
  users: number;
  contacts: number;
  companies: number;
}

/** Counts the tenant's headline records (runs on a tenant transaction). */
export async function countTenantRecords(db: Db): Promise<TenantStats> {
  const row = await db
    .select(
      db.raw('(select count(*) from users)::int as users'),
      db.raw('(select count(*) from contacts where not is_deleted)::int as contacts'),
      db.raw('(select count(*) from companies)::int as companies'),
    )
    .first<TenantStats>();
  return row;
}

/** Stores the counters in the platform registry, where `tenants:list` shows them. */
export async function saveTenantStats(db: Db, tenantId: number, stats: TenantStats): Promise<void> {
  await saveStats(db, tenantId, stats);
}

/** Asks the worker to refresh the tenant's counters after this transaction commits. */
export function requestTenantStats(db: Db, tenantId: number): Promise<number> {
  return addToOutbox(db, tenantId, { queue: 'tenant-stats', name: 'refresh', data: { tenantId } });
}
