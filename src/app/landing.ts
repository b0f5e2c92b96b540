import fs from 'node:fs/promises';
import path from 'node:path';
import type { AppContext, AppMiddleware } from '../kit/http/context.js';
import { html, Html, sendPage } from '../kit/http/pages.js';
import { listPortals } from '../modules/portals/portals.service.js';
import { PORTAL_GUEST_PATH } from '../modules/portals/portals.routes.js';
import { platformBaseUrl, tenantBaseUrl, type Config } from '../platform/config.js';
import { AppError, NotFoundError } from '../platform/errors.js';
import { slugFromHost } from '../platform/tenancy/registry.js';
import type { Tenant } from '../platform/tenancy/tenant.js';
import { GRAPHQL_PATH } from './graphql-endpoint.js';
import { DASHBOARD_PATH } from './queue-dashboard.js';
import type { Runtime } from './runtime.js';
import { WEBLINK_PATH } from './weblink-endpoint.js';

/**
 * The platform address (`http://localhost:3000` locally, `https://<BASE_DOMAIN>` in production)
 * for people and clients finding their way:
 * - `GET /` says where things are: a page for a browser (`Accept: text/html`), JSON for anything
 *   else ({@link Landing}). Outside production it lists the instances, each with its addresses;
 *   in production it lists none (a public root naming every customer would be a leak).
 * - `GET /examples/weblink/` serves the WebLink example page (examples/weblink/) outside
 *   production, so the landing page can link to it with the instance's portal filled in.
 * - A path of the platform asked on an instance's address (OAuth, the queue dashboard, metrics)
 *   and a path of an instance asked on the platform address (Control Panel, account pages, the
 *   REST API) are answered 404 `wrong_address`, naming the right address (a page for a browser).
 * - Anything else on the platform address is a 404 that points at `GET /`.
 * It runs after every route served on the platform address and before the instance's routes.
 */
export const EXAMPLE_PATH = '/examples/weblink';

/** Instances listed on the landing page at most (newest first); the rest are counted. */
export const INSTANCES_SHOWN = 50;

/** The seeded demo's slug (seeds/demo.ts): the instance named in a wrong-address answer outside production when it exists. */
const DEMO_SLUG = 'demo';

/** Whether the landing page lists the instances, and the example page is served: outside production. */
const forDevelopment = (config: Config) => config.env !== 'production';

/** What `GET /` answers an API client (see docs/configuration.md, "Addresses: the platform and the instances"). */
export interface Landing {
  name: 'Lectern';
  /** The platform address (the OAuth issuer). */
  address: string;
  /** How an instance is addressed: `http://<instance>.localhost:3000`. */
  instanceAddress: string;
  /** Outside production only: the instances, newest first, at most {@link INSTANCES_SHOWN}. */
  instances?: LandingInstance[];
  /** Outside production, when there are more instances than listed: how many more. */
  instancesNotShown?: number;
  /** The Core GraphQL API on the platform address (the tenant is the token's). */
  graphql: string;
  /** Outside production: GraphiQL (the same address, opened in a browser). */
  graphiql?: string;
  oauth: { issuer: string; authorize: string; token: string; metadata: string };
  /** WebLink through a portal: a guest token, then GraphQL with `weblink-portal: <domain>`. */
  weblink: { guestToken: string; graphql: string };
  /** The legacy REST API's documents (the API itself is on an instance's address). */
  rest: { openapi: string; migration: string };
  /** bull-board, for platform administrators. */
  queueDashboard: string;
  health: { live: string; ready: string };
  /** Prometheus metrics: METRICS_TOKEN as a bearer token, or a platform administrator's credentials. */
  metrics: string;
  /** Where the documentation is (nothing on this address serves it). */
  docs: string;
}

export interface LandingInstance {
  slug: string;
  name: string;
  address: string;
  controlPanel: string;
  graphql: string;
  graphiql?: string;
  /** The legacy REST API v2 (HTTP Basic). */
  rest: string;
  /** WebLink GraphQL on the instance's address (anonymous, public catalogue). */
  weblink: string;
  /** Its portals' domains, oldest first (websites that ask WebLink through the platform address). */
  portals: string[];
  /** The WebLink example page for its first portal (the oldest); null without a portal. */
  weblinkExample: string | null;
}

const DOCS = 'README.md at the root of the repository, then docs/ (one page per area: REST, GraphQL, OAuth, configuration...)';

