import { NotFoundError } from '../../platform/errors.js';
import { slugFromHost, type TenantRegistry } from '../../platform/tenancy/registry.js';
import type { AppMiddleware } from './context.js';
import { bindLog } from './request-id.js';

/** Resolves the tenant from the Host header (`<slug>.<BASE_DOMAIN>`); 404 when there is none. */
export function resolveTenant(registry: TenantRegistry, baseDomain: string): AppMiddleware {
  return async (ctx, next) => {
    const host = ctx.get('host');
    const slug = slugFromHost(host, baseDomain);
    const tenant = slug ? await registry.bySlug(slug) : undefined;
    if (!tenant) {
      throw new NotFoundError(`No tenant at host '${host}'. Tenants are addressed as <slug>.${baseDomain}`, 'tenant_not_found');
    }
    ctx.state.tenant = tenant;
    bindLog(ctx, { tenant: tenant.slug });
    await next();
  };
}
