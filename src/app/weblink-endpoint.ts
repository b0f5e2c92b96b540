import cors from '@koa/cors';
import type { GraphQLSchema } from 'graphql';
import { Counter, type Registry } from 'prom-client';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Knex } from '../platform/db/knex.js';
import { requestScope } from '../kit/graphql/context.js';
import { graphqlErrors, graphqlServer } from '../kit/graphql/http.js';
import { legacyIdOf } from '../kit/graphql/ids.js';
import type { AppContext, AppMiddleware } from '../kit/http/context.js';
import { bindLog } from '../kit/http/request-id.js';
import type { Runtime } from './runtime.js';
import { slugFromHost } from '../platform/tenancy/registry.js';
import { supportedLocaleIds } from '../modules/locales/locales.data.js';
import { CLIENT_HEADER, PORTAL_HEADER, weblinkCaller } from '../modules/portals/portal-auth.js';
import { PortalDirectory } from '../modules/portals/portals.service.js';
import { buildWebLinkSchema } from './weblink-schema.js';

/**
 * `POST /weblink/graphql` (and GET; also with a trailing slash, as the WordPress plugin sends it):
 * the public, read-only WebLink catalogue API that training companies' websites call, from
 * servers or straight from browsers (CORS, no credentials). It answers for an instance:
 * - on the instance's own address, with no token (a Bearer portal token sent there must be one
 *   of that instance's portals);
 * - on the platform address, for the portal named by `weblink-portal: <portal host>`, with
 *   `Authorization: Bearer <portal token>` from `POST /portal/guest` (401 without a valid one,
 *   404 for an unknown portal).
 * Requests run in a read-only transaction, rate-limited per client address and instance.
 * `weblink-client: <client id>` is recorded (log line and metrics), never required or trusted.
 *
 * `weblink-content-locale: <Locale id>` asks for content in that locale (translations overlay
 * the authored fields, each falling back to the authored value); a locale the instance does
 * not support is a 400 with a GraphQL error. Without the header, nothing changes.
 */
export const WEBLINK_PATH = '/weblink/graphql';
export const CONTENT_LOCALE_HEADER = 'weblink-content-locale';

const PUBLIC_USER = { id: 0, email: '', companyId: null, permissions: [] };

/** The answer of {@link requestBudget}: go on, or refuse with 429 after this many seconds. */
export type BudgetCheck = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * A budget of WEBLINK_RATE_LIMIT requests a minute per key (a client address, with the instance
 * for WebLink): in Redis when there is one, so every web process counts together (each process
 * counts alone while Redis is away); in memory otherwise. Every answer carries `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset`; past the budget, `Retry-After` too, and the
 * caller answers 429 in its API's shape. `name` keeps budgets apart (`weblink`, `portal_guest`).
 */
export function requestBudget(rt: Runtime, name: string): (ctx: AppContext, key: string) => Promise<BudgetCheck> {
  let limiter: RateLimiterAbstract | undefined;
  const limit = rt.config.weblinkRateLimit;
  const create = () => {
    const opts = { keyPrefix: `${name}_${rt.config.queuePrefix}`, points: limit, duration: 60 };
    const memory = new RateLimiterMemory(opts);
    const redis = rt.redis();
    return redis ? new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: memory }) : memory;
  };
  return async (ctx, key) => {
    limiter ??= create();
    const counted = await limiter.consume(key).catch((res: unknown) => {
      if (res instanceof RateLimiterRes) return res;
      throw res;
    });
    const resetSeconds = Math.max(1, Math.ceil(counted.msBeforeNext / 1000));
    ctx.set('RateLimit-Limit', String(limit));
    ctx.set('RateLimit-Remaining', String(Math.max(0, counted.remainingPoints)));
    ctx.set('RateLimit-Reset', String(resetSeconds));
    if (counted.consumedPoints <= limit) return { ok: true };
    ctx.set('Retry-After', String(resetSeconds));
    return { ok: false, retryAfterSeconds: resetSeconds };
  };
}

/** Distinct `weblink-client` values a process labels its metrics with; later ones count as `other`. */
const MAX_CLIENT_LABELS = 50;
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The `weblink-client` a request names, as a label with bounded cardinality: callers choose it,
 * so anything that does not look like an id is `invalid`, and past {@link MAX_CLIENT_LABELS}
 * distinct ids the rest are `other`. For the log line the id itself (when it looks like one).
 */
function clientLabels() {
  const seen = new Set<string>();
  return (header: string): { id: string | undefined; label: string } => {
    const value = header.trim();
    if (!value) return { id: undefined, label: 'none' };
    if (!CLIENT_ID.test(value)) return { id: undefined, label: 'invalid' };
    if (seen.has(value)) return { id: value, label: value };
    if (seen.size >= MAX_CLIENT_LABELS) return { id: value, label: 'other' };
    seen.add(value);
    return { id: value, label: value };
  };
}

/**
 * The locales each instance supports, read at most once per TENANT_CACHE_TTL_MS per web process
 * (as the tenant registry is): checking the header costs a statement only now and then, not on
 * every request. A locale enabled or disabled reaches the check within that time.
 */
