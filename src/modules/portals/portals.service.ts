import { LRUCache } from 'lru-cache';
import type { Db, Knex } from '../../platform/db/knex.js';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { TenantRegistry } from '../../platform/tenancy/registry.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { PORTAL_TOKEN_TTL_SECONDS, signPortalToken } from './portal-tokens.js';
import { deletePortal, insertPortal, portalByDomain, portalById, portalRows, type PortalRow } from './portals.data.js';
import { normaliseDomain } from './portals.rules.js';

/**
 * Portals: an instance's published website addresses. A website asks `POST /portal/guest` for a
 * token by its domain and sends it with its WebLink requests on the platform address, naming
 * its portal; the request then runs for the portal's instance. Ops manage portals with the CLI,
 * an instance's administrators in its Control Panel.
 */

export interface PortalSummary {
  domain: string;
  tenantId: number;
  createdBy: string | null;
  createdAt: string;
}

const toSummary = (r: PortalRow): PortalSummary => ({
  domain: r.domain,
  tenantId: r.tenant_id,
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
});

/**
 * Adds a domain to an instance's portals. Refused (nothing written) when the domain is not a host
 * name (422, see portals.rules.ts) or is a portal already, of this instance or another (409).
 */
export async function addPortal(db: Db, tenant: Tenant, input: { domain: string; createdBy?: string }): Promise<PortalSummary> {
  const { domain, problems } = normaliseDomain(input.domain);
  if (domain === null) throw new ValidationError(problems[0]!.message, { fields: { domain: problems[0]!.message } });
  const row = await insertPortal(db, { tenant_id: tenant.id, domain, created_by: input.createdBy ?? null });
  if (row) return toSummary(row);
  const existing = await portalByDomain(db, domain);
  // Another instance's domain is not named: an administrator learns only that it is taken.
  throw new ConflictError(
    existing?.tenant_id === tenant.id ? `${domain} is a portal of this instance already` : `${domain} is the portal of another instance`,
    'portal_exists',
  );
}

/** Portals by domain: every instance's, or one instance's. */
export async function listPortals(db: Db, filter: { tenantId?: number } = {}): Promise<PortalSummary[]> {
  return (await portalRows(db, filter)).map(toSummary);
}

/**
 * Removes a portal (with `tenantId`, only one of that instance: 404 otherwise). Its tokens stop
 * working as soon as web processes hear of it (the database announces it; see PortalDirectory).
 */
export async function removePortal(db: Db, domainInput: string, filter: { tenantId?: number } = {}): Promise<PortalSummary> {
  const { domain } = normaliseDomain(domainInput);
  const row = domain === null ? undefined : await deletePortal(db, domain, filter);
  if (!row)
    throw new NotFoundError(
      `No portal ${domain ?? JSON.stringify(domainInput)}${filter.tenantId === undefined ? '' : ' in this instance'}`,
      'portal_not_found',
    );
  return toSummary(row);
}

/** A portal found, and its instance (active). */
export interface ResolvedPortal {
  portal: { id: number; domain: string; tenantId: number };
  tenant: Tenant;
}

/** Unknown domains and ids remembered at once; a flood of them pushes out only each other. */
const MAX_UNKNOWN_CACHED = 1000;

/**
 * Portal lookups for web requests with a short in-process cache, as the tenant registry has:
 * a WebLink request through a portal costs a map lookup. In a web process the cache is forgotten
 * and trusted with the registry's (a portal or tenant change is announced by the database and
 * reaches every web process at once); elsewhere entries last TENANT_CACHE_TTL_MS, misses 2 s.
 * Bounded, least recently used out first; names that are not host names are never looked up.
 */
export class PortalDirectory {
  private readonly byDomainCache: LRUCache<string, PortalRow>;
  private readonly byIdCache: LRUCache<number, PortalRow>;
  private readonly unknown: LRUCache<string, true>;

  constructor(
    private readonly knex: Knex,
    private readonly registry: TenantRegistry,
    ttlMs: number,
    maxPortals = 20_000,
  ) {
    const ttl = Math.max(1, ttlMs);
    this.byDomainCache = new LRUCache({ max: maxPortals, ttl });
    this.byIdCache = new LRUCache({ max: maxPortals, ttl });
    this.unknown = new LRUCache({ max: MAX_UNKNOWN_CACHED, ttl: Math.max(1, Math.min(ttlMs, 2000)) });
    // Forgotten with the registry, on the database's word (a portal or tenant changed), and trusted as it is.
    registry.onForget(() => [this.byDomainCache, this.byIdCache, this.unknown].forEach((c) => c.clear()));
  }

  /** The portal of a domain as a client sends it (normalised first); undefined when there is none. */
  async byDomain(domainInput: string): Promise<ResolvedPortal | undefined> {
    const { domain } = normaliseDomain(domainInput);
    if (domain === null) return undefined;
    return this.resolve(
      (this.registry.trusted ? this.byDomainCache.get(domain) : undefined) ??
        (await this.load(`d:${domain}`, () => portalByDomain(this.knex, domain))),
    );
  }

  async byId(id: number): Promise<ResolvedPortal | undefined> {
    return this.resolve(
      (this.registry.trusted ? this.byIdCache.get(id) : undefined) ?? (await this.load(`i:${id}`, () => portalById(this.knex, id))),
    );
  }

  private async load(key: string, read: () => Promise<PortalRow | undefined>): Promise<PortalRow | undefined> {
    if (this.registry.trusted && this.unknown.has(key)) return undefined;
    const mark = this.registry.mark();
    const row = await read();
    if (this.registry.forgotSince(mark)) return row;
    if (!row) {
      this.unknown.set(key, true);
      return undefined;
    }
    this.byDomainCache.set(row.domain, row);
    this.byIdCache.set(row.id, row);
    return row;
  }

  private async resolve(row: PortalRow | undefined): Promise<ResolvedPortal | undefined> {
    if (!row) return undefined;
    const tenant = await this.registry.byId(row.tenant_id);
    return tenant ? { portal: { id: row.id, domain: row.domain, tenantId: row.tenant_id }, tenant } : undefined;
  }
}

/**
 * A guest token for the portal of `domain` (`POST /portal/guest`): 400 when it is not a host
 * name, 404 when no active instance has that portal.
 */
export async function issueGuestToken(
  directory: PortalDirectory,
  keys: readonly string[],
  domainInput: unknown,
): Promise<{ token: string; expiresIn: number }> {
  const { domain, problems } = normaliseDomain(domainInput);
  if (domain === null) throw new BadRequestError(problems[0]!.message, undefined, 'invalid_domain');
  const found = await directory.byDomain(domain);
  if (!found) throw new NotFoundError(`No portal ${domain}`, 'portal_not_found');
  const { token } = signPortalToken(keys, { portalId: found.portal.id, tenantId: found.tenant.id });
  return { token, expiresIn: PORTAL_TOKEN_TTL_SECONDS };
}
