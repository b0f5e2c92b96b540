import { webhookMetrics } from './webhook-metrics.js';
import { demoImages } from './demo-images.js';
import { favicon } from './favicon.js';
import Koa from 'koa';
import type Router from '@koa/router';
import compose from 'koa-compose';
import { bodyParsing } from '../kit/http/body.js';
import { errorMapping } from '../kit/http/errors.js';
import { platformRoutes } from './health.js';
import { createMetrics } from '../kit/http/metrics.js';
import { queueDashboard } from './queue-dashboard.js';
import { logUnansweredErrors, requestContext } from '../kit/http/request-id.js';
import { resolveTenant } from '../kit/http/tenant.js';
import { restDeprecation } from '../kit/http/deprecation.js';
import { tenantInfoRoutes } from '../modules/tenant-info/tenant-info.routes.js';
import { legacyRestRoutes } from './rest-routes.js';
import type { Runtime } from './runtime.js';
import { controlPanelRoutes } from '../modules/oauth/control-panel.routes.js';
import { graphqlEndpoint } from './graphql-endpoint.js';
import { platformAddress } from './landing.js';
import { requestBudget, weblinkEndpoint } from './weblink-endpoint.js';
import { PortalDirectory } from '../modules/portals/portals.service.js';
import { portalTokenRoutes } from '../modules/portals/portals.routes.js';
import { portalsControlPanelRoutes } from '../modules/portals/portals-control-panel.routes.js';
import { webhooksControlPanelRoutes } from '../modules/webhooks/webhooks-control-panel.routes.js';
import type { AppContext, AppMiddleware, AppState } from '../kit/http/context.js';
import { requireHttps } from '../kit/http/https.js';
import { pageErrors } from '../kit/http/pages.js';
import { csrfProtection, sessions } from '../kit/http/session.js';
import { SignIn } from '../modules/users/sign-in.service.js';
import { authorizeRoutes } from '../modules/oauth/authorize.routes.js';
import { createOAuthServers } from '../modules/oauth/oauth-server.js';
import { tokenRoutes } from '../modules/oauth/token.routes.js';
import { slugFromHost } from '../platform/tenancy/registry.js';
import type { GraphQLSchema } from 'graphql';

/** Middleware and routers run in order as one (routers' types carry route params the app's do not). */
const stack = (...parts: unknown[]): AppMiddleware => compose(parts as AppMiddleware[]) as unknown as AppMiddleware;

/** Runs `mw` only where `when` holds; elsewhere the request goes on untouched. */
const only =
  (when: (ctx: AppContext) => boolean, mw: AppMiddleware): AppMiddleware =>
  (ctx, next) =>
    when(ctx) ? mw(ctx, next) : next();

/**
 * The web application. Middleware is declared here, once, in order: request id and access log,
 * error mapping, metrics, body limits; then host-independent platform routes; the GraphQL
 * endpoint (platform and tenant hosts); the OAuth authorization server on the platform host;
 * the platform address's landing (`/`), and a wrong-address answer for a path asked on the
 * wrong host (see landing.ts); then everything else is a tenant route, resolved from the Host
 * header: the legacy REST API, and the Control Panel and account pages.
 */
export interface AppOptions {
  /** The Core GraphQL schema served (default: Lectern's; tests serve one with extra fields). */
  graphqlSchema?: GraphQLSchema;
  /** The WebLink schema served (default: Lectern's; tests serve one with extra fields). */
  weblinkSchema?: GraphQLSchema;
}

