import Router from '@koa/router';
import { tenantBaseUrl } from '../../config.js';
import { tenantOf, type AppState } from '../../http/context.js';
import type { Runtime } from '../../runtime.js';
import { withTenant } from '../../tenancy/with-tenant.js';

/**
 * `GET /` on a tenant's host: a small public discovery document read from the tenant's own
 * schema, telling a client where the tenant's APIs are.
 */
export function tenantInfoRoutes(rt: Runtime): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/', async (ctx) => {
    const tenant = tenantOf(ctx);
    const settings = await withTenant(rt.knex, tenant, (db) => db('settings').select('name').first<{ name: string }>());
    const base = tenantBaseUrl(rt.config, tenant.slug);
    ctx.body = {
      tenant: tenant.slug,
      name: settings.name,
      links: { rest: `${base}/api/v2`, graphql: `${base}/graphql` },
    };
  });
  return router;
}
