import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { PLATFORM_SCHEMA } from '../../platform/tenancy/tenant.js';

/**
 * Lectern's OAuth 2.0 storage in the platform schema: clients, authorization codes and tokens
 * (secrets, codes and tokens only as SHA-256 hashes). The only file that names these tables.
 * Users live in tenant schemas: `user_id` and `service_user_id` are plain integers.
 */

export class OAuthClient extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.oauth_clients`;

  declare id: number;
  /** The public client id (Client Key). */
  declare client_id: string;
  declare secret_hash: string;
  declare name: string;
  declare redirect_uris: string[];
  declare grants: string[];
  /** Client credentials belong to one tenant and act as one of its users; integrations do not. */
  declare tenant_id: number | null;
  declare service_user_id: number | null;
  declare created_by: string | null;
  declare created_at: Date;
  declare revoked_at: Date | null;
}

export class OAuthCode extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.oauth_codes`;
  static override idColumn = 'code_hash';

  declare code_hash: string;
  declare client_id: number;
  declare tenant_id: number;
  declare user_id: number;
  declare redirect_uri: string;
  declare scope: string | null;
  declare code_challenge: string | null;
  declare code_challenge_method: string | null;
  declare expires_at: Date;
  declare consumed_at: Date | null;
  /** Set when the code is presented again after use: tokens issued from it are revoked. */
  declare replayed_at: Date | null;
  declare created_at: Date;
}

