import { LRUCache } from 'lru-cache';
import type { ChangeListener } from '../db/change-listener.js';
import type { Knex } from '../db/knex.js';
import { isValidSlug } from './slug.js';
import type { Tenant } from './tenant.js';
import { activeTenantById, activeTenantBySlug, activeTenants, toTenant } from './tenants.data.js';

/** Names that are no tenant, remembered briefly so a flood of them costs no lookups; at most this many. */
export const MAX_UNKNOWN_CACHED = 1000;

/**
 * Looks tenants up by slug or id with a short in-process cache, so resolving the tenant of a
 * request costs one map lookup whatever the number of tenants. Every cache is bounded (least
 * recently used out first), and a name that cannot be a slug is never looked up or kept: a caller
 * choosing Host headers can neither grow the heap nor reach the database with junk.
 *
 * In a web process ({@link listenTo}) the database announces every tenant change (platform
 * migration 009): a tenant suspended, renamed or removed is forgotten at once, a tenant made is
 * reachable at once, and, as the listener may have missed announcements while its connection was
 * down, nothing is served from the cache then, and nothing cached before once it is back.
 * Elsewhere (workers, the CLI) entries last TENANT_CACHE_TTL_MS, names that are no tenant 2 s.
 * A request's own database work checks that its tenant is still active anyway, in the round trip
 * of its first statement (withRequestDb).
 */
export class TenantRegistry {
  // Tenants found, by slug and by id; names found to be no tenant, apart, so a flood of unknown
  // names can only push out other unknown names, never the tenants being served. Each entry
  // remembers the listener's epoch it was read in.
  private readonly bySlugCache: LRUCache<string, Remembered<Tenant>>;
  private readonly byIdCache: LRUCache<number, Remembered<Tenant>>;
  private readonly unknown: LRUCache<string, Remembered<true>>;
  private listener: ChangeListener | undefined;
  private readonly forgetting: (() => void)[] = [];
  /** Moves when everything is forgotten, or portals changed: a lookup under way keeps nothing. */
  private version = 0;
  /** Moves when a tenant is made: a lookup under way keeps no "no such tenant". */
  private unknownVersion = 0;
  /** Moves per tenant forgotten lately (`i:<id>`, `s:<slug>`): a lookup of it under way keeps nothing. */
  private readonly stamps = new LRUCache<string, number>({ max: 10_000 });

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

  /**
   * Follows the database's announcements of tenant and portal changes (platform migration 009;
   * a web process): forgets what each concerns, and serves from the cache only while `listener`
   * hears them, once it is in use.
   */
  listenTo(listener: ChangeListener): void {
    this.listener = listener;
    listener.onChange((payload) => {
      if (payload === 'tenants:new') {
        this.unknownVersion++;
        this.unknown.clear();
      } else if (payload.startsWith('tenant:')) {
        // tenant:<id>:<old slug>:<new slug>
        const [, id, ...slugs] = payload.split(':');
        this.forgetTenant(Number(id), slugs);
      } else if (payload === 'tenants') this.forget();
      else if (payload === 'portals') this.changed();
    });
    listener.onReset(() => this.forget());
  }

  /**
   * `handler` runs whenever this registry forgets everything, and when portals change: caches of
   * tenant-level things (portal lookups) forget with it. (A tenant suspended or removed needs no
   * telling: they find their tenant through this registry.)
   */
  onForget(handler: () => void): void {
    this.forgetting.push(handler);
  }

  /** Forgets every tenant and unknown name, and tells {@link onForget}'s handlers. */
  forget(): void {
    this.bySlugCache.clear();
    this.byIdCache.clear();
    this.unknown.clear();
    this.changed();
  }

  private changed(): void {
    this.version++;
    for (const h of this.forgetting) h();
  }

  /** Forgets one tenant, by its id and its names (old and new). */
  forgetTenant(id: number, slugs: readonly string[]): void {
    this.byIdCache.delete(id);
    this.stamps.set(`i:${id}`, (this.stamps.get(`i:${id}`) ?? 0) + 1);
    for (const slug of slugs) {
      this.bySlugCache.delete(slug);
      this.unknown.delete(slug);
      this.stamps.set(`s:${slug}`, (this.stamps.get(`s:${slug}`) ?? 0) + 1);
    }
  }

  /** A mark to tell, after a lookup, whether the registry forgot everything meanwhile, or portals changed ({@link forgotSince}). */
  mark(): number {
    return this.version;
  }

  /** Whether the registry forgot everything (or its listener dropped), or portals changed, since `mark`: what was read meanwhile may be old. */
  forgotSince(mark: number): boolean {
    return mark !== this.version;
  }

  /**
   * Whether cached lookups may be served now: always without a listener (workers, the CLI: up to
   * the TTL), else only while it hears the database. Caches of tenant-level things ask it too.
   */
  get trusted(): boolean {
    return !this.listener?.inUse || this.listener.live;
  }

  private since(key: string): Since {
    return {
      epoch: this.listener?.epoch ?? 0,
      version: this.version,
      unknownVersion: this.unknownVersion,
      stamp: this.stamps.get(key) ?? 0,
    };
  }

  /** Whether nothing that concerns `key` was forgotten since `since`: a lookup read meanwhile may be kept. */
  private unchanged(key: string, since: Since, unknown = false): boolean {
    const now = this.since(key);
    return (
      now.epoch === since.epoch &&
      now.version === since.version &&
      now.stamp === since.stamp &&
      (!unknown || now.unknownVersion === since.unknownVersion)
    );
  }

  private fresh<V>(entry: Remembered<V> | undefined): V | undefined {
    return entry && this.trusted && entry.epoch === (this.listener?.epoch ?? 0) ? entry.value : undefined;
  }

  async bySlug(slug: string): Promise<Tenant | undefined> {
    if (!isValidSlug(slug)) return undefined;
    const hit = this.fresh(this.bySlugCache.get(slug));
    if (hit) return hit;
    if (this.fresh(this.unknown.get(slug))) return undefined;
    const key = `s:${slug}`;
    const since = this.since(key);
    const row = await activeTenantBySlug(this.knex, slug);
    if (!row) {
      if (this.unchanged(key, since, true)) this.unknown.set(slug, { value: true, epoch: since.epoch });
      return undefined;
    }
    const tenant = toTenant(row);
    if (this.unchanged(key, since)) this.bySlugCache.set(slug, { value: tenant, epoch: since.epoch });
    return tenant;
  }

  /** By id, for workers (job payloads carry tenant ids). Only hits are cached: a job for a tenant that is gone is rare. */
  async byId(id: number): Promise<Tenant | undefined> {
    const hit = this.fresh(this.byIdCache.get(id));
    if (hit) return hit;
    const key = `i:${id}`;
    const since = this.since(key);
    const row = await activeTenantById(this.knex, id);
    const tenant = row ? toTenant(row) : undefined;
    if (tenant && this.unchanged(key, since)) this.byIdCache.set(id, { value: tenant, epoch: since.epoch });
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

/** A cached lookup, with the listener's epoch it was read in. */
interface Remembered<V> {
  value: V;
  epoch: number;
}

/** What a lookup notes as it starts, to tell whether what it read may be kept. */
interface Since {
  epoch: number;
  version: number;
  unknownVersion: number;
  stamp: number;
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
