import type { Db } from '../db/knex.js';
import { assertTenantSchema } from './slug.js';
import { PLATFORM_SCHEMA } from './tenant.js';

/**
 * A tenant's access generation (platform migration 009, tenant migration 016): a counter that
 * every change able to end a cached user or access token of the tenant moves in its own
 * transaction, and that is null once the tenant is not active. A request reads the committed one
 * with its first statement; a user or token served from a process's cache was read at some
 * generation, and is read again when that is not the committed one (see withRequestDb and
 * ListenedCache). These are the SQL expressions for it: trusted text, with no value from a request
 * in them but integers and hex digests.
 */

/** The access generation of tenant `tenantId` (null when it is not active). */
export function accessGenerationSql(tenantId: number): string {
  if (!Number.isSafeInteger(tenantId)) throw new Error(`not a tenant id: ${tenantId}`);
  return `${PLATFORM_SCHEMA}.access_generation(${tenantId})`;
}

/** The access generation of the tenant of the access token whose SHA-256 hash (hex) is `tokenHash`. */
export function tokenAccessGenerationSql(tokenHash: string): string {
  if (!/^[0-9a-f]{64}$/.test(tokenHash)) throw new Error('not a token hash');
  return `${PLATFORM_SCHEMA}.token_access_generation('${tokenHash}')`;
}

/**
 * Whether changes of the tenant's users and roles move its access generation (the triggers of
 * tenant migration 016): only then may a process cache its users. A schema whose migration
 * failed has not.
 */
export async function identityChangesCounted(db: Db, schema: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { n: number }[] }>(
    `select count(*)::int as n from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = ? and ((c.relname = 'users' and t.tgname = 'users_counted') or (c.relname = 'roles' and t.tgname = 'roles_counted'))`,
    [assertTenantSchema(schema)],
  );
  return rows[0]?.n === 2;
}
