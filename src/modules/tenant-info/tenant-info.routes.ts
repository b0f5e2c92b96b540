import Router from '@koa/router';
import { tenantBaseUrl } from '../../platform/config.js';
import { tenantOf, type AppState } from '../../kit/http/context.js';
import type { PlatformRuntime } from '../../platform/runtime.js';
import { withRequestDb } from '../../kit/http/request-db.js';
import { settingsName } from '../../platform/tenancy/settings.data.js';

/**
 * `GET /` on a tenant's host: a small public discovery document read from the tenant's own
 * schema, telling a client where the tenant's APIs are.
 */
export function tenantInfoRoutes(rt: PlatformRuntime): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/', async (ctx) => {
    const tenant = tenantOf(ctx);
    const settings = await withRequestDb(rt, tenant, 'api', (db) => settingsName(db), { readOnly: true });
    const base = tenantBaseUrl(rt.config, tenant.slug);
    ctx.body = {
      tenant: tenant.slug,
      name: settings.name,
      links: { rest: `${base}/api/v2`, graphql: `${base}/graphql` },
    };
  });
  return router;
}
