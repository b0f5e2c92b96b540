import { NotFoundError } from '../../platform/errors.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';
import { activeUsersWithRole, findActiveUser } from '../users/index.js';
import { createServiceClient, SERVICE_GRANTS } from './clients.service.js';
import { listClientRows } from './oauth.data.js';
import { ACCESS_TOKEN_LIFETIME_S, createOAuthStore, SCOPE, type OAuthStoreDeps } from './oauth-store.js';

/**
 * An access token for a tenant's user in one step, for ops and developers (`tokens:create`):
 * issued to client credentials of the tenant acting as that user, made the first time and reused
 * after (their secret is never shown: nothing needs it), and saved by the OAuth store as the
 * client_credentials grant saves its tokens. So the token is an ordinary one: it lives 3600 s, the
 * Control Panel lists its client, and revoking the client (Control Panel, `clients:revoke`) or
 * deactivating the user stops it at once.
 */

/** `created_by` of the clients this makes, which is how they are found again. */
export const USER_TOKENS_CREATED_BY = 'ops CLI (tokens:create)';

export interface IssuedUserToken {
  accessToken: string;
  expiresAt: Date;
  expiresIn: number;
  user: { id: number; email: string };
  clientId: string;
  /** The client was made for this token (false: an earlier one was reused). */
  clientCreated: boolean;
}

/** The user a token acts as: the one named by email, else the tenant's first admin (lowest id). */
async function actingUser(deps: OAuthStoreDeps, tenant: Tenant, email: string | undefined): Promise<{ id: number; email: string }> {
  return withTenant(deps.knex, tenant, async (db) => {
    if (email !== undefined) {
      const user = await findActiveUser(db, email);
      if (!user) throw new NotFoundError(`No active user '${email}' in tenant '${tenant.slug}'`, 'user_not_found');
      return user;
    }
    const [admin] = (await activeUsersWithRole(db)).filter((u) => u.role === 'admin').sort((a, b) => a.id - b.id);
    if (!admin) throw new NotFoundError(`Tenant '${tenant.slug}' has no active admin: name a user with its email`, 'user_not_found');
    return { id: admin.id, email: admin.email };
  });
}

export async function issueUserToken(deps: OAuthStoreDeps, tenant: Tenant, opts: { email?: string } = {}): Promise<IssuedUserToken> {
  const user = await actingUser(deps, tenant, opts.email);
  const reusable = (await listClientRows(deps.knex, { tenantId: tenant.id })).find(
    (c) =>
      c.revoked_at === null &&
      c.service_user_id === user.id &&
      c.created_by === USER_TOKENS_CREATED_BY &&
      c.grants.includes(SERVICE_GRANTS[0]!),
  );
  const clientId =
    reusable?.client_id ??
    (
      await createServiceClient(deps.knex, tenant, {
        name: `Tokens from the ops CLI as ${user.email}`.slice(0, 100),
        serviceUser: user.id,
        createdBy: USER_TOKENS_CREATED_BY,
      })
    ).clientId;
  // What the library's client_credentials grant does once the client is authenticated.
  const store = createOAuthStore(deps, 'not-checked');
  const client = await store.getClient(clientId, null);
  const actor = client && (await store.getUserFromClient(client));
  if (!client || !actor) throw new NotFoundError(`Client '${clientId}' can no longer act as ${user.email}`, 'client_not_found');
  const accessToken = await store.generateAccessToken();
  const expiresAt = new Date(Date.now() + ACCESS_TOKEN_LIFETIME_S * 1000);
  await store.saveToken({ accessToken, accessTokenExpiresAt: expiresAt, scope: [SCOPE] }, client, actor);
  return { accessToken, expiresAt, expiresIn: ACCESS_TOKEN_LIFETIME_S, user, clientId, clientCreated: !reusable };
}
