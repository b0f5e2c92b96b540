import { allTenants } from '../platform/tenancy/tenants.data.js';
import { createTenant } from '../platform/tenancy/provision.js';
import { restBaseUrl, str, type Commands } from './command.js';

/** Tenants: create one (its own schema at the latest migration), list them. */
export const tenantCommands: Commands = {
  'tenants:create': {
    summary: 'Create a tenant with its own schema at the latest migration',
    flags: { slug: { required: true, description: 'host label, e.g. acme' }, name: { required: true, description: 'display name' } },
    async run(rt, flags) {
      const t = await createTenant(rt.knex, { slug: str(flags, 'slug'), name: str(flags, 'name') });
      return { output: { id: t.id, slug: t.slug, schema: t.schema, restBaseUrl: restBaseUrl(rt.config, t.slug) } };
    },
  },
  'tenants:list': {
    summary: 'List tenants with their schema, REST address and counters',
    flags: {},
    async run(rt) {
      const rows = await allTenants(rt.knex);
      return {
        output: rows.map((r) => ({
          id: r.id,
          slug: r.slug,
          name: r.name,
          schema: r.schema_name,
          status: r.status,
          restBaseUrl: restBaseUrl(rt.config, r.slug),
          stats: r.stats,
          createdAt: r.created_at,
        })),
      };
    },
  },
};
