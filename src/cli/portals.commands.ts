import { addPortal, listPortals, removePortal } from '../modules/portals/portals.service.js';
import { str, tenantBySlug, tenantFlag, type Commands } from './command.js';

/** Portals: the website addresses an instance's WebLink catalogue is published at. */
export const portalCommands: Commands = {
  'portals:add': {
    summary:
      "Add a portal (a website address of the instance's WebLink catalogue; https://x.example/ is taken as x.example); a domain belongs to one instance",
    flags: { ...tenantFlag, domain: { required: true, description: 'host name, e.g. acme.administrateweblink.com' } },
    async run(rt, flags) {
      const tenant = await tenantBySlug(rt, str(flags, 'tenant'));
      const p = await addPortal(rt.knex, tenant, { domain: str(flags, 'domain'), createdBy: 'ops CLI' });
      return { output: { domain: p.domain, tenant: tenant.slug, createdAt: p.createdAt } };
    },
  },
  'portals:list': {
    summary: 'List portals by domain, with their instance',
    flags: { tenant: { description: "only this tenant's portals" } },
    async run(rt, flags) {
      const tenant = typeof flags.tenant === 'string' ? await tenantBySlug(rt, flags.tenant) : undefined;
      const portals = await listPortals(rt.knex, tenant ? { tenantId: tenant.id } : {});
      const slugs = new Map((await rt.registry.list()).map((t) => [t.id, t.slug]));
      return { output: portals.map(({ tenantId, ...p }) => ({ ...p, tenant: slugs.get(tenantId) ?? null })) };
    },
  },
  'portals:remove': {
    summary: 'Remove a portal: its website gets no more portal tokens, and the ones it has stop working',
    flags: { domain: { required: true, description: 'the portal host name' } },
    async run(rt, flags) {
      const { tenantId, ...p } = await removePortal(rt.knex, str(flags, 'domain'));
      const tenant = (await rt.registry.byId(tenantId))?.slug ?? null;
      return { output: { ...p, tenant, removed: true } };
    },
  },
};
