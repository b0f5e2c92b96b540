import type { Db } from '../../platform/db/knex.js';

/**
 * The tenant's headline counters: a read model over other modules' tables.
 *
 * @uses users, contacts, companies: the counts are read in one statement
 */

/** A tenant's headline counters. */
export interface TenantStats {
  users: number;
  contacts: number;
  companies: number;
}

/** Counts the tenant's headline records in one statement (runs on a tenant transaction). */
export function countTenantRecords(db: Db): Promise<TenantStats> {
  return db
    .select(
      db.raw('(select count(*) from users)::int as users'),
      db.raw('(select count(*) from contacts where not is_deleted)::int as contacts'),
      db.raw('(select count(*) from companies)::int as companies'),
    )
    .first<TenantStats>();
}
