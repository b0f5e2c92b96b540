import type Koa from 'koa';
import type { Logger } from '../../platform/logger.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';

/** What middleware puts on `ctx.state` for the handlers after it. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** Set by the tenant middleware on tenant routes. */
  tenant?: Tenant;
  /** Route template for metrics (`/api/v2/crm/contacts/:id`), set by the router. */
  routeName?: string;
}

export type AppContext = Koa.ParameterizedContext<AppState>;
export type AppMiddleware = Koa.Middleware<AppState>;

/** The tenant of a tenant route; the tenant middleware guarantees it is there. */
export function tenantOf(ctx: AppContext): Tenant {
  const tenant = ctx.state.tenant;
  if (!tenant) throw new Error('tenant route mounted without the tenant middleware');
  return tenant;
}
