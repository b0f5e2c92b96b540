import crypto from 'node:crypto';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { Knex } from '../../platform/db/knex.js';
import type { TenantRegistry } from '../../platform/tenancy/registry.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';
import { activeUserWithPermissions } from '../users/index.js';
import {
  activeClient,
  codeWithClient,
  consumeCode,
  insertCode,
  insertToken,
  insertTokenFromCode,
  markCodeReplayed,
  refreshTokenWithClient,
  revokeFamily,
  useRefreshToken,
  type ClientRow,
} from './oauth.data.js';
import { hashSecret, newSecret, secretMatches } from './secrets.js';

/**
 * Lectern's OAuth store: what `@node-oauth/oauth2-server` calls its "model" (the storage it runs
 * the grants on; in Lectern "model" means an Objection model only). The library does the
 * protocol (parameters, grant rules, PKCE, error codes); this store adds what RFC 9700 asks of
 * the storage: codes consumed atomically and a replayed code revoking what it issued, refresh
 * tokens rotated with reuse detection (a used one presented again revokes its whole family),
 * and secrets, codes and tokens kept only as hashes.
 */

export const SCOPE = 'instance';
/** Contract: access tokens live 3600 seconds. */
export const ACCESS_TOKEN_LIFETIME_S = 3600;
/** Contract: a refresh token unused for six months is dead; each use gives a new one with a fresh term. */
export const REFRESH_TOKEN_LIFETIME_S = 183 * 24 * 3600;
/** RFC 6749 §4.1.2: short-lived, at most 10 minutes. */
export const CODE_LIFETIME_S = 300;

/** Who a token acts as: a user of one tenant. The extra fields carry a grant's lineage to saveToken. */
export interface OAuthUser {
  id: number;
  tenantId: number;
  familyId?: string;
  codeHash?: string;
}

export interface OAuthServerClient {
  id: string;
  dbId: number;
  name: string;
  grants: string[];
  redirectUris: string[];
  tenantId: number | null;
  serviceUserId: number | null;
  accessTokenLifetime: number;
  refreshTokenLifetime: number;
}

const toClient = (r: ClientRow): OAuthServerClient => ({
  id: r.client_id,
  dbId: r.id,
  name: r.name,
  grants: r.grants,
  redirectUris: r.redirect_uris,
  tenantId: r.tenant_id,
  serviceUserId: r.service_user_id,
  accessTokenLifetime: ACCESS_TOKEN_LIFETIME_S,
  refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_S,
});

export interface OAuthStoreDeps {
  knex: Knex;
  registry: TenantRegistry;
}

/** Whether a user of a tenant can still act: the tenant is active and the user exists and is active. */
async function userIsActive(deps: OAuthStoreDeps, tenantId: number, userId: number): Promise<boolean> {
  const tenant = await deps.registry.byId(tenantId);
  if (!tenant) return false;
  return withTenant(deps.knex, tenant, async (db) => Boolean(await activeUserWithPermissions(db, { id: userId })));
}

/** A code presented again: refused, and every token issued from it revoked (RFC 6749 §4.1.2). */
async function codeReplayed(knex: Knex, codeHash: string): Promise<false> {
  await markCodeReplayed(knex, codeHash);
  return false;
}

/**
 * The store. `secrets: 'required'` for the token endpoint (every client here is confidential,
 * so a missing secret never authenticates one, PKCE or not); `'not-checked'` for the
 * authorization endpoint, which identifies the client by its id only.
 */
