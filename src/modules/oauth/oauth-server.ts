import OAuth2Server from '@node-oauth/oauth2-server';
import { platformBaseUrl, type Config } from '../../platform/config.js';
import { ClientAuthGuard } from './client-auth-guard.js';
import {
  ACCESS_TOKEN_LIFETIME_S,
  CODE_LIFETIME_S,
  createOAuthStore,
  REFRESH_TOKEN_LIFETIME_S,
  SCOPE,
  type OAuthStoreDeps,
  type OAuthServerClient,
} from './oauth-store.js';

/**
 * The two faces of `@node-oauth/oauth2-server` Lectern uses: the authorization endpoint (after
 * sign-in and consent) and the token endpoint (which authenticates clients by their secret).
 */
export interface OAuthServers {
  authorize: OAuth2Server;
  token: OAuth2Server;
  issuer: string;
  /** An active client by its id (no secret check): for the authorization pages. */
  findClient(clientId: string): Promise<OAuthServerClient | false>;
  /** Slows failed client authentication at the token endpoint. */
  clientAuth: ClientAuthGuard;
}

export function createOAuthServers(deps: OAuthStoreDeps, config: Config): OAuthServers {
  const byId = createOAuthStore(deps, 'not-checked');
  return {
    issuer: platformBaseUrl(config),
    findClient: (clientId) => byId.getClient(clientId, null),
    clientAuth: new ClientAuthGuard(deps.knex, {
      namespace: config.queuePrefix,
      isClient: async (clientId) => Boolean(await byId.getClient(clientId, null)),
    }),
    authorize: new OAuth2Server({
      model: byId,
      // The contract only recommends `state`; PKCE (S256) protects clients that send none.
      allowEmptyState: true,
      authorizationCodeLifetime: CODE_LIFETIME_S,
    }),
    token: new OAuth2Server({
      model: createOAuthStore(deps, 'required'),
      accessTokenLifetime: ACCESS_TOKEN_LIFETIME_S,
      refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_S,
      alwaysIssueNewRefreshToken: true,
    }),
  };
}

/** RFC 8414 metadata, so off-the-shelf clients can discover the endpoints. */
export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [SCOPE],
    // RFC 9207: the authorization response names its issuer, against mix-up attacks.
    authorization_response_iss_parameter_supported: true,
  };
}
