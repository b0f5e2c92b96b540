import crypto from 'node:crypto';
import type { Logger } from '../logger.js';
import type { AppMiddleware } from './context.js';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Accepts the caller's `X-Request-Id` (when it looks like an id, so logs cannot be forged with
 * arbitrary text) or makes one, echoes it, and gives the request a child logger carrying it.
 * Logs one line per request with method, path, status and duration.
 */
export function requestContext(log: Logger): AppMiddleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = ACCEPTABLE.test(incoming) ? incoming : crypto.randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    ctx.state.log = log.child({ requestId });
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // ctx.status is final here: the error middleware below has already mapped any error.
      ctx.state.log.info(
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    }
  };
}
