import { z } from 'zod';
import type { Db, Knex } from '../../platform/db/knex.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { PLATFORM_SCHEMA, type Tenant } from '../../platform/tenancy/tenant.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';
import { parseOrThrow } from '../../platform/util/validation.js';
import { hashSecret, newSecret } from './secrets.js';

/**
 * OAuth clients. Two kinds, as the contract has them:
 * - an integration (authorization code flow): a Client Key and Secret with registered callback
 *   URIs, not bound to a tenant; it acts as whichever tenant user authorizes it;
 * - a tenant's client credentials: made by a tenant admin in the Control Panel (or by ops with
 *   the CLI), acting as the service user chosen for it, in that tenant only.
 * Secrets are returned once, at creation, and stored only as hashes.
 */

const CLIENTS = `${PLATFORM_SCHEMA}.oauth_clients`;
const TOKENS = `${PLATFORM_SCHEMA}.oauth_tokens`;

export const INTEGRATION_GRANTS = ['authorization_code', 'refresh_token'];
export const SERVICE_GRANTS = ['client_credentials'];

export interface ClientSummary {
  clientId: string;
  name: string;
  grants: string[];
  redirectUris: string[];
  tenantId: number | null;
  serviceUserId: number | null;
  createdBy: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface CreatedClient extends ClientSummary {
  /** Shown once; only its hash is kept. */
  clientSecret: string;
}

interface ClientRow {
  client_id: string;
  name: string;
  grants: string[];
  redirect_uris: string[];
  tenant_id: number | null;
  service_user_id: number | null;
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const toSummary = (r: ClientRow): ClientSummary => ({
  clientId: r.client_id,
  name: r.name,
  grants: r.grants,
  redirectUris: r.redirect_uris,
  tenantId: r.tenant_id,
  serviceUserId: r.service_user_id,
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
  revokedAt: r.revoked_at ? r.revoked_at.toISOString() : null,
});

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A callback URI the server will redirect codes to: absolute, no fragment (RFC 6749 §3.1.2),
 * and HTTPS unless it is a loopback address used while developing (RFC 8252 §7.3).
 */
const redirectUri = z.string().max(2000).refine((v) => {
  try {
    const u = new URL(v);
    if (u.hash || v.includes('#')) return false;
    return u.protocol === 'https:' || (u.protocol === 'http:' && (LOOPBACK.has(u.hostname) || u.hostname.endsWith('.localhost')));
  } catch {
    return false;
  }
}, { message: 'must be an absolute https:// URI without a fragment (http:// only for localhost)' });

const clientName = z.string().trim().min(1, { message: 'must not be empty' }).max(100, { message: 'must be at most 100 characters' });

const integrationInput = z.object({
  name: clientName,
  redirectUris: z.array(redirectUri).min(1, { message: 'needs at least one redirect URI' }).max(10),
  createdBy: z.string().max(200).optional(),
});

/** Registers an integration (authorization code flow). */
export async function createIntegrationClient(knex: Knex, input: { name: string; redirectUris: string[]; createdBy?: string }): Promise<CreatedClient> {
  const { name, redirectUris, createdBy } = parseOrThrow(integrationInput, input, 'client');
  return insertClient(knex, { name, grants: INTEGRATION_GRANTS, redirect_uris: redirectUris, tenant_id: null, service_user_id: null, created_by: createdBy ?? null });
}

const serviceInput = z.object({
  name: clientName,
  serviceUser: z.union([z.number().int().positive(), z.email({ message: 'must be the email of a user of this instance' })]),
  createdBy: z.string().max(200).optional(),
});

/**
 * Creates client credentials of a tenant, acting as one of its active users (by id or email).
 */
export async function createServiceClient(
  knex: Knex,
  tenant: Tenant,
  input: { name: string; serviceUser: number | string; createdBy?: string },
): Promise<CreatedClient & { serviceUserEmail: string }> {
  const { name, serviceUser, createdBy } = parseOrThrow(serviceInput, input, 'client');
  const user = await withTenant(knex, tenant, (db) =>
    (typeof serviceUser === 'number' ? db('users').where({ id: serviceUser }) : db('users').whereRaw('lower(email) = lower(?)', [serviceUser]))
      .where({ is_active: true })
      .first<{ id: number; email: string } | undefined>('id', 'email'),
  );
  if (!user) throw new ValidationError('The service user is not an active user of this instance', { fields: { serviceUser: 'names no active user of this instance' } });
  const created = await insertClient(knex, { name, grants: SERVICE_GRANTS, redirect_uris: [], tenant_id: tenant.id, service_user_id: user.id, created_by: createdBy ?? null });
  return { ...created, serviceUserEmail: user.email };
}

async function insertClient(knex: Knex, row: Omit<ClientRow, 'client_id' | 'created_at' | 'revoked_at'>): Promise<CreatedClient> {
  const clientId = newSecret('client_id');
  const clientSecret = newSecret('client_secret');
  const [inserted] = await knex(CLIENTS)
    .insert({ ...row, client_id: clientId, secret_hash: hashSecret(clientSecret) })
    .returning<ClientRow[]>(['client_id', 'name', 'grants', 'redirect_uris', 'tenant_id', 'service_user_id', 'created_by', 'created_at', 'revoked_at']);
  return { ...toSummary(inserted!), clientSecret };
}

/** Clients, newest first: every client, or one tenant's client credentials. */
export async function listClients(knex: Knex, filter: { tenantId?: number } = {}): Promise<ClientSummary[]> {
  const q = knex<ClientRow>(CLIENTS).orderBy('id', 'desc');
  if (filter.tenantId !== undefined) q.where({ tenant_id: filter.tenantId });
  return (await q).map(toSummary);
}

/**
 * Revokes a client: its id and secret get no more tokens, and tokens already issued to it stop
 * working at once. With `tenantId`, only a client of that tenant (the Control Panel's reach).
 */
export async function revokeClient(knex: Knex, clientId: string, filter: { tenantId?: number } = {}): Promise<ClientSummary> {
  return knex.transaction(async (trx) => {
    const q = trx<ClientRow & { id: number }>(CLIENTS).where({ client_id: clientId });
    if (filter.tenantId !== undefined) q.where({ tenant_id: filter.tenantId });
    const client = await q.forUpdate().first();
    if (!client) throw new NotFoundError(`No client '${clientId}'`, 'client_not_found');
    if (!client.revoked_at) {
      await trx(CLIENTS).where({ id: client.id }).update({ revoked_at: trx.fn.now() });
      await trx(TOKENS).where({ client_id: client.id }).whereNull('revoked_at').update({ revoked_at: trx.fn.now() });
    }
    return toSummary((await trx(CLIENTS).where('id', client.id).first<ClientRow>())!);
  });
}

export interface AuthorizedApplication {
  clientId: string;
  name: string;
  authorizedAt: string;
  lastIssuedAt: string;
}

/** The applications a user has authorized in a tenant that can still act for them. */
export async function listAuthorizedApplications(knex: Knex, tenantId: number, userId: number): Promise<AuthorizedApplication[]> {
  const rows = await knex(`${TOKENS} as t`)
    .join(`${CLIENTS} as c`, 'c.id', 't.client_id')
    .where({ 't.tenant_id': tenantId, 't.user_id': userId })
    .whereNull('t.revoked_at')
    .whereNull('c.revoked_at')
    .whereNull('c.tenant_id') // integrations, not the tenant's own client credentials
    .where((w) => w.where('t.access_expires_at', '>', knex.fn.now()).orWhere((r) => r.whereNull('t.refresh_used_at').where('t.refresh_expires_at', '>', knex.fn.now())))
    .groupBy('c.client_id', 'c.name')
    .orderBy('c.name')
    .select<{ client_id: string; name: string; first: Date; last: Date }[]>('c.client_id', 'c.name', knex.raw('min(t.created_at) as first'), knex.raw('max(t.created_at) as last'));
  return rows.map((r) => ({ clientId: r.client_id, name: r.name, authorizedAt: r.first.toISOString(), lastIssuedAt: r.last.toISOString() }));
}

/** "Remove access": every token of the user for that application stops working. Returns how many were revoked. */
export async function removeApplicationAccess(knex: Knex, tenantId: number, userId: number, clientId: string): Promise<number> {
  const client = await knex(CLIENTS).where({ client_id: clientId }).first<{ id: number } | undefined>('id');
  if (!client) throw new NotFoundError(`No application '${clientId}'`, 'client_not_found');
  return knex(TOKENS).where({ tenant_id: tenantId, user_id: userId, client_id: client.id }).whereNull('revoked_at').update({ revoked_at: knex.fn.now() });
}

/** The active users of a tenant a client can act as (for the Control Panel's form). */
export async function serviceUserChoices(db: Db): Promise<{ id: number; email: string; role: string }[]> {
  return db('users as u').join('roles as r', 'r.id', 'u.role_id').where('u.is_active', true).orderBy('u.email').select('u.id', 'u.email', 'r.name as role');
}
