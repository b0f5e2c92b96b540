import type { Config } from '../../platform/config.js';
import { AppError } from '../../platform/errors.js';
import type { AppContext, AppMiddleware } from './context.js';

/**
 * OAuth requests, sign-in pages and bearer-token calls travel over HTTPS only (contract: "All
 * OAuth endpoints and redirects use HTTPS"). In production the web process sits behind the
 * platform's router, which terminates TLS and says so in `X-Forwarded-Proto` (trusted there,
 * `app.proxy`); a plain-HTTP request is refused, never served. Plain HTTP is allowed for local
 * development. `refuse` shapes the answer for the route (an OAuth error, a page...).
 */
export function requireHttps(config: Config, refuse?: (ctx: AppContext) => void): AppMiddleware {
  return async (ctx, next) => {
    if (config.env === 'production' && !ctx.secure) {
      if (refuse) return refuse(ctx);
      throw new AppError(400, 'https_required', 'HTTPS is required: use the https:// address');
    }
    await next();
  };
}
