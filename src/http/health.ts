import Router from '@koa/router';
import { pingDb } from '../db/knex.js';
import { withTimeout } from '../util/net.js';
import type { Runtime } from '../runtime.js';
import type { AppState } from './context.js';
import type { Metrics } from './metrics.js';
import { migrationGuideHtml, MIGRATION_MAP } from '../rest/migration-guide.js';
import { openApiDocument } from '../rest/openapi.js';
import { EXTRA_OPENAPI_PATHS, RESOURCES } from '../rest/routes.js';

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
  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  return router;
}
