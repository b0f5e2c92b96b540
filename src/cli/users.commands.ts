import { requestTenantStats } from '../modules/tenant-stats/tenant-stats.service.js';
import { createRole, listRoles } from '../modules/users/roles.service.js';
import { createUser } from '../modules/users/users.service.js';
import { inTenant, str, tenantFlag, type Commands } from './command.js';

/** A tenant's users and roles. */
export const userCommands: Commands = {
  'users:create': {
    summary: "Create a tenant user with a role ('admin' has every permission)",
    flags: {
      tenant: { required: true, description: 'tenant slug' },
      email: { required: true, description: 'login email' },
      password: { required: true, description: 'at least 10 characters' },
      role: { description: 'role name (default admin)' },
    },
    async run(rt, flags) {
      const role = typeof flags.role === 'string' ? flags.role : 'admin';
      const { user, tenant } = await inTenant(rt, flags, async (db, tenant) => {
        const u = await createUser(db, { email: str(flags, 'email'), password: str(flags, 'password'), role });
        await requestTenantStats(db, tenant.id);
        return { user: u, tenant };
      });
      return { output: { id: user.id, email: user.email, tenant: tenant.slug, role: user.role } };
    },
  },
  'roles:create': {
    summary:
      "Create a role: a named set of permissions (<ENTITY>_VIEW / <ENTITY>_EDIT, '*', '*_VIEW'); give it to users with users:create --role",
    flags: {
      ...tenantFlag,
      name: { required: true, description: 'e.g. editor' },
      permissions: { required: true, description: 'comma-separated, e.g. COURSE_TEMPLATE_VIEW,COURSE_TEMPLATE_EDIT' },
    },
    async run(rt, flags) {
      const permissions = str(flags, 'permissions')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      return { output: await inTenant(rt, flags, (db) => createRole(db, { name: str(flags, 'name'), permissions })) };
    },
  },
  'roles:list': {
    summary: "A tenant's roles and their permissions",
    flags: tenantFlag,
    run: async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => listRoles(db)) }),
  },
};
