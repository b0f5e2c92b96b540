import { allTenants } from '../platform/tenancy/tenants.data.js';
import { createTenant } from '../platform/tenancy/provision.js';
import { restBaseUrl, str } from './command.js';
import type { Runners } from './manifest.js';

/**
 * How long ago, in words ("40 seconds", "12 minutes", "3 hours", "2 days"): the counters are
 * recounted by the worker only when asked (users:create, seed:demo), so they can be hours old.
 */
export function ageInWords(since: Date, now = new Date()): string {
  const s = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 1000));
  const [n, unit] =
    s < 120
      ? [s, 'second']
      : s < 7200
        ? [Math.floor(s / 60), 'minute']
        : s < 172_800
          ? [Math.floor(s / 3600), 'hour']
          : [Math.floor(s / 86_400), 'day'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** Tenants: create one (its own schema at the latest migration), list them. */
export const runners: Runners<'tenants'> = {
  async 'tenants:create'(rt, flags) {
    const t = await createTenant(rt.knex, { slug: str(flags, 'slug'), name: str(flags, 'name') });
    return { output: { id: t.id, slug: t.slug, schema: t.schema, restBaseUrl: restBaseUrl(rt.config, t.slug) } };
  },
  async 'tenants:list'(rt) {
    const rows = await allTenants(rt.knex);
    const now = new Date();
    return {
      output: rows.map((r) => ({
        id: r.id,
        slug: r.slug,
        name: r.name,
        schema: r.schema_name,
        status: r.status,
        restBaseUrl: restBaseUrl(rt.config, r.slug),
        stats: r.stats,
        // When the worker last counted them (null: never), and how long ago that is.
        statsAsOf: r.stats_updated_at?.toISOString() ?? null,
        statsAge: r.stats_updated_at ? ageInWords(r.stats_updated_at, now) : 'never counted',
        createdAt: r.created_at,
      })),
    };
  },
};