export class OAuthToken extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.oauth_tokens`;

  declare id: number;
  declare access_token_hash: string;
  declare access_expires_at: Date;
  declare refresh_token_hash: string | null;
  declare refresh_expires_at: Date | null;
  /** Rotation: a refresh token is used once; presented again, its whole family is revoked. */
  declare refresh_used_at: Date | null;
  declare client_id: number;
  declare tenant_id: number;
  declare user_id: number;
  declare scope: string | null;
  /** Every token descended from one grant (an authorization code, or one client-credentials request). */
  declare family_id: string;
  declare code_hash: string | null;
  declare created_at: Date;
  declare revoked_at: Date | null;
}

/** Rows as they come back (the models' columns, without Objection's methods). */
export type ClientRow = ModelObject<OAuthClient>;
export type CodeRow = ModelObject<OAuthCode>;
export type TokenRow = ModelObject<OAuthToken>;

const CLIENTS = OAuthClient.tableName;
const CODES = OAuthCode.tableName;
const TOKENS = OAuthToken.tableName;

// ---- Clients

/** A client's columns as listed and returned at creation (never the secret's hash). */
export type ClientSummaryRow = Pick<
  ClientRow,
  'client_id' | 'name' | 'grants' | 'redirect_uris' | 'tenant_id' | 'service_user_id' | 'created_by' | 'created_at' | 'revoked_at'
>;
const SUMMARY_COLUMNS = [
  'client_id',
  'name',
  'grants',
  'redirect_uris',
  'tenant_id',
  'service_user_id',
  'created_by',
  'created_at',
  'revoked_at',
];

/** A client that is not revoked, by its public id. */
export function activeClient(db: Db, clientId: string): Promise<ClientRow | undefined> {
  return db<ClientRow>(CLIENTS).where({ client_id: clientId }).whereNull('revoked_at').first();
}

export async function insertClient(db: Db, row: Omit<ClientRow, 'id' | 'created_at' | 'revoked_at'>): Promise<ClientSummaryRow> {
  const [inserted] = await db(CLIENTS).insert(row).returning<ClientSummaryRow[]>(SUMMARY_COLUMNS);
  return inserted!;
}

/** Clients, newest first: every client, or one tenant's. */
export function listClientRows(db: Db, filter: { tenantId?: number } = {}): Promise<ClientRow[]> {
  const q = db<ClientRow>(CLIENTS).orderBy('id', 'desc');
  if (filter.tenantId !== undefined) q.where({ tenant_id: filter.tenantId });
  return q;
}

/**
 * Revokes a client and every token issued to it, in one transaction (the client row locked);
 * with `tenantId`, only a client of that tenant. Returns the client as it is now, or undefined
 * when there is no such client (nothing written).
 */
export function revokeClientAndTokens(db: Db, clientId: string, filter: { tenantId?: number } = {}): Promise<ClientRow | undefined> {
  return db.transaction(async (trx) => {
    const q = trx<ClientRow>(CLIENTS).where({ client_id: clientId });
    if (filter.tenantId !== undefined) q.where({ tenant_id: filter.tenantId });
    const client = await q.forUpdate().first();
    if (!client) return undefined;
    if (!client.revoked_at) {
      await trx(CLIENTS).where({ id: client.id }).update({ revoked_at: trx.fn.now() });
      await trx(TOKENS).where({ client_id: client.id }).whereNull('revoked_at').update({ revoked_at: trx.fn.now() });
    }
    return (await trx<ClientRow>(CLIENTS).where('id', client.id).first())!;
  });
}

/**
 * The newest client of Lectern's own made by `createdBy` (no tenant, not revoked), made from
 * `row()` when there is none. One caller at a time (a transaction-scoped advisory lock on the
 * name), so two first uses at once make one client, not two.
 */
export function firstPartyClient(
  db: Db,
  createdBy: string,
  row: () => Omit<ClientRow, 'id' | 'created_by' | 'created_at' | 'revoked_at'>,
): Promise<ClientRow> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`${CLIENTS}:${createdBy}`]);
    const found = await trx<ClientRow>(CLIENTS)
      .where({ created_by: createdBy })
      .whereNull('tenant_id')
      .whereNull('revoked_at')
      .orderBy('id', 'desc')
      .first();
    if (found) return found;
    const [inserted] = await trx(CLIENTS)
      .insert({ ...row(), created_by: createdBy })
      .returning<ClientRow[]>('*');
    return inserted!;
  });
}

/** The row id of a client, by its public id. */
export function clientRowId(db: Db, clientId: string): Promise<Pick<ClientRow, 'id'> | undefined> {
  return db(CLIENTS).where({ client_id: clientId }).first<Pick<ClientRow, 'id'> | undefined>('id');
}

// ---- Authorization codes

export async function insertCode(db: Db, row: Omit<CodeRow, 'consumed_at' | 'replayed_at' | 'created_at'>): Promise<void> {
  await db(CODES).insert(row);
}

/** A code with its client's public id and revocation. */
export type CodeWithClient = CodeRow & { public_client_id: string; client_revoked_at: Date | null };

export function codeWithClient(db: Db, codeHash: string): Promise<CodeWithClient | undefined> {
  return db(`${CODES} as k`)
    .join(`${CLIENTS} as c`, 'c.id', 'k.client_id')
    .where('k.code_hash', codeHash)
    .first<CodeWithClient | undefined>('k.*', 'c.client_id as public_client_id', 'c.revoked_at as client_revoked_at');
}

/** Consumes a code: 1 when this call consumed it, 0 when it was consumed already (or is unknown). */
export function consumeCode(db: Db, codeHash: string): Promise<number> {
  return db(CODES).where({ code_hash: codeHash }).whereNull('consumed_at').update({ consumed_at: db.fn.now() });
}

/** A code presented again: marked replayed, and every token issued from it revoked. */
export async function markCodeReplayed(db: Db, codeHash: string): Promise<void> {
  await db(CODES).where({ code_hash: codeHash }).whereNull('replayed_at').update({ replayed_at: db.fn.now() });
  await db(TOKENS).where({ code_hash: codeHash }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
}

// ---- Tokens

export type NewToken = Pick<
  TokenRow,
  | 'access_token_hash'
  | 'access_expires_at'
  | 'refresh_token_hash'
  | 'refresh_expires_at'
  | 'client_id'
  | 'tenant_id'
  | 'user_id'
  | 'scope'
  | 'family_id'
  | 'code_hash'
>;

export async function insertToken(db: Db, row: NewToken): Promise<void> {
  await db(TOKENS).insert(row);
}

/**
 * Inserts a token issued from an authorization code unless the code was replayed meanwhile (a
 * code presented again while it was being exchanged issues nothing). True when it was inserted.
 */
export async function insertTokenFromCode(db: Db, row: NewToken & { code_hash: string }): Promise<boolean> {
  const inserted = await db.raw<{ rowCount: number }>(
    `insert into ${TOKENS} (access_token_hash, access_expires_at, refresh_token_hash, refresh_expires_at, client_id, tenant_id, user_id, scope, family_id, code_hash)
           select ?, ?, ?, ?, ?, ?, ?, ?, ?, ? where not exists (select 1 from ${CODES} where code_hash = ? and replayed_at is not null)`,
    [
      row.access_token_hash,
      row.access_expires_at,
      row.refresh_token_hash,
      row.refresh_expires_at,
      row.client_id,
      row.tenant_id,
      row.user_id,
      row.scope,
      row.family_id,
      row.code_hash,
      row.code_hash,
    ],
  );
  return inserted.rowCount === 1;
}

/** What a bearer token check needs of an access token and its client (every GraphQL request). */
export interface AccessTokenCheck {
  tenant_id: number;
  user_id: number;
  revoked_at: Date | null;
  client_revoked_at: Date | null;
  access_expires_at: Date;
  client_id: string;
}

export function accessTokenCheck(db: Db, accessTokenHash: string): Promise<AccessTokenCheck | undefined> {
  return db(`${TOKENS} as t`)
    .join(`${CLIENTS} as c`, 'c.id', 't.client_id')
    .where('t.access_token_hash', accessTokenHash)
    .first<AccessTokenCheck | undefined>(
      't.tenant_id',
      't.user_id',
      't.revoked_at',
      'c.revoked_at as client_revoked_at',
      't.access_expires_at',
      'c.client_id',
    );
}

/** A refresh token with its client's public id and revocation. */
export type RefreshTokenWithClient = TokenRow & { public_client_id: string; client_revoked_at: Date | null };

export function refreshTokenWithClient(db: Db, refreshTokenHash: string): Promise<RefreshTokenWithClient | undefined> {
  return db(`${TOKENS} as t`)
    .join(`${CLIENTS} as c`, 'c.id', 't.client_id')
    .where('t.refresh_token_hash', refreshTokenHash)
    .first<RefreshTokenWithClient | undefined>('t.*', 'c.client_id as public_client_id', 'c.revoked_at as client_revoked_at');
}

/** Rotation: marks a refresh token used. 1 when this call did, 0 when it was used or revoked already. */
export function useRefreshToken(db: Db, refreshTokenHash: string): Promise<number> {
  return db(TOKENS)
    .where({ refresh_token_hash: refreshTokenHash })
    .whereNull('refresh_used_at')
    .whereNull('revoked_at')
    .update({ refresh_used_at: db.fn.now() });
}

/** Revokes every token descended from one grant. */
export async function revokeFamily(db: Db, familyId: string): Promise<void> {
  await db(TOKENS).where({ family_id: familyId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
}

/** "Remove access": revokes the user's tokens of one client. Returns how many were revoked. */
export function revokeUserTokens(db: Db, tenantId: number, userId: number, clientRowId: number): Promise<number> {
  return db(TOKENS)
    .where({ tenant_id: tenantId, user_id: userId, client_id: clientRowId })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() });
}

/** The integrations a user has authorized in a tenant whose tokens can still act (an access token alive, or a refresh token unused and alive). */
export function authorizedApplicationRows(
  db: Db,
  tenantId: number,
  userId: number,
): Promise<{ client_id: string; name: string; first: Date; last: Date }[]> {
  return db(`${TOKENS} as t`)
    .join(`${CLIENTS} as c`, 'c.id', 't.client_id')
    .where({ 't.tenant_id': tenantId, 't.user_id': userId })
    .whereNull('t.revoked_at')
    .whereNull('c.revoked_at')
    .whereNull('c.tenant_id') // integrations, not the tenant's own client credentials
    .where((w) =>
      w
        .where('t.access_expires_at', '>', db.fn.now())
        .orWhere((r) => r.whereNull('t.refresh_used_at').where('t.refresh_expires_at', '>', db.fn.now())),
    )
    .groupBy('c.client_id', 'c.name')
    .orderBy('c.name')
    .select<{ client_id: string; name: string; first: Date; last: Date }[]>(
      'c.client_id',
      'c.name',
      db.raw('min(t.created_at) as first'),
      db.raw('max(t.created_at) as last'),
    );
}
