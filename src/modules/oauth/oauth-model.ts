import crypto from 'node:crypto';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { Knex } from '../../platform/db/knex.js';
import type { TenantRegistry } from '../../platform/tenancy/registry.js';
import { PLATFORM_SCHEMA } from '../../platform/tenancy/tenant.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';
import { hashSecret, newSecret, secretMatches } from './secrets.js';

/**
 * The storage model `@node-oauth/oauth2-server` runs the grants on. The library does the
 * protocol (parameters, grant rules, PKCE, error codes); this model adds what RFC 9700 asks of
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

const CLIENTS = `${PLATFORM_SCHEMA}.oauth_clients`;
const CODES = `${PLATFORM_SCHEMA}.oauth_codes`;
const TOKENS = `${PLATFORM_SCHEMA}.oauth_tokens`;

/** Who a token acts as: a user of one tenant. The extra fields carry a grant's lineage to saveToken. */
export interface OAuthUser {
  id: number;
  tenantId: number;
  familyId?: string;
  codeHash?: string;
}

export interface OAuthClient {
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

interface ClientRow {
  id: number;
  client_id: string;
  secret_hash: string;
  name: string;
  grants: string[];
  redirect_uris: string[];
  tenant_id: number | null;
  service_user_id: number | null;
  revoked_at: Date | null;
}

const toClient = (r: ClientRow): OAuthClient => ({
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

export interface ModelDeps {
  knex: Knex;
  registry: TenantRegistry;
}

/** Whether a user of a tenant can still act: the tenant is active and the user exists and is active. */
async function userIsActive(deps: ModelDeps, tenantId: number, userId: number): Promise<boolean> {
  const tenant = await deps.registry.byId(tenantId);
  if (!tenant) return false;
  return withTenant(deps.knex, tenant, async (db) => Boolean(await db('users').where({ id: userId, is_active: true }).first('id')));
}

/** Revokes every token descended from one grant. */
async function revokeFamily(knex: Knex, familyId: string): Promise<void> {
  await knex(TOKENS).where({ family_id: familyId }).whereNull('revoked_at').update({ revoked_at: knex.fn.now() });
}

/** A code presented again: refused, and every token issued from it revoked (RFC 6749 §4.1.2). */
async function codeReplayed(knex: Knex, codeHash: string): Promise<false> {
  await knex(CODES).where({ code_hash: codeHash }).whereNull('replayed_at').update({ replayed_at: knex.fn.now() });
  await knex(TOKENS).where({ code_hash: codeHash }).whereNull('revoked_at').update({ revoked_at: knex.fn.now() });
  return false;
}

/**
 * The model. `secrets: 'required'` for the token endpoint (every client here is confidential,
 * so a missing secret never authenticates one, PKCE or not); `'not-checked'` for the
 * authorization endpoint, which identifies the client by its id only.
 */
export function createOAuthModel(deps: ModelDeps, secrets: 'required' | 'not-checked') {
  const { knex } = deps;
  return {
    async getClient(clientId: string, clientSecret: string | null | undefined): Promise<OAuthClient | false> {
      const row = await knex<ClientRow>(CLIENTS).where({ client_id: clientId }).whereNull('revoked_at').first();
      if (secrets === 'required') {
        // Compare even when the client is unknown, so timing does not tell which ids exist.
        const ok = secretMatches(clientSecret ?? '', row?.secret_hash ?? hashSecret(crypto.randomBytes(16).toString('hex')));
        if (!row || !clientSecret || !ok) return false;
      }
      return row ? toClient(row) : false;
    },

    async validateRedirectUri(redirectUri: string, client: OAuthClient): Promise<boolean> {
      return client.redirectUris.includes(redirectUri);
    },

    async validateScope(_user: OAuthUser, _client: OAuthClient, scope?: string[]): Promise<string[] | false> {
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
      code: { authorizationCode: string; expiresAt: Date; redirectUri: string; scope?: string[]; codeChallenge?: string; codeChallengeMethod?: string },
      client: OAuthClient,
      user: OAuthUser,
    ) {
      await knex(CODES).insert({
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
      const row = await knex(`${CODES} as k`)
        .join(`${CLIENTS} as c`, 'c.id', 'k.client_id')
        .where('k.code_hash', codeHash)
        .first<
          | { tenant_id: number; user_id: number; redirect_uri: string; scope: string | null; code_challenge: string | null; code_challenge_method: string | null; expires_at: Date; consumed_at: Date | null; public_client_id: string; client_revoked_at: Date | null }
          | undefined
        >('k.*', 'c.client_id as public_client_id', 'c.revoked_at as client_revoked_at');
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
      const consumed = await knex(CODES).where({ code_hash: codeHash }).whereNull('consumed_at').update({ consumed_at: knex.fn.now() });
      return consumed === 1 ? true : codeReplayed(knex, codeHash);
    },

    async getUserFromClient(client: OAuthClient): Promise<OAuthUser | false> {
      if (client.tenantId === null || client.serviceUserId === null) return false;
      return (await userIsActive(deps, client.tenantId, client.serviceUserId)) ? { id: client.serviceUserId, tenantId: client.tenantId } : false;
    },

    async saveToken(
      token: { accessToken: string; accessTokenExpiresAt?: Date; refreshToken?: string; refreshTokenExpiresAt?: Date; scope?: string[]; authorizationCode?: string },
      client: OAuthClient,
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
        const inserted = await knex.raw<{ rowCount: number }>(
          `insert into ${TOKENS} (access_token_hash, access_expires_at, refresh_token_hash, refresh_expires_at, client_id, tenant_id, user_id, scope, family_id, code_hash)
           select ?, ?, ?, ?, ?, ?, ?, ?, ?, ? where not exists (select 1 from ${CODES} where code_hash = ? and replayed_at is not null)`,
          [row.access_token_hash, row.access_expires_at, row.refresh_token_hash, row.refresh_expires_at, row.client_id, row.tenant_id, row.user_id, row.scope, row.family_id, row.code_hash, row.code_hash],
        );
        if (inserted.rowCount !== 1) throw new OAuth2Server.InvalidGrantError('Invalid grant: authorization code is invalid');
      } else {
        await knex(TOKENS).insert(row);
      }
      return { ...token, client, user };
    },

    async getRefreshToken(refreshToken: string) {
      const row = await knex(`${TOKENS} as t`)
        .join(`${CLIENTS} as c`, 'c.id', 't.client_id')
        .where('t.refresh_token_hash', hashSecret(refreshToken))
        .first<
          | { tenant_id: number; user_id: number; scope: string | null; family_id: string; refresh_expires_at: Date | null; refresh_used_at: Date | null; revoked_at: Date | null; public_client_id: string; client_revoked_at: Date | null }
          | undefined
        >('t.*', 'c.client_id as public_client_id', 'c.revoked_at as client_revoked_at');
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
      const used = await knex(TOKENS)
        .where({ refresh_token_hash: hashSecret(token.refreshToken) })
        .whereNull('refresh_used_at')
        .whereNull('revoked_at')
        .update({ refresh_used_at: knex.fn.now() });
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
