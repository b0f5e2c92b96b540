import cors from '@koa/cors';
import type { GraphQLSchema } from 'graphql';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Knex } from '../platform/db/knex.js';
import { requestScope } from '../kit/graphql/context.js';
import { graphqlErrors, graphqlServer } from '../kit/graphql/http.js';
import { legacyIdOf } from '../kit/graphql/ids.js';
import type { AppMiddleware } from '../kit/http/context.js';
import type { Runtime } from './runtime.js';
import { slugFromHost } from '../platform/tenancy/registry.js';
import { supportedLocaleIds } from '../modules/locales/locales.data.js';
import { buildWebLinkSchema } from './weblink-schema.js';

/**
 * `POST /weblink/graphql` (and GET) on an instance's address: the public, read-only WebLink
 * catalogue API that training companies' websites call, from servers or straight from
 * browsers (CORS, no credentials). No user and no token: requests run in a read-only
 * transaction, rate-limited per client address and instance.
 *
 * `weblink-content-locale: <Locale id>` asks for content in that locale (translations overlay
 * the authored fields, each falling back to the authored value); a locale the instance does
 * not support is a 400 with a GraphQL error. Without the header, nothing changes.
 */
export const WEBLINK_PATH = '/weblink/graphql';
export const CONTENT_LOCALE_HEADER = 'weblink-content-locale';

const PUBLIC_USER = { id: 0, email: '', companyId: null, permissions: [] };

/**
 * Requests per client address and instance per minute: in Redis when there is one, so every web
 * process counts together (each process counts alone while Redis is away); in memory otherwise.
 */
function rateLimiter(rt: Runtime): RateLimiterAbstract {
  const opts = { keyPrefix: `weblink_${rt.config.queuePrefix}`, points: rt.config.weblinkRateLimit, duration: 60 };
  const memory = new RateLimiterMemory(opts);
  const redis = rt.redis();
  return redis ? new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: memory }) : memory;
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

export function weblinkEndpoint(rt: Runtime, schema: GraphQLSchema = buildWebLinkSchema()): AppMiddleware {
  const server = graphqlServer(rt, schema);
  const supported = new SupportedLocales(rt.config.tenantCacheTtlMs);
  let limiter: RateLimiterAbstract | undefined;
  const withCors = cors({
    origin: '*',
    allowMethods: ['GET', 'POST'],
    allowHeaders: ['content-type', 'accept', CONTENT_LOCALE_HEADER],
    exposeHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
    maxAge: 600,
  });
  return async (ctx, next) => {
    if (ctx.path !== WEBLINK_PATH) return next();
    await withCors(ctx, async () => {
      if (ctx.method !== 'GET' && ctx.method !== 'POST') {
        ctx.set('Allow', 'GET, POST, OPTIONS');
        return graphqlErrors(ctx, 405, 'Use POST (or GET)', 'METHOD_NOT_ALLOWED');
      }
      const slug = slugFromHost(ctx.get('host'), rt.config.baseDomain);
      const tenant = slug ? await rt.registry.bySlug(slug) : undefined;
      if (!tenant) return graphqlErrors(ctx, 404, `WebLink answers on an instance's address (<instance>.${rt.config.baseDomain}${WEBLINK_PATH})`, 'NOT_FOUND');
      if (!server.acceptable(ctx)) return;

      limiter ??= rateLimiter(rt);
      const counted = await limiter.consume(`${tenant.id}:${ctx.ip}`).catch((res: unknown) => {
        if (res instanceof RateLimiterRes) return res;
        throw res;
      });
      const resetSeconds = Math.max(1, Math.ceil(counted.msBeforeNext / 1000));
      ctx.set('RateLimit-Limit', String(rt.config.weblinkRateLimit));
      ctx.set('RateLimit-Remaining', String(Math.max(0, counted.remainingPoints)));
      ctx.set('RateLimit-Reset', String(resetSeconds));
      if (counted.consumedPoints > rt.config.weblinkRateLimit) {
        ctx.set('Retry-After', String(resetSeconds));
        return graphqlErrors(ctx, 429, `Too many requests from your address; try again in ${resetSeconds} s`, 'RATE_LIMITED', { retryAfterSeconds: resetSeconds });
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
  };
}
