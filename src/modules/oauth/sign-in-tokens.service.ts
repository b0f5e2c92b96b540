import { NotFoundError } from '../../platform/errors.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';
import { findActiveUser } from '../users/index.js';
import { INTEGRATION_GRANTS } from './clients.service.js';
import { firstPartyClient } from './oauth.data.js';
import { ACCESS_TOKEN_LIFETIME_S, createOAuthStore, SCOPE, type OAuthStoreDeps } from './oauth-store.js';
import { hashSecret, newSecret } from './secrets.js';

/**
 * A token for the user signed in to an instance's Control Panel, for GraphiQL's "Use my sign-in"
 * button (GRAPHIQL_SIGN_IN_TOKENS). It is an ordinary access token of the authorization server
 * (3600 s, scope `instance`, no refresh token), saved by the OAuth store as every grant saves its
 * tokens, issued to one first-party client of Lectern's own, {@link GRAPHIQL_CLIENT}:
 * - an integration as far as the tables go (no tenant: it acts as whichever user asks), so each
 *   user finds it under "Apps you authorized", where "Remove access" revokes their tokens of it;
 * - made on first use; its secret is thrown away at once and it has no redirect address anyone
 *   controls, so the token endpoint and the authorization code flow give it nothing: the button
 *   is its only way to tokens. Revoking it (`clients:revoke`) stops every token it gave; the next
 *   click makes a new one (turn the switch off to stop the button).
 */
export const GRAPHIQL_CLIENT = {
  name: "GraphiQL (Lectern's API explorer)",
  /** How it is found again, and what `clients:list` shows it was made by. */
  createdBy: 'Lectern: GraphiQL "Use my sign-in" (first-party)',
  /**
   * The table wants a redirect address for a client that is not a tenant's: RFC 6749's "out of
   * band" one, which no browser can be sent to.
   */
  redirectUri: 'urn:ietf:wg:oauth:2.0:oob',
} as const;

export interface SignInToken {
  accessToken: string;
  expiresIn: number;
  expiresAt: Date;
  user: { id: number; email: string };
  /** The first-party client's public id. */
  clientId: string;
}

/** Issues an access token acting as the active user `userId` of `tenant`, to {@link GRAPHIQL_CLIENT}. */
export async function issueSignInToken(deps: OAuthStoreDeps, tenant: Tenant, userId: number): Promise<SignInToken> {
  const user = await withTenant(deps.knex, tenant, (db) => findActiveUser(db, userId));
  if (!user) throw new NotFoundError(`No active user ${userId} in tenant '${tenant.slug}'`, 'user_not_found');
  const row = await firstPartyClient(deps.knex, GRAPHIQL_CLIENT.createdBy, () => ({
    client_id: newSecret('client_id'),
    secret_hash: hashSecret(newSecret('client_secret')),
    name: GRAPHIQL_CLIENT.name,
    grants: INTEGRATION_GRANTS,
    redirect_uris: [GRAPHIQL_CLIENT.redirectUri],
    tenant_id: null,
    service_user_id: null,
  }));
  // What the library's grants do once they know the client and the user (as `tokens:create` does).
  const store = createOAuthStore(deps, 'not-checked');
  const client = await store.getClient(row.client_id, null);
  if (!client) throw new NotFoundError(`Client '${row.client_id}' is revoked`, 'client_not_found');
  const accessToken = await store.generateAccessToken();
  const expiresAt = new Date(Date.now() + ACCESS_TOKEN_LIFETIME_S * 1000);
  await store.saveToken({ accessToken, accessTokenExpiresAt: expiresAt, scope: [SCOPE] }, client, { id: user.id, tenantId: tenant.id });
  return { accessToken, expiresIn: ACCESS_TOKEN_LIFETIME_S, expiresAt, user: { id: user.id, email: user.email }, clientId: row.client_id };
}