export function createOAuthStore(deps: OAuthStoreDeps, secrets: 'required' | 'not-checked') {
  const { knex } = deps;
  return {
    async getClient(clientId: string, clientSecret: string | null | undefined): Promise<OAuthServerClient | false> {
      const row = await activeClient(knex, clientId);
      if (secrets === 'required') {
        // Compare even when the client is unknown, so timing does not tell which ids exist.
        const ok = secretMatches(clientSecret ?? '', row?.secret_hash ?? hashSecret(crypto.randomBytes(16).toString('hex')));
        if (!row || !clientSecret || !ok) return false;
      }
      return row ? toClient(row) : false;
    },

    async validateRedirectUri(redirectUri: string, client: OAuthServerClient): Promise<boolean> {
      return client.redirectUris.includes(redirectUri);
    },

    async validateScope(_user: OAuthUser, _client: OAuthServerClient, scope?: string[]): Promise<string[] | false> {
      // One scope exists: the whole instance, as the user's permissions there allow.
      if (!scope || scope.length === 0 || (scope.length === 1 && scope[0] === SCOPE)) return [SCOPE];
      return false;
    },

    async generateAuthorizationCode(): Promise<string> {
      return newSecret('code');
    },
    async generateAccessToken(): Promise<string> {
      return newSecret('access_token');
    },
    async generateRefreshToken(): Promise<string> {
      return newSecret('refresh_token');
    },

    async saveAuthorizationCode(
      code: {
        authorizationCode: string;
        expiresAt: Date;
        redirectUri: string;
        scope?: string[];
        codeChallenge?: string;
        codeChallengeMethod?: string;
      },
      client: OAuthServerClient,
      user: OAuthUser,
    ) {
      await insertCode(knex, {
        code_hash: hashSecret(code.authorizationCode),
        client_id: client.dbId,
        tenant_id: user.tenantId,
        user_id: user.id,
        redirect_uri: code.redirectUri,
        scope: (code.scope ?? [SCOPE]).join(' '),
        code_challenge: code.codeChallenge ?? null,
        code_challenge_method: code.codeChallenge ? (code.codeChallengeMethod ?? 'S256') : null,
        expires_at: code.expiresAt,
      });
      return { ...code, client, user };
    },

    async getAuthorizationCode(authorizationCode: string) {
      const codeHash = hashSecret(authorizationCode);
      const row = await codeWithClient(knex, codeHash);
      if (!row || row.client_revoked_at) return false;
      if (row.consumed_at) return codeReplayed(knex, codeHash);
      return {
        authorizationCode,
        expiresAt: row.expires_at,
        redirectUri: row.redirect_uri,
        scope: row.scope ? row.scope.split(' ') : [SCOPE],
        client: { id: row.public_client_id, grants: [] },
        user: { id: row.user_id, tenantId: row.tenant_id, codeHash } satisfies OAuthUser,
        ...(row.code_challenge ? { codeChallenge: row.code_challenge, codeChallengeMethod: row.code_challenge_method ?? 'S256' } : {}),
      };
    },

    /** Consumes the code: exactly one exchange can win, whatever races. */
    async revokeAuthorizationCode(code: { authorizationCode: string }): Promise<boolean> {
      const codeHash = hashSecret(code.authorizationCode);
      const consumed = await consumeCode(knex, codeHash);
      return consumed === 1 ? true : codeReplayed(knex, codeHash);
    },

    async getUserFromClient(client: OAuthServerClient): Promise<OAuthUser | false> {
      if (client.tenantId === null || client.serviceUserId === null) return false;
      return (await userIsActive(deps, client.tenantId, client.serviceUserId))
        ? { id: client.serviceUserId, tenantId: client.tenantId }
        : false;
    },

    async saveToken(
      token: {
        accessToken: string;
        accessTokenExpiresAt?: Date;
        refreshToken?: string;
        refreshTokenExpiresAt?: Date;
        scope?: string[];
        authorizationCode?: string;
      },
      client: OAuthServerClient,
      user: OAuthUser,
    ) {
      const row = {
        access_token_hash: hashSecret(token.accessToken),
        access_expires_at: token.accessTokenExpiresAt!,
        refresh_token_hash: token.refreshToken ? hashSecret(token.refreshToken) : null,
        refresh_expires_at: token.refreshToken ? (token.refreshTokenExpiresAt ?? null) : null,
        client_id: client.dbId,
        tenant_id: user.tenantId,
        user_id: user.id,
        scope: (token.scope ?? [SCOPE]).join(' '),
        family_id: user.familyId ?? crypto.randomUUID(),
        code_hash: user.codeHash ?? null,
      };
      if (row.code_hash) {
        // A code replayed while it was being exchanged: issue nothing from it.
        if (!(await insertTokenFromCode(knex, { ...row, code_hash: row.code_hash })))
          throw new OAuth2Server.InvalidGrantError('Invalid grant: authorization code is invalid');
      } else {
        await insertToken(knex, row);
      }
      return { ...token, client, user };
    },

    async getRefreshToken(refreshToken: string) {
      const row = await refreshTokenWithClient(knex, hashSecret(refreshToken));
      if (!row || row.revoked_at || row.client_revoked_at) return false;
      if (row.refresh_used_at) {
        // A rotated-out refresh token came back: it was stolen or copied. Cut the whole family.
        await revokeFamily(knex, row.family_id);
        return false;
      }
      if (!(await userIsActive(deps, row.tenant_id, row.user_id))) return false;
      return {
        refreshToken,
        ...(row.refresh_expires_at ? { refreshTokenExpiresAt: row.refresh_expires_at } : {}),
        scope: row.scope ? row.scope.split(' ') : [SCOPE],
        client: { id: row.public_client_id, grants: [] },
        user: { id: row.user_id, tenantId: row.tenant_id, familyId: row.family_id } satisfies OAuthUser,
      };
    },

    /** Rotation: marks the refresh token used. Two racing uses: one wins, the other counts as reuse. */
    async revokeToken(token: { refreshToken: string; user: OAuthUser }): Promise<boolean> {
      const used = await useRefreshToken(knex, hashSecret(token.refreshToken));
      if (used === 1) return true;
      if (token.user.familyId) await revokeFamily(knex, token.user.familyId);
      return false;
    },

    /** Required by the library's types; bearer tokens are checked by src/http/bearer-auth.ts. */
    async getAccessToken(): Promise<false> {
      return false;
    },
  };
}
