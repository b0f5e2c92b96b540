import type { Knex } from '../../platform/db/knex.js';
import { hashSecret } from './secrets.js';
import { bearerToken } from '../../kit/http/authorization.js';
import type { TenantRegistry } from '../../platform/tenancy/registry.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { accessTokenCheck, type AccessTokenCheck } from './oauth.data.js';
import type { ListenedCache } from '../../platform/db/change-listener.js';
import { readWithValue, type RequestCheck } from '../../platform/db/transaction.js';
import { tokenAccessGenerationSql } from '../../platform/tenancy/access-generation.js';
import { AppError } from '../../platform/errors.js';

/**
 * Checks an OAuth 2.0 bearer token (RFC 6750) for the Core GraphQL API: it must be one Lectern
 * issued, not expired, not revoked, of a client that is not revoked, for an active tenant, and,
 * on a tenant's host, for that tenant. The user it acts as is read by the caller, in the
 * request's tenant transaction.
 */

export interface BearerGrant {
  tenant: Tenant;
  userId: number;
  clientId: string;
  /**
   * For the request's first statement (checkRequest), when the token came from the process's
   * cache: the token as it is now, read again only when the tenant's access generation moved.
   */
  check: RequestCheck | undefined;
}

export type BearerResult = { ok: true; grant: BearerGrant } | { ok: false; status: 401; challenge: string; message: string };

const REALM = 'Lectern GraphQL';

function refuse(message: string, tokenSent: boolean): BearerResult {
  // RFC 6750 §3: no error code when no token was sent; invalid_token when one was.
  const challenge = tokenSent
    ? `Bearer realm="${REALM}", error="invalid_token", error_description="${message}"`
    : `Bearer realm="${REALM}"`;
  return { ok: false, status: 401, challenge, message };
}

/** Why a token read from the database does not let a request in (undefined: it does). */
function tokenProblem(row: AccessTokenCheck | undefined): string | undefined {
  if (!row) return 'The access token is not valid';
  if (row.revoked_at || row.client_revoked_at) return 'The access token was revoked';
  if (row.access_expires_at.getTime() <= Date.now()) return 'The access token expired';
  return undefined;
}

/**
 * `tokens` caches what the check reads of a token, by its hash, with the access generation of its
 * tenant it was read at (the same round trip). A token from the cache comes with a check for the
 * request's first statement (`grant.check`): a revocation, an early expiry or a client change
 * since then refuses the request, from its commit on, in every process. `refused` is told the
 * challenge of such a refusal (the WWW-Authenticate header to answer with).
 */
export async function checkBearer(
  knex: Knex,
  registry: TenantRegistry,
  tokens: ListenedCache<AccessTokenCheck>,
  header: string | undefined,
  hostTenant: Tenant | undefined,
  refused: (challenge: string) => void = () => undefined,
): Promise<BearerResult> {
  const token = bearerToken(header);
  if (token === undefined) return refuse('An access token is required: send Authorization: Bearer <token>', false);
  if (token === null) return refuse('The Authorization header is not a bearer token', true);
  const hash = hashSecret(token);
  const read = (db: Knex) => accessTokenCheck(db, hash);
  const load = () => readWithValue(knex, tokenAccessGenerationSql(hash), read);
  let found = await tokens.get('tokens', hash, load);
  // A refusal is made on the token as it is now, not as cached (it may have been revoked a moment and no longer be).
  if (found?.cached && tokenProblem(found.value)) found = await tokens.refresh('tokens', hash, load);
  const row = found?.value;
  const problem = tokenProblem(row);
  if (problem || !found || !row) return refuse(problem ?? 'The access token is not valid', true);
  const tenant = await registry.byId(row.tenant_id);
  if (!tenant) return refuse('The access token is not valid', true);
  if (hostTenant && hostTenant.id !== tenant.id) return refuse('The access token is not valid for this instance', true);
  const refusal = (message: string) => {
    const r = refuse(message, true);
    if (!r.ok) refused(r.challenge);
    return new AppError(401, 'unauthenticated', message);
  };
  const check = tokens.check(
    'tokens',
    hash,
    found,
    read,
    (fresh) => {
      const now =
        tokenProblem(fresh) ??
        (fresh && (fresh.tenant_id !== row.tenant_id || fresh.user_id !== row.user_id || fresh.client_id !== row.client_id)
          ? 'The access token is not valid'
          : undefined);
      return now === undefined ? undefined : refusal(now);
    },
    () => refusal('The access token is not valid'),
  );
  return { ok: true, grant: { tenant, userId: row.user_id, clientId: row.client_id, check } };
}
