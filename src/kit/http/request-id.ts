import crypto from 'node:crypto';
import type { Logger } from '../../platform/logger.js';
import type { AppContext, AppMiddleware } from './context.js';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

declare module './context.js' {
  interface AppState {
    /** Fields every log line of this request carries: requestId, then tenant and userId once known. */
    logFields: Record<string, unknown>;
  }
}

/** Adds fields (tenant, user) to every later log line of this request. */
export function bindLog(ctx: AppContext, fields: Record<string, unknown>): void {
  Object.assign(ctx.state.logFields, fields);
}

/**
 * Accepts the caller's `X-Request-Id` (when it looks like an id, so logs cannot be forged with
 * arbitrary text) or makes one, echoes it, and logs one line per request with method, path,
 * status and duration. `ctx.state.log` is a child logger with the request's fields, made only
 * when something logs: building one per request (pino runs its redaction over the bindings)
 * cost more than the rest of the logging on the REST hot path.
 */
export function requestContext(log: Logger): AppMiddleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = ACCEPTABLE.test(incoming) ? incoming : crypto.randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const fields: Record<string, unknown> = { requestId };
    ctx.state.logFields = fields;
    Object.defineProperty(ctx.state, 'log', { configurable: true, enumerable: true, get: () => log.child(fields) });
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      if (log.isLevelEnabled('info')) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        // ctx.status is final here: the error middleware below has already mapped any error.
        log.info({ ...fields, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
      }
    }
  };
}
