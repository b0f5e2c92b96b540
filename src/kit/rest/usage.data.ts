import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { PLATFORM_SCHEMA } from '../../platform/tenancy/tenant.js';

/**
 * Calls to the retired REST API per tenant, user (0 = unauthenticated), endpoint and day
 * (`platform.legacy_usage`). The only file that names the table: the recorder (usage.ts) writes
 * it, the `legacy-usage` CLI command reads it.
 */
export class LegacyUsage extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.legacy_usage`;
  static override idColumn = ['tenant_id', 'user_id', 'endpoint', 'day'];

  declare tenant_id: number;
  declare user_id: number;
  /** A route template, `GET /api/v2/crm/contacts/:id`. */
  declare endpoint: string;
  /** A UTC date, `YYYY-MM-DD`. */
  declare day: string;
  declare calls: number;
  declare last_called_at: Date;
}

export type LegacyUsageRow = ModelObject<LegacyUsage>;

/** Adds counts: one upsert of every key of the batch. */
export async function addUsage(
  db: Db,
  rows: Pick<LegacyUsageRow, 'tenant_id' | 'user_id' | 'endpoint' | 'day' | 'calls'>[],
): Promise<void> {
  await db(LegacyUsage.tableName)
    .insert(rows)
    .onConflict(['tenant_id', 'user_id', 'endpoint', 'day'])
    .merge({ calls: db.raw('legacy_usage.calls + excluded.calls'), last_called_at: db.fn.now() });
}

/** A tenant's counts of the last `days` days, newest day first, then most calls first. */
export function usageSince(db: Db, tenantId: number, days: number): Promise<LegacyUsageRow[]> {
  return db<LegacyUsageRow>(LegacyUsage.tableName)
    .where({ tenant_id: tenantId })
    .where('day', '>=', db.raw(`current_date - ?::int`, [days]))
    .orderBy([
      { column: 'day', order: 'desc' },
      { column: 'calls', order: 'desc' },
    ]);
}
