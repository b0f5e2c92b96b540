import { moveTenantSchema } from '../platform/tenancy/placement.data.js';
import { UsageError, str, tenantBySlug } from './command.js';
import type { Runners } from './manifest.js';

/** Where tenants live on a Citus cluster: move one to another node. */
export const runners: Runners<'placement'> = {
  async 'tenants:move'(rt, flags) {
    const node = str(flags, 'node');
    const m = /^([A-Za-z0-9.-]{1,253}):(\d{1,5})$/.exec(node);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new UsageError(`--node must be host:port (got ${node})`);
    const tenant = await tenantBySlug(rt, str(flags, 'tenant'));
    const placed = await moveTenantSchema(rt.knex, tenant.schema, { host: m[1]!, port: Number(m[2]) });
    return { output: { tenant: tenant.slug, ...placed } };
  },
};