/** Paths served on the platform address only, and how to name what they are. */
const PLATFORM_ONLY: { matches: (path: string, config: Config) => boolean; what: string }[] = [
  { matches: (p) => p.startsWith('/oauth/') || p === '/.well-known/oauth-authorization-server', what: 'OAuth is' },
  { matches: (p) => p === DASHBOARD_PATH || p.startsWith(`${DASHBOARD_PATH}/`), what: 'The queue dashboard is' },
  { matches: (p) => p === '/metrics', what: 'Metrics are' },
  {
    matches: (p, config) => forDevelopment(config) && (p === EXAMPLE_PATH || p.startsWith(`${EXAMPLE_PATH}/`)),
    what: 'The WebLink example page is',
  },
];

/** Paths served on an instance's address only. (`/api/v2/openapi.json` and `/api/v2/migration` are served on every address.) */
const INSTANCE_ONLY: { pattern: RegExp; what: string }[] = [
  { pattern: /^\/control-panel(\/|$)/, what: 'The Control Panel is' },
  { pattern: /^\/account(\/|$)/, what: 'Account pages are' },
  { pattern: /^\/api\/v2(\/|$)/, what: 'The REST API is' },
];

/** The example's files, by the name asked; nothing else under {@link EXAMPLE_PATH} is served. */
const EXAMPLE_FILES = new Map([
  ['', { file: 'index.html', type: 'text/html; charset=utf-8' }],
  ['index.html', { file: 'index.html', type: 'text/html; charset=utf-8' }],
  ['app.js', { file: 'app.js', type: 'text/javascript; charset=utf-8' }],
]);

/** examples/weblink/ from src/app/ (tsx) or dist/src/app/ (built): the first of those that has it. */
const EXAMPLE_DIRS = [
  path.resolve(import.meta.dirname, '../../examples/weblink'),
  path.resolve(import.meta.dirname, '../../../examples/weblink'),
];

export function platformAddress(rt: Runtime): AppMiddleware {
  return async (ctx, next) => {
    const config = configFor(rt.config, ctx);
    const slug = slugFromHost(ctx.get('host'), config.baseDomain);
    if (slug !== undefined) {
      // An instance's address: its own routes, except those of the platform.
      const platformOnly = PLATFORM_ONLY.find((p) => p.matches(ctx.path, config));
      if (!platformOnly) return next();
      const address = `${platformBaseUrl(config)}${ctx.path}`;
      return wrongAddress(ctx, config, `${platformOnly.what} served on the platform address: ${address}`, address);
    }
    if (ctx.path === '/') return landing(rt, config, ctx);
    if (await example(config, ctx)) return;
    const instanceOnly = INSTANCE_ONLY.find((p) => p.pattern.test(ctx.path));
    if (instanceOnly) {
      const template = `${instanceTemplate(config)}${ctx.path}`;
      const named = forDevelopment(config) ? await instanceToName(rt) : undefined;
      const address = named ? `${tenantBaseUrl(config, named.slug)}${ctx.path}` : undefined;
      const message = `${instanceOnly.what} served on an instance's address: ${template}${address ? ` (${named!.slug}: ${address})` : ''}`;
      return wrongAddress(ctx, config, message, address ?? template, Boolean(address));
    }
    throw new NotFoundError(
      `No route for ${ctx.method} ${ctx.path} on the platform address: GET ${platformBaseUrl(config)}/ says where things are`,
      'route_not_found',
    );
  };
}

/** `/` on the platform address: the page for a browser, JSON for anything else. */
async function landing(rt: Runtime, config: Config, ctx: AppContext): Promise<void> {
  if (ctx.method === 'OPTIONS') {
    ctx.set('Allow', 'GET, HEAD, OPTIONS');
    ctx.status = 204;
    return;
  }
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
    ctx.set('Allow', 'GET, HEAD, OPTIONS');
    throw new AppError(405, 'method_not_allowed', `${ctx.method} is not supported on / (allowed: GET, HEAD, OPTIONS)`);
  }
  const described = await describe(rt, config);
  if (wantsPage(ctx)) sendPage(ctx, 'Platform address', landingPage(described, { signInTokens: config.graphiqlSignInTokens }));
  else ctx.body = described;
}

