import { requestTenantStats } from '../modules/tenant-stats/tenant-stats.service.js';
import { createRole, listRoles } from '../modules/users/roles.service.js';
import { createUser } from '../modules/users/users.service.js';
import { inTenant, str } from './command.js';
import type { Runners } from './manifest.js';

/** A tenant's users and roles. */
export const runners: Runners<'users'> = {
  async 'users:create'(rt, flags) {
    const role = typeof flags.role === 'string' ? flags.role : 'admin';
    const { user, tenant } = await inTenant(rt, flags, async (db, tenant) => {
      const u = await createUser(db, { email: str(flags, 'email'), password: str(flags, 'password'), role });
      await requestTenantStats(db, tenant.id);
      return { user: u, tenant };
    });
    return { output: { id: user.id, email: user.email, tenant: tenant.slug, role: user.role } };
  },
  async 'roles:create'(rt, flags) {
    const permissions = str(flags, 'permissions')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    return { output: await inTenant(rt, flags, (db) => createRole(db, { name: str(flags, 'name'), permissions })) };
  },
  'roles:list': async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => listRoles(db)) }),
};
