import type { Tenant } from '../../platform/tenancy/tenant.js';
import { bearerToken } from '../../kit/http/authorization.js';
import { verifyPortalToken } from './portal-tokens.js';
import type { PortalDirectory, ResolvedPortal } from './portals.service.js';

/**
 * Who a WebLink request is for, from its Host, `weblink-portal` and `Authorization` headers:
 * - on the platform address, the portal it names (`weblink-portal: <portal host>`), with a
 *   portal token (`Authorization: Bearer <token>` from `POST /portal/guest`) that is valid,
 *   unexpired and for that portal, whose instance then answers;
 * - on an instance's own address, that instance, with no token (websites made before portals
 *   keep working); a token sent there must be valid and for one of that instance's portals.
 */

export const PORTAL_HEADER = 'weblink-portal';
export const CLIENT_HEADER = 'weblink-client';

const REALM = 'Lectern WebLink';

export type WebLinkCaller =
  | { ok: true; tenant: Tenant; portal: ResolvedPortal['portal'] | null }
  | { ok: false; status: 400 | 401 | 404; message: string; code: string; challenge?: string };

function unauthenticated(message: string, tokenSent: boolean): WebLinkCaller {
  // RFC 6750 §3: no error code when no token was sent; invalid_token when one was.
  const challenge = tokenSent
    ? `Bearer realm="${REALM}", error="invalid_token", error_description="${message}"`
    : `Bearer realm="${REALM}"`;
  return { ok: false, status: 401, message, code: 'UNAUTHENTICATED', challenge };
}

/** The portal a token names, if the token is valid and unexpired and its portal and instance still exist. */
async function tokenPortal(directory: PortalDirectory, keys: readonly string[], token: string): Promise<ResolvedPortal | WebLinkCaller> {
  const check = verifyPortalToken(keys, token);
  if (!check.ok)
    return unauthenticated(
      check.reason === 'expired' ? 'The portal token expired: ask POST /portal/guest for a new one' : 'The portal token is not valid',
      true,
    );
  const found = await directory.byId(check.claims.portalId);
  if (!found || found.tenant.id !== check.claims.tenantId)
    return unauthenticated('The portal token is not valid (its portal was removed)', true);
  return found;
}

export async function weblinkCaller(
  directory: PortalDirectory,
  keys: readonly string[],
  request: { hostTenant: Tenant | undefined; portalHeader: string; authorization: string },
): Promise<WebLinkCaller> {
  const token = bearerToken(request.authorization || undefined);
  if (request.hostTenant) {
    if (token === undefined) return { ok: true, tenant: request.hostTenant, portal: null };
    if (token === null) return unauthenticated('The Authorization header is not a bearer token', true);
    const found = await tokenPortal(directory, keys, token);
    if ('ok' in found) return found;
    if (found.tenant.id !== request.hostTenant.id) return unauthenticated('The portal token is not for this instance', true);
    return { ok: true, tenant: found.tenant, portal: found.portal };
  }

  const named = request.portalHeader.trim();
  if (!named)
    return {
      ok: false,
      status: 404,
      code: 'NOT_FOUND',
      message: `WebLink answers for a portal (send ${PORTAL_HEADER}: <portal host> with its portal token) or on an instance's address`,
    };
  const portal = await directory.byDomain(named);
  if (!portal) return { ok: false, status: 404, code: 'NOT_FOUND', message: `No portal '${named.slice(0, 253)}'` };
  if (token === undefined)
    return unauthenticated('A portal token is required: send Authorization: Bearer <token from POST /portal/guest>', false);
  if (token === null) return unauthenticated('The Authorization header is not a bearer token', true);
  const found = await tokenPortal(directory, keys, token);
  if ('ok' in found) return found;
  if (found.portal.id !== portal.portal.id) return unauthenticated(`The portal token is not for ${portal.portal.domain}`, true);
  return { ok: true, tenant: portal.tenant, portal: portal.portal };
}
