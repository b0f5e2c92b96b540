import crypto from 'node:crypto';
import Router from '@koa/router';
import { pingDb } from '../platform/db/knex.js';
import { withTimeout } from '../platform/util/net.js';
import type { Runtime } from './runtime.js';
import type { AppMiddleware, AppState } from '../kit/http/context.js';
import { platformAdminAuth } from '../modules/admins/admin-auth.js';
import { UnauthorizedError } from '../platform/errors.js';
import { slugFromHost } from '../platform/tenancy/registry.js';
import type { Metrics } from '../kit/http/metrics.js';
import { migrationGuideHtml, MIGRATION_MAP } from './migration-guide.js';
import { openApiDocument } from '../kit/rest/openapi.js';
import { EXTRA_OPENAPI_PATHS, RESOURCES } from './rest-routes.js';

/** Host-independent operational routes: liveness, readiness and Prometheus metrics. */
export function platformRoutes(rt: Runtime, metrics: Metrics): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const [database, queue] = await Promise.allSettled([withTimeout(pingDb(rt.knex), 2000), withTimeout(rt.queues.ping(), 2000)]);
    const checks = {
      database: database.status === 'fulfilled' ? 'ok' : 'unreachable',
      queue: queue.status === 'fulfilled' ? 'ok' : 'unreachable',
    };
    const ready = checks.database === 'ok' && checks.queue === 'ok';
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks, queueBackend: rt.queues.kind };
  });
  // Public documents of the legacy REST API: same on every host, no credentials needed.
  const openapi = openApiDocument(RESOURCES, EXTRA_OPENAPI_PATHS);
  router.get('/api/v2/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  router.get('/api/v2/migration', (ctx) => {
    if (ctx.accepts('html', 'json') === 'json') ctx.body = MIGRATION_MAP;
    else {
      ctx.type = 'html';
      ctx.body = migrationGuideHtml();
    }
  });
  // What the process is doing (routes, latencies, queue depths, memory) is for the platform's
  // operators: on the platform host only, for the metrics token or a platform administrator.
  const scraper = metricsAccess(rt);
  router.get('/metrics', async (ctx, next) => {
    if (slugFromHost(ctx.get('host'), rt.config.baseDomain) !== undefined) return next();
    await scraper(ctx, async () => {
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    });
  });
  return router;
}

/**
 * `Authorization: Bearer <METRICS_TOKEN>` (what a Prometheus scrape job sends; compared in
 * constant time), or a platform administrator's Basic credentials (a person looking).
 */
function metricsAccess(rt: Runtime): AppMiddleware {
  const admin = platformAdminAuth(rt.knex, rt.passwords);
  const expected = rt.config.metricsToken ? crypto.createHash('sha256').update(rt.config.metricsToken).digest() : undefined;
  return async (ctx, next) => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
    if (bearer !== undefined) {
      const given = crypto.createHash('sha256').update(bearer).digest();
      if (expected && crypto.timingSafeEqual(given, expected)) return next();
      ctx.set('WWW-Authenticate', 'Bearer realm="Lectern metrics", error="invalid_token"');
      throw new UnauthorizedError('The metrics token is not valid', 'invalid_credentials');
    }
    return admin(ctx, next);
  };
}