/** The WebLink example page's files, outside production; whether it answered. */
async function example(config: Config, ctx: AppContext): Promise<boolean> {
  if (!forDevelopment(config) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return false;
  if (ctx.path === EXAMPLE_PATH) {
    // Its script is named relative to the page: the folder's address ends with a slash.
    ctx.status = 301;
    ctx.redirect(`${EXAMPLE_PATH}/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
    return true;
  }
  const wanted = ctx.path.startsWith(`${EXAMPLE_PATH}/`) ? EXAMPLE_FILES.get(ctx.path.slice(EXAMPLE_PATH.length + 1)) : undefined;
  if (!wanted) return false;
  for (const dir of EXAMPLE_DIRS) {
    const body = await fs.readFile(path.join(dir, wanted.file)).catch(() => undefined);
    if (body === undefined) continue;
    ctx.type = wanted.type;
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = body;
    return true;
  }
  return false;
}

/** The configuration with the port the server listens on when PORT is 0 (any free port). */
function configFor(config: Config, ctx: AppContext): Config {
  return config.port === 0 ? { ...config, port: ctx.req.socket.localPort ?? 0 } : config;
}

const wantsPage = (ctx: AppContext) => (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.accepts('json', 'html') === 'html';

const instanceTemplate = (config: Config) => tenantBaseUrl(config, '<instance>');

/** Outside production, the instance a wrong-address answer names: the demo when there is one, else the oldest. */
async function instanceToName(rt: Runtime): Promise<Tenant | undefined> {
  return (await rt.registry.bySlug(DEMO_SLUG)) ?? (await rt.registry.list())[0];
}

/**
 * 404 `wrong_address`: JSON `{"error":{"code","message","details":{"address"}}}`; for a browser
 * a page with the link (the query kept, when the address is a real one: a request goes on there).
 */
function wrongAddress(ctx: AppContext, config: Config, message: string, address: string, linkable = true): void {
  if (wantsPage(ctx)) {
    const href = `${address}${ctx.querystring ? `?${ctx.querystring}` : ''}`;
    sendPage(
      ctx,
      'Not on this address',
      html`<p class="error">${message}</p>
${linkable ? html`<p><a href="${href}">Open it there</a></p>` : ''}
<p class="muted">Where things are: <a href="${platformBaseUrl(config)}/">${platformBaseUrl(config)}/</a>.</p>`,
      { status: 404 },
    );
    return;
  }
  throw new NotFoundError(message, 'wrong_address', { address });
}

/** Where everything is; the instances only outside production. */
async function describe(rt: Runtime, config: Config): Promise<Landing> {
  const p = platformBaseUrl(config);
  const dev = forDevelopment(config);
  const landing: Landing = {
    name: 'Lectern',
    address: p,
    instanceAddress: instanceTemplate(config),
    graphql: `${p}${GRAPHQL_PATH}`,
    ...(dev ? { graphiql: `${p}${GRAPHQL_PATH}` } : {}),
    oauth: {
      issuer: p,
      authorize: `${p}/oauth/authorize`,
      token: `${p}/oauth/token`,
      metadata: `${p}/.well-known/oauth-authorization-server`,
    },
    weblink: { guestToken: `${p}${PORTAL_GUEST_PATH}`, graphql: `${p}${WEBLINK_PATH}` },
    rest: { openapi: `${p}/api/v2/openapi.json`, migration: `${p}/api/v2/migration` },
    queueDashboard: `${p}${DASHBOARD_PATH}`,
    health: { live: `${p}/healthz`, ready: `${p}/readyz` },
    metrics: `${p}/metrics`,
    docs: DOCS,
  };
  if (!dev) return landing;
  const [tenants, portals] = await Promise.all([rt.registry.list(), listPortals(rt.knex)]);
  const shown = tenants.reverse().slice(0, INSTANCES_SHOWN);
  const domains = new Map<number, string[]>();
  // Oldest first: the example page opens with the instance's first portal (the demo's www.demo-training.test).
  portals.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  for (const portal of portals) domains.set(portal.tenantId, [...(domains.get(portal.tenantId) ?? []), portal.domain]);
  const instances = shown.map((t): LandingInstance => {
    const base = tenantBaseUrl(config, t.slug);
    const own = domains.get(t.id) ?? [];
    return {
      slug: t.slug,
      name: t.name,
      address: base,
      controlPanel: `${base}/control-panel`,
      graphql: `${base}${GRAPHQL_PATH}`,
      graphiql: `${base}${GRAPHQL_PATH}`,
      rest: `${base}/api/v2`,
      weblink: `${base}${WEBLINK_PATH}`,
      portals: own,
      weblinkExample: own[0] ? `${p}${EXAMPLE_PATH}/?api=${encodeURIComponent(p)}&portal=${encodeURIComponent(own[0])}` : null,
    };
  });
  return {
    ...landing,
    instances,
    ...(tenants.length > instances.length ? { instancesNotShown: tenants.length - instances.length } : {}),
  };
}

/**
 * The page's own style, after the shared one: addresses and commands in `code` wrap where there is
 * room (at a space, or whole on the next line) and are cut only when one is wider than the column,
 * instead of anywhere (`http://loc` / `alhost:3000`).
 */
const LANDING_STYLE = new Html('<style>.landing code{word-break:normal;overflow-wrap:anywhere}</style>');

/** The landing page: the instances (when listed), what the platform address serves, where to read on. */
function landingPage(l: Landing, opts: { signInTokens: boolean }): Html {
  const link = (href: string, text?: string) => html`<a href="${href}">${text ?? href}</a>`;
  // On the platform address's own rows, the path is enough to read (the link is whole).
  const here = (href: string) => link(href, href.slice(l.address.length));
  const path = (url: string) => url.slice(l.address.length);
  const instances =
    l.instances === undefined
      ? html`<p class="muted">Instances are not listed in production. Each has its own address: <code>${l.instanceAddress}</code>.</p>`
      : l.instances.length === 0
        ? html`<p>No instance yet: <code>npm run cli -- tenants:create --slug acme --name "Acme Training"</code>.</p>`
        : html`${l.instances.map(
            (i) => html`<section class="instance"><h3>${i.name} <code>${i.slug}</code> ${link(i.address)}</h3>
<ul>
<li>${link(i.controlPanel, 'Control Panel')}: client credentials, portals, webhooks; sign in as one of its users${
              i.slug === DEMO_SLUG ? ' (the demo administrator: the start banner prints the email and password)' : ''
            }</li>
<li>${i.graphiql ? link(i.graphiql, 'GraphiQL') : html`<code>${i.graphql}</code>`}: the Core GraphQL API, with an access token of this instance${
              i.graphiql && opts.signInTokens
                ? html` (signed in to its Control Panel, <strong>Use my sign-in</strong> there gets you one)`
                : ''
            }</li>
<li>WebLink GraphQL, its public catalogue (no token needed): <code>POST ${i.weblink}</code></li>
<li>${
              i.weblinkExample
                ? html`${link(i.weblinkExample, 'WebLink example page')}: a course page as a website would show it, through the portal <code>${i.portals[0]}</code>`
                : html`WebLink example page: add a portal first (Control Panel, Portals)`
            }</li>
<li>REST API v2 (legacy, HTTP Basic): <code>${i.rest}</code></li>
</ul></section>`,
          )}
${l.instancesNotShown ? html`<p class="muted">And ${l.instancesNotShown} more: <code>npm run cli -- tenants:list</code>.</p>` : ''}
<p class="muted">Listed, newest first, because this is not production (NODE_ENV); in production this page lists no instance.</p>`;
  return html`${LANDING_STYLE}<div class="landing">
<p>A multi-tenant course management backend. This is its <strong>platform address</strong>, <code>${l.address}</code>: OAuth, the Core GraphQL API, WebLink for websites, and operations. Each instance (a training company) has an address of its own, <code>${l.instanceAddress}</code>.</p>
<h2>Instances</h2>
${instances}
<h2>On the platform address</h2>
<table>
<tr><th>Core GraphQL API</th><td>${here(l.graphql)}${l.graphiql ? ' (GraphiQL in a browser)' : ''}: the instance is the token's</td></tr>
<tr><th>OAuth 2.0</th><td>${here(l.oauth.authorize)}, <code>POST ${path(l.oauth.token)}</code>; metadata: ${here(l.oauth.metadata)}</td></tr>
<tr><th>WebLink for websites</th><td><code>POST ${path(l.weblink.guestToken)}</code> for a portal's token, then <code>POST ${path(l.weblink.graphql)}</code> with <code>weblink-portal: &lt;domain&gt;</code></td></tr>
<tr><th>Queue dashboard</th><td>${here(l.queueDashboard)}: for platform administrators (<code>npm run cli -- admins:create</code>)</td></tr>
<tr><th>Health</th><td>${here(l.health.live)}, ${here(l.health.ready)}; <code>${path(l.metrics)}</code> needs METRICS_TOKEN or an administrator</td></tr>
<tr><th>REST API v2 (legacy)</th><td>${link(l.rest.openapi, 'OpenAPI document')}, ${link(l.rest.migration, 'migration guide to GraphQL')}</td></tr>
</table>
<h2>Documentation</h2>
<p>${l.docs}. This page as JSON: <code>curl ${l.address}/</code>.</p>
</div>`;
}
