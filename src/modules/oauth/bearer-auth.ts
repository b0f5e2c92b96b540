import type { Knex } from '../../platform/db/knex.js';
import { hashSecret } from './secrets.js';
import { bearerToken } from '../../kit/http/authorization.js';
import type { TenantRegistry } from '../../platform/tenancy/registry.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { accessTokenCheck, type AccessTokenCheck } from './oauth.data.js';
import type { ListenedCache } from '../../platform/db/change-listener.js';

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
}

export type BearerResult = { ok: true; grant: BearerGrant } | { ok: false; status: 401; challenge: string; message: string };

const REALM = 'Lectern GraphQL';

function refuse(message: string, tokenSent: boolean): BearerResult {
  // RFC 6750 §3: no error code when no token was sent; invalid_token when one was.
  const challenge = tokenSent ? `Bearer realm="${REALM}", error="invalid_token", error_description="${message}"` : `Bearer realm="${REALM}"`;
  return { ok: false, status: 401, challenge, message };
}

/**
 * `tokens` caches what the check reads of a token, by its hash: the database announces every
 * revocation, early expiry or client change, which forgets them all at once (ChangeListener).
 */
export async function checkBearer(knex: Knex, registry: TenantRegistry, tokens: ListenedCache<AccessTokenCheck>, header: string | undefined, hostTenant: Tenant | undefined): Promise<BearerResult> {
  const token = bearerToken(header);
  if (token === undefined) return refuse('An access token is required: send Authorization: Bearer <token>', false);
  if (token === null) return refuse('The Authorization header is not a bearer token', true);
  const hash = hashSecret(token);
  const row = await tokens.get('tokens', hash, () => accessTokenCheck(knex, hash));
  if (!row) return refuse('The access token is not valid', true);
  if (row.revoked_at || row.client_revoked_at) return refuse('The access token was revoked', true);
  if (row.access_expires_at.getTime() <= Date.now()) return refuse('The access token expired', true);
  const tenant = await registry.byId(row.tenant_id);
  if (!tenant) return refuse('The access token is not valid', true);
  if (hostTenant && hostTenant.id !== tenant.id) return refuse('The access token is not valid for this instance', true);
  return { ok: true, grant: { tenant, userId: row.user_id, clientId: row.client_id } };
}
