import type { IncomingMessage } from 'node:http';
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
/** Whether Node's own request timeout ended this request (it answers 408 on the socket itself). */
const timedOut = (req: IncomingMessage) =>
  (req.errored as { code?: string } | null)?.code === 'ERR_HTTP_REQUEST_TIMEOUT' ||
  (req.socket.errored as { code?: string } | null)?.code === 'ERR_HTTP_REQUEST_TIMEOUT';

/**
 * Errors Koa meets outside the middleware's reach (a request body cut by the request timeout, a
 * client gone while its answer streams): one log line each, never a raw stack on stderr (Koa's
 * default). A client's doing is `info`, anything else `error`.
 */
export function logUnansweredErrors(log: Logger): (err: Error & { code?: string }) => void {
  const CLIENT_SIDE = new Set(['ERR_HTTP_REQUEST_TIMEOUT', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);
  return (err) => {
    if (err.code && (CLIENT_SIDE.has(err.code) || err.code.startsWith('HPE_')))
      log.info({ code: err.code }, 'request ended by its connection');
    else log.error({ err }, "error outside a request's answer");
  };
}

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
        // ctx.status is final here: the error middleware below has already mapped any error. A
        // request whose connection went before an answer was sent says what the client met instead:
        // 408 when the server cut it (REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS), else 499 (it left).
        const gone = !ctx.res.headersSent && ctx.req.socket.destroyed;
        const status = gone ? (timedOut(ctx.req) ? 408 : 499) : ctx.status;
        log.info({ ...fields, method: ctx.method, path: ctx.path, status, ms: Math.round(ms * 10) / 10 }, 'request');
      }
    }
  };
}
