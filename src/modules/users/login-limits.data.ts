import { BaseModel } from '../../platform/db/model.js';
import type { Knex } from '../../platform/db/knex.js';
import { PLATFORM_SCHEMA } from '../../platform/tenancy/tenant.js';

/**
 * Counts of failed password checks and the waits they impose (`platform.login_limits`), the
 * shape rate-limiter-flexible's PostgreSQL store uses: the PasswordGuard's store runs every query
 * on it, told where the table is by {@link LOGIN_LIMITS_STORE}. The only file naming the table.
 */
export class LoginLimit extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.login_limits`;

  /** `<prefix>:<account>|<address>` or `<prefix>:<address>`. */
  declare key: string;
  declare points: number;
  /** Epoch milliseconds; null for a key that never expires. */
  declare expire: number | null;
}

/** Where rate-limiter-flexible's store finds the table (it exists: created by migrations/platform/004_oauth.ts). */
export const LOGIN_LIMITS_STORE = { schemaName: PLATFORM_SCHEMA, tableName: 'login_limits', tableCreated: true } as const;

/**
 * Deletes counts and waits that have expired (rate-limiter-flexible only overwrites them when the
 * same key comes back): at most `limit` rows a call, the oldest first. Returns how many went.
 */
export async function deleteExpiredLoginLimits(db: Knex, nowMs: number, limit = 10_000): Promise<number> {
  const expired = db(LoginLimit.tableName).select('key').whereNotNull('expire').where('expire', '<', nowMs).orderBy('expire').limit(limit);
  return db(LoginLimit.tableName).whereIn('key', expired).delete();
}
