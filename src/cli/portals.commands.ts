import { addPortal, listPortals, removePortal } from '../modules/portals/portals.service.js';
import { str, tenantBySlug } from './command.js';
import type { Runners } from './manifest.js';

/** Portals: the website addresses an instance's WebLink catalogue is published at. */
export const runners: Runners<'portals'> = {
  async 'portals:add'(rt, flags) {
    const tenant = await tenantBySlug(rt, str(flags, 'tenant'));
    const p = await addPortal(rt.knex, tenant, { domain: str(flags, 'domain'), createdBy: 'ops CLI' });
    return { output: { domain: p.domain, tenant: tenant.slug, createdAt: p.createdAt } };
  },
  async 'portals:list'(rt, flags) {
    const tenant = typeof flags.tenant === 'string' ? await tenantBySlug(rt, flags.tenant) : undefined;
    const portals = await listPortals(rt.knex, tenant ? { tenantId: tenant.id } : {});
    const slugs = new Map((await rt.registry.list()).map((t) => [t.id, t.slug]));
    return { output: portals.map(({ tenantId, ...p }) => ({ ...p, tenant: slugs.get(tenantId) ?? null })) };
  },
  async 'portals:remove'(rt, flags) {
    const { tenantId, ...p } = await removePortal(rt.knex, str(flags, 'domain'));
    const tenant = (await rt.registry.byId(tenantId))?.slug ?? null;
    return { output: { ...p, tenant, removed: true } };
  },
};