class SupportedLocales {
  private readonly cache = new Map<number, { ids: Set<number>; expires: number }>();
  constructor(private readonly ttlMs: number) {}

  async has(db: Knex, tenantId: number, localeId: number): Promise<boolean> {
    const now = Date.now();
    let hit = this.cache.get(tenantId);
    if (!hit || hit.expires <= now) {
      hit = { ids: await supportedLocaleIds(db), expires: now + this.ttlMs };
      if (this.ttlMs > 0) this.cache.set(tenantId, hit);
    }
    return hit.ids.has(localeId);
  }
}

export interface WebLinkOptions {
  /** The portal lookups of this process (shared with `POST /portal/guest`); one of its own by default. */
  portals?: PortalDirectory;
  /** Where `weblink_requests_total` is registered (the app's `/metrics`); not counted when absent. */
  metrics?: Registry;
}

export function weblinkEndpoint(rt: Runtime, schema: GraphQLSchema = buildWebLinkSchema(), options: WebLinkOptions = {}): AppMiddleware {
  const server = graphqlServer(rt, schema);
  const supported = new SupportedLocales(rt.config.tenantCacheTtlMs);
  const portals = options.portals ?? new PortalDirectory(rt.knex, rt.registry, rt.config.tenantCacheTtlMs);
  const budget = requestBudget(rt, 'weblink');
  const clientOf = clientLabels();
  const counter = options.metrics
    ? new Counter({
        name: 'weblink_requests_total',
        help: 'WebLink requests by how the instance was named (portal or instance address), weblink-client and status',
        labelNames: ['via', 'client', 'status'] as const,
        registers: [options.metrics],
      })
    : undefined;
  const withCors = cors({
    origin: '*',
    allowMethods: ['GET', 'POST'],
    allowHeaders: ['content-type', 'accept', CONTENT_LOCALE_HEADER, 'authorization', PORTAL_HEADER, CLIENT_HEADER],
    exposeHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
    maxAge: 600,
  });
  return async (ctx, next) => {
    if (ctx.path !== WEBLINK_PATH && ctx.path !== `${WEBLINK_PATH}/`) return next();
    const client = clientOf(ctx.get(CLIENT_HEADER));
    if (client.id) bindLog(ctx, { weblinkClient: client.id });
    let via = 'none';
    try {
      await withCors(ctx, async () => {
        if (ctx.method !== 'GET' && ctx.method !== 'POST') {
          ctx.set('Allow', 'GET, POST, OPTIONS');
          return graphqlErrors(ctx, 405, 'Use POST (or GET)', 'METHOD_NOT_ALLOWED');
        }
        ctx.vary(PORTAL_HEADER);
        const slug = slugFromHost(ctx.get('host'), rt.config.baseDomain);
        const hostTenant = slug ? await rt.registry.bySlug(slug) : undefined;
        if (slug && !hostTenant) return graphqlErrors(ctx, 404, `No instance at host '${ctx.get('host').slice(0, 300)}'`, 'NOT_FOUND');
        const caller = await weblinkCaller(portals, rt.config.portalTokenKeys, {
          hostTenant,
          portalHeader: ctx.get(PORTAL_HEADER),
          authorization: ctx.get('authorization'),
        });
        if (!caller.ok) {
          if (caller.challenge) ctx.set('WWW-Authenticate', caller.challenge);
          return graphqlErrors(ctx, caller.status, caller.message, caller.code);
        }
        const tenant = caller.tenant;
        via = caller.portal ? 'portal' : 'instance';
        if (!slug) bindLog(ctx, { tenant: tenant.slug });
        if (caller.portal) bindLog(ctx, { portal: caller.portal.domain });
        if (!server.acceptable(ctx)) return;

        const counted = await budget(ctx, `${tenant.id}:${ctx.ip}`);
        if (!counted.ok) {
          const seconds = counted.retryAfterSeconds;
          return graphqlErrors(ctx, 429, `Too many requests from your address; try again in ${seconds} s`, 'RATE_LIMITED', {
            retryAfterSeconds: seconds,
          });
        }

        ctx.vary(CONTENT_LOCALE_HEADER);
        const asked = ctx.get(CONTENT_LOCALE_HEADER).trim();
        await server.answer(
          ctx,
          tenant,
          async (db) => {
            let contentLocale: { id: number } | null = null;
            if (asked) {
              const localeId = legacyIdOf('Locale', asked);
              contentLocale = localeId !== undefined && (await supported.has(db, tenant.id, localeId)) ? { id: localeId } : null;
              if (!contentLocale) {
                const message = `${CONTENT_LOCALE_HEADER}: '${asked.slice(0, 100)}' is not a locale this instance supports (take an id from the locales query)`;
                return { refuse: { status: 400, message, code: 'BAD_USER_INPUT' } };
              }
            }
            return { context: { db, tenant, clientId: null, user: PUBLIC_USER, contentLocale, ...requestScope(db) } };
          },
          { readOnly: true, lane: 'weblink' },
        );
      });
    } finally {
      counter?.inc({ via, client: client.label, status: String(ctx.status) });
    }
  };
}
