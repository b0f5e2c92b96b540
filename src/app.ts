import Koa from 'koa';
import compose from 'koa-compose';
import { bodyParsing } from './http/body.js';
import type { AppState } from './http/context.js';
import { errorMapping } from './http/errors.js';
import { platformRoutes } from './http/health.js';
import { createMetrics } from './http/metrics.js';
import { queueDashboard } from './http/queue-dashboard.js';
import { requestContext } from './http/request-id.js';
import { resolveTenant } from './http/tenant.js';
import { restDeprecation } from './http/deprecation.js';
import { tenantInfoRoutes } from './modules/tenant-info/tenant-info.routes.js';
import { legacyRestRoutes } from './rest/routes.js';
import type { Runtime } from './runtime.js';

/**
 * The web application. Middleware is declared here, once, in order: request id and access log,
 * error mapping, metrics, body limits; then host-independent platform routes; then everything
 * else is a tenant route, resolved from the Host header.
 */
export function createApp(rt: Runtime): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: rt.config.env === 'production' });
  const metrics = createMetrics(rt.queues);
  const platform = platformRoutes(rt, metrics);
  const tenantRouters = [tenantInfoRoutes(rt), legacyRestRoutes(rt, rt.legacyUsage)];
  rt.legacyUsage.start();
  const deprecation = restDeprecation({ enabled: rt.config.legacyRestApi, graphqlUrl: (host) => `${rt.config.publicScheme}://${host}/graphql` });

  app.use(requestContext(rt.log));
  app.use(errorMapping());
  app.use(metrics.middleware);
  // Every /api/v2 response, errors and unknown tenants included, carries the deprecation headers.
  app.use((ctx, next) => (ctx.path === '/api/v2' || ctx.path.startsWith('/api/v2/') ? deprecation(ctx, next) : next()));
  app.use(bodyParsing(rt.config.bodyLimit));
  app.use(platform.routes());
  app.use(platform.allowedMethods());
  app.use(queueDashboard(rt));
  app.use(
    compose([
      resolveTenant(rt.registry, rt.config.baseDomain),
      ...tenantRouters.flatMap((r) => [r.routes(), r.allowedMethods()]),
    ]),
  );
  return app;
}
