import type { Db } from '../../platform/db/knex.js';
import { User } from '../users/users.data.js';

/** A tenant's headline counters. */
export interface TenantStats {
  users: number;
  contacts: number;
  companies: number;
}

// TODO(H3): take the contacts and companies table names from the crm module's models once it has them.
const CONTACTS = 'contacts';
const COMPANIES = 'companies';

/** Counts the tenant's headline records in one statement (runs on a tenant transaction). */
export function countTenantRecords(db: Db): Promise<TenantStats> {
  return db
    .select(
      db.raw(`(select count(*) from ${User.tableName})::int as users`),
      db.raw(`(select count(*) from ${CONTACTS} where not is_deleted)::int as contacts`),
      db.raw(`(select count(*) from ${COMPANIES})::int as companies`),
    )
    .first<TenantStats>();
}
