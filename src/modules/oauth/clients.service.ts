import { z } from 'zod';
import type { Db, Knex } from '../../platform/db/knex.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';
import { parseOrThrow } from '../../platform/util/validation.js';
import { activeUsersWithRole, findActiveUser } from '../users/index.js';
import {
  authorizedApplicationRows,
  clientRowId,
  insertClient as insertClientRow,
  listClientRows,
  revokeClientAndTokens,
  revokeUserTokens,
  type ClientSummaryRow,
} from './oauth.data.js';
import { hashSecret, newSecret } from './secrets.js';

/**
 * OAuth clients. Two kinds, as the contract has them:
 * - an integration (authorization code flow): a Client Key and Secret with registered callback
 *   URIs, not bound to a tenant; it acts as whichever tenant user authorizes it;
 * - a tenant's client credentials: made by a tenant admin in the Control Panel (or by ops with
 *   the CLI), acting as the service user chosen for it, in that tenant only.
 * Secrets are returned once, at creation, and stored only as hashes.
 */

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

const toSummary = (r: ClientSummaryRow): ClientSummary => ({
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
const redirectUri = z
  .string()
  .max(2000)
  .refine(
    (v) => {
      try {
        const u = new URL(v);
        if (u.hash || v.includes('#')) return false;
        return u.protocol === 'https:' || (u.protocol === 'http:' && (LOOPBACK.has(u.hostname) || u.hostname.endsWith('.localhost')));
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute https:// URI without a fragment (http:// only for localhost)' },
  );

const clientName = z.string().trim().min(1, { message: 'must not be empty' }).max(100, { message: 'must be at most 100 characters' });

const integrationInput = z.object({
  name: clientName,
  redirectUris: z.array(redirectUri).min(1, { message: 'needs at least one redirect URI' }).max(10),
  createdBy: z.string().max(200).optional(),
});

/** Registers an integration (authorization code flow). */
export async function createIntegrationClient(
  knex: Knex,
  input: { name: string; redirectUris: string[]; createdBy?: string },
): Promise<CreatedClient> {
  const { name, redirectUris, createdBy } = parseOrThrow(integrationInput, input, 'client');
  return insertClient(knex, {
    name,
    grants: INTEGRATION_GRANTS,
    redirect_uris: redirectUris,
    tenant_id: null,
    service_user_id: null,
    created_by: createdBy ?? null,
  });
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
  const user = await withTenant(knex, tenant, (db) => findActiveUser(db, serviceUser));
  if (!user)
    throw new ValidationError('The service user is not an active user of this instance', {
      fields: { serviceUser: 'names no active user of this instance' },
    });
  const created = await insertClient(knex, {
    name,
    grants: SERVICE_GRANTS,
    redirect_uris: [],
    tenant_id: tenant.id,
    service_user_id: user.id,
    created_by: createdBy ?? null,
  });
  return { ...created, serviceUserEmail: user.email };
}

async function insertClient(knex: Knex, row: Omit<ClientSummaryRow, 'client_id' | 'created_at' | 'revoked_at'>): Promise<CreatedClient> {
  const clientId = newSecret('client_id');
  const clientSecret = newSecret('client_secret');
  const inserted = await insertClientRow(knex, { ...row, client_id: clientId, secret_hash: hashSecret(clientSecret) });
  return { ...toSummary(inserted), clientSecret };
}

/** Clients, newest first: every client, or one tenant's client credentials. */
export async function listClients(knex: Knex, filter: { tenantId?: number } = {}): Promise<ClientSummary[]> {
  return (await listClientRows(knex, filter)).map(toSummary);
}

/**
 * Revokes a client: its id and secret get no more tokens, and tokens already issued to it stop
 * working at once. With `tenantId`, only a client of that tenant (the Control Panel's reach).
 */
export async function revokeClient(knex: Knex, clientId: string, filter: { tenantId?: number } = {}): Promise<ClientSummary> {
  const client = await revokeClientAndTokens(knex, clientId, filter);
  if (!client) throw new NotFoundError(`No client '${clientId}'`, 'client_not_found');
  return toSummary(client);
}

export interface AuthorizedApplication {
  clientId: string;
  name: string;
  authorizedAt: string;
  lastIssuedAt: string;
}

/** The applications a user has authorized in a tenant that can still act for them. */
export async function listAuthorizedApplications(knex: Knex, tenantId: number, userId: number): Promise<AuthorizedApplication[]> {
  const rows = await authorizedApplicationRows(knex, tenantId, userId);
  return rows.map((r) => ({
    clientId: r.client_id,
    name: r.name,
    authorizedAt: r.first.toISOString(),
    lastIssuedAt: r.last.toISOString(),
  }));
}

/** "Remove access": every token of the user for that application stops working. Returns how many were revoked. */
export async function removeApplicationAccess(knex: Knex, tenantId: number, userId: number, clientId: string): Promise<number> {
  const client = await clientRowId(knex, clientId);
  if (!client) throw new NotFoundError(`No application '${clientId}'`, 'client_not_found');
  return revokeUserTokens(knex, tenantId, userId, client.id);
}

/** The active users of a tenant a client can act as (for the Control Panel's form). */
export async function serviceUserChoices(db: Db): Promise<{ id: number; email: string; role: string }[]> {
  return activeUsersWithRole(db);
}
