import OAuth2Server from '@node-oauth/oauth2-server';
import { platformBaseUrl, type Config } from '../../platform/config.js';
import { ClientAuthGuard } from './client-auth-guard.js';
import { codeWithClient } from './oauth.data.js';
import {
  ACCESS_TOKEN_LIFETIME_S,
  CODE_LIFETIME_S,
  createOAuthStore,
  REFRESH_TOKEN_LIFETIME_S,
  SCOPE,
  type OAuthStoreDeps,
  type OAuthServerClient,
} from './oauth-store.js';
import { hashSecret } from './secrets.js';

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
  /** What an authorization code is, read only (never consumed): for the development callback page. */
  describeCode(code: string): Promise<CodeDescription | undefined>;
}

/** An authorization code Lectern issued, as the development callback shows it. */
export interface CodeDescription {
  clientId: string;
  redirectUri: string;
  expiresAt: Date;
  /** Sent with a PKCE challenge: the exchange needs the verifier. */
  pkce: boolean;
  /** usable: it can still be exchanged; used: it was exchanged (or presented) once; expired; revoked: its client was. */
  status: 'usable' | 'used' | 'expired' | 'revoked';
}

export function createOAuthServers(deps: OAuthStoreDeps, config: Config): OAuthServers {
  const byId = createOAuthStore(deps, 'not-checked');
  return {
    issuer: platformBaseUrl(config),
    findClient: (clientId) => byId.getClient(clientId, null),
    async describeCode(code) {
      const row = await codeWithClient(deps.knex, hashSecret(code));
      if (!row) return undefined;
      const status = row.client_revoked_at
        ? 'revoked'
        : row.consumed_at
          ? 'used'
          : row.expires_at.getTime() <= Date.now()
            ? 'expired'
            : 'usable';
      return {
        clientId: row.public_client_id,
        redirectUri: row.redirect_uri,
        expiresAt: row.expires_at,
        pkce: row.code_challenge !== null,
        status,
      };
    },
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