export function createApp(rt: Runtime, options: AppOptions = {}): Koa<AppState> {
  // Behind the router in production: X-Forwarded-Proto/Host are trusted, and the client address
  // (rate limits, sign-in throttling) is the one the router added, not one the client wrote.
  const app = new Koa<AppState>({ proxy: rt.config.env === 'production', maxIpsCount: rt.config.proxyHops });
  app.on('error', logUnansweredErrors(rt.log));
  // Users and tokens are cached only while the database's announcements are heard: listen from the start.
  void rt.changes.ensureStarted();
  const metrics = createMetrics(rt.queues, webhookMetrics(rt.knex, rt.config.queuePrefix));
  const platform = platformRoutes(rt, metrics);
  const tenantRouters = [tenantInfoRoutes(rt), legacyRestRoutes(rt, rt.legacyUsage)];
  rt.legacyUsage.start();
  const deprecation = restDeprecation({
    enabled: rt.config.legacyRestApi,
    graphqlUrl: (host) => `${rt.config.publicScheme}://${host}/graphql`,
  });

  app.use(requestContext(rt.log));
  // Metrics outside the error mapping, so a refused or failed request is counted with the status
  // it was answered with (inside it, a thrown error was counted as the default 404).
  app.use(metrics.middleware);
  app.use(errorMapping());
  // Every /api/v2 response, errors and unknown tenants included, carries the deprecation headers.
  app.use((ctx, next) => (ctx.path === '/api/v2' || ctx.path.startsWith('/api/v2/') ? deprecation(ctx, next) : next()));
  // The seeded demo's pictures, on every address (its documents point at the platform address's).
  app.use(demoImages());
  app.use(favicon());
  app.use(bodyParsing(rt.config.bodyLimit));
  app.use(platform.routes());
  app.use(platform.allowedMethods());
  app.use(queueDashboard(rt));
  app.use(graphqlEndpoint(rt, options.graphqlSchema));
  // Portals (an instance's website addresses): their guest tokens on every address, and WebLink
  // requests that name one on the platform address; one cache of portal lookups for both.
  const portals = new PortalDirectory(rt.knex, rt.registry, rt.config.tenantCacheTtlMs);
  const portalTokens = portalTokenRoutes({ portals, keys: rt.config.portalTokenKeys, budget: requestBudget(rt, 'portal_guest') });
  app.use(portalTokens.routes());
  app.use(portalTokens.allowedMethods());
  app.use(weblinkEndpoint(rt, options.weblinkSchema, { portals, metrics: metrics.registry }));

  // Pages (sign-in, consent, Control Panel): HTML errors, HTTPS, a session, CSRF on every form.
  const signIn = new SignIn(rt.knex, rt.passwords);
  const session = sessions(app, rt.knex, rt.config.sessionKeys);
  const pageStack = (...routers: Router<AppState>[]) =>
    stack(pageErrors(), requireHttps(rt.config), session, csrfProtection(), ...routers.flatMap((r) => [r.routes(), r.allowedMethods()]));
  const servers = createOAuthServers({ knex: rt.knex, registry: rt.registry }, rt.config);
  const onPlatformHost = (ctx: AppContext) => slugFromHost(ctx.get('host'), rt.config.baseDomain) === undefined;
  const token = tokenRoutes(servers);
  app.use(
    only(
      (ctx) => (ctx.path === '/oauth/token' || ctx.path === '/.well-known/oauth-authorization-server') && onPlatformHost(ctx),
      stack(
        requireHttps(rt.config, (ctx) => {
          ctx.status = 400;
          ctx.body = { error: 'invalid_request', error_description: 'HTTPS is required' };
        }),
        token.routes(),
        token.allowedMethods(),
      ),
    ),
  );
  app.use(
    only(
      (ctx) => ctx.path.startsWith('/oauth/') && onPlatformHost(ctx),
      pageStack(authorizeRoutes({ config: rt.config, registry: rt.registry, servers, signIn })),
    ),
  );

  // The platform address's own answers (`/`: where things are) and every other request to it;
  // on an instance's address, a path of the platform's answered with the address to use.
  app.use(platformAddress(rt));

  const tenantPages = pageStack(
    controlPanelRoutes({ knex: rt.knex, signIn }),
    portalsControlPanelRoutes({ knex: rt.knex }),
    webhooksControlPanelRoutes(rt),
  );
  app.use(
    compose([
      resolveTenant(rt.registry, rt.config.baseDomain),
      ...tenantRouters.flatMap((r) => [r.routes(), r.allowedMethods()]),
      only((ctx) => /^\/(control-panel|account)(\/|$)/.test(ctx.path), tenantPages),
    ]),
  );
  return app;
}
