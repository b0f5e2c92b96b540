import { LRUCache } from 'lru-cache';
import type { Knex } from '../db/knex.js';
import { isValidSlug } from './slug.js';
import type { Tenant } from './tenant.js';
import { activeTenantById, activeTenantBySlug, activeTenants, toTenant } from './tenants.data.js';

/** Names that are no tenant, remembered briefly so a flood of them costs no lookups; at most this many. */
export const MAX_UNKNOWN_CACHED = 1000;

/**
 * Looks tenants up by slug or id with a short in-process cache, so resolving the tenant of a
 * request costs one map lookup whatever the number of tenants. Misses are cached more briefly,
 * so a tenant created by the CLI is reachable within a couple of seconds. Every cache is bounded
 * (least recently used out first), and a name that cannot be a slug is never looked up or kept:
 * a caller choosing Host headers can neither grow the heap nor reach the database with junk.
 */
export class TenantRegistry {
  // Tenants found, by slug and by id; names found to be no tenant, apart, so a flood of unknown
  // names can only push out other unknown names, never the tenants being served.
  private readonly bySlugCache: LRUCache<string, Tenant>;
  private readonly byIdCache: LRUCache<number, Tenant>;
  private readonly unknown: LRUCache<string, true>;

  constructor(
    private readonly knex: Knex,
    ttlMs: number,
    maxTenants = 20_000,
  ) {
    // A TTL of 0 means "do not cache" (tests and the CLI see changes at once).
    const ttl = Math.max(1, ttlMs);
    this.bySlugCache = new LRUCache({ max: maxTenants, ttl });
    this.byIdCache = new LRUCache({ max: maxTenants, ttl });
    this.unknown = new LRUCache({ max: MAX_UNKNOWN_CACHED, ttl: Math.max(1, Math.min(ttlMs, 2000)) });
  }

  async bySlug(slug: string): Promise<Tenant | undefined> {
    if (!isValidSlug(slug)) return undefined;
    const hit = this.bySlugCache.get(slug);
    if (hit) return hit;
    if (this.unknown.has(slug)) return undefined;
    const row = await activeTenantBySlug(this.knex, slug);
    if (!row) {
      this.unknown.set(slug, true);
      return undefined;
    }
    const tenant = toTenant(row);
    this.bySlugCache.set(slug, tenant);
    return tenant;
  }

  /** By id, for workers (job payloads carry tenant ids). Only hits are cached: a job for a tenant that is gone is rare. */
  async byId(id: number): Promise<Tenant | undefined> {
    const hit = this.byIdCache.get(id);
    if (hit) return hit;
    const row = await activeTenantById(this.knex, id);
    const tenant = row ? toTenant(row) : undefined;
    if (tenant) this.byIdCache.set(id, tenant);
    return tenant;
  }

  /** How many tenants and unknown names this process remembers (tests, diagnostics). */
  cached(): { known: number; unknown: number } {
    return { known: this.bySlugCache.size, unknown: this.unknown.size };
  }

  async list(): Promise<Tenant[]> {
    const rows = await activeTenants(this.knex);
    return rows.map(toTenant);
  }

}

/**
 * `acme.localhost:3000` with base domain `localhost` -> `acme`. The port is ignored; anything
 * that is not exactly one label under the base domain is not a tenant host.
 */
export function slugFromHost(host: string, baseDomain: string): string | undefined {
  const hostname = host.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const suffix = `.${baseDomain}`;
  if (!hostname.endsWith(suffix)) return undefined;
  const label = hostname.slice(0, -suffix.length);
  return label && !label.includes('.') ? label : undefined;
}
