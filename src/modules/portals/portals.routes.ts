import cors from '@koa/cors';
import Router from '@koa/router';
import { bodyErrors } from '../../kit/http/body.js';
import type { AppContext, AppMiddleware, AppState } from '../../kit/http/context.js';
import { AppError, BadRequestError } from '../../platform/errors.js';
import { issueGuestToken, type PortalDirectory } from './portals.service.js';

/**
 * `POST /portal/guest` with `{"domain": "<portal host>"}`: a guest portal token for that portal,
 * `{"portal_token": "...", "expires_in": 7200}`, which its website sends with WebLink requests
 * (`Authorization: Bearer`, with `weblink-portal`). On every address (clients call one fixed
 * token-service URL; Lectern serves it on its own addresses), from servers or browsers (CORS `*`,
 * no credentials). 404 for a domain that is no portal, 400 for a body without a domain, 429 past
 * the per-address budget (WEBLINK_RATE_LIMIT a minute).
 */
export const PORTAL_GUEST_PATH = '/portal/guest';

export interface PortalRouteDeps {
  portals: PortalDirectory;
  /** PORTAL_TOKEN_SECRET's keys, newest first. */
  keys: readonly string[];
  /** Counts a request against its client address's budget (the app's request budget for this route). */
  budget: (ctx: AppContext, key: string) => Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }>;
}

export function portalTokenRoutes(deps: PortalRouteDeps): Router<AppState> {
  const router = new Router<AppState>();
  const withCors = cors({
    origin: '*',
    allowMethods: ['POST'],
    allowHeaders: ['content-type', 'accept'],
    exposeHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
    maxAge: 600,
  }) as unknown as AppMiddleware;
  const limited: AppMiddleware = async (ctx, next) => {
    const counted = await deps.budget(ctx, ctx.ip);
    if (!counted.ok) {
      throw new AppError(429, 'rate_limited', `Too many requests from your address; try again in ${counted.retryAfterSeconds} s`, {
        retryAfterSeconds: counted.retryAfterSeconds,
      });
    }
    await next();
  };

  router.options(PORTAL_GUEST_PATH, withCors);
  router.post(PORTAL_GUEST_PATH, withCors, limited, bodyErrors(), async (ctx) => {
    const body = ctx.request.body as unknown;
    const domain = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).domain : undefined;
    if (typeof domain !== 'string') throw new BadRequestError('Send a JSON body {"domain": "<portal host>"}', undefined, 'invalid_body');
    const { token, expiresIn } = await issueGuestToken(deps.portals, deps.keys, domain);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { portal_token: token, expires_in: expiresIn };
  });
  return router;
}
