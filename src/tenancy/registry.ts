import type { Knex } from '../db/knex.js';
import { PLATFORM_SCHEMA, type Tenant } from './tenant.js';

interface Entry {
  tenant: Tenant | undefined;
  expires: number;
}

interface TenantRow {
  id: number;
  slug: string;
  name: string;
  schema_name: string;
  status: string;
}

const toTenant = (r: TenantRow): Tenant => ({ id: r.id, slug: r.slug, name: r.name, schema: r.schema_name });

/**
 * Looks tenants up by slug or id with a short in-process cache, so resolving the tenant of a
 * request costs one map lookup whatever the number of tenants. Misses are cached more briefly,
 * so a tenant created by the CLI is reachable within a couple of seconds.
 */
export class TenantRegistry {
  private readonly bySlugCache = new Map<string, Entry>();
  private readonly byIdCache = new Map<number, Entry>();
  private readonly missTtlMs: number;

  constructor(
    private readonly knex: Knex,
    private readonly ttlMs: number,
  ) {
    this.missTtlMs = Math.min(ttlMs, 2000);
  }

  async bySlug(slug: string): Promise<Tenant | undefined> {
    const now = Date.now();
    const hit = this.bySlugCache.get(slug);
    if (hit && hit.expires > now) return hit.tenant;
    const row = await this.knex<TenantRow>(`${PLATFORM_SCHEMA}.tenants`).where({ slug, status: 'active' }).first();
    const tenant = row ? toTenant(row) : undefined;
    this.bySlugCache.set(slug, { tenant, expires: now + (tenant ? this.ttlMs : this.missTtlMs) });
    return tenant;
  }

  /** By id, for workers (job payloads carry tenant ids). Only hits are cached: a job for a tenant that is gone is rare. */
  async byId(id: number): Promise<Tenant | undefined> {
    const now = Date.now();
    const hit = this.byIdCache.get(id);
    if (hit && hit.expires > now) return hit.tenant;
    const row = await this.knex<TenantRow>(`${PLATFORM_SCHEMA}.tenants`).where({ id, status: 'active' }).first();
    const tenant = row ? toTenant(row) : undefined;
    if (tenant) this.byIdCache.set(id, { tenant, expires: now + this.ttlMs });
    else this.byIdCache.delete(id);
    return tenant;
  }

  async list(): Promise<Tenant[]> {
    const rows = await this.knex<TenantRow>(`${PLATFORM_SCHEMA}.tenants`).where({ status: 'active' }).orderBy('id');
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
