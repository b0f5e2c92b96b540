import { AppError, dataExceptionOf, queryTimeoutOf, referenceConflictOf } from '../../platform/errors.js';
import type { AppContext, AppMiddleware } from './context.js';

/** Errors thrown by Koa or its body parser that carry a client status (`http-errors` shape), as AppErrors. */
export function clientErrorFrom(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const e = err as { status?: unknown; statusCode?: unknown; type?: unknown; expose?: unknown; message?: unknown };
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : undefined;
  if (status === 413 || e.type === 'entity.too.large') return new AppError(413, 'payload_too_large', 'Request body is too large');
  // co-body's strict mode refuses valid JSON that is not an object or array (`null`, `42`).
  if (e instanceof SyntaxError && /only supports object and array/.test(String(e.message))) {
    return new AppError(400, 'invalid_body', 'Request body must be a JSON object');
  }
  if (e instanceof SyntaxError || e.type === 'entity.parse.failed')
    return new AppError(400, 'invalid_json', 'Request body is not valid JSON');
  // A body sent with Content-Encoding gzip/deflate/br that does not decompress.
  if (typeof (e as { code?: unknown }).code === 'string' && /^Z_|^ERR_(BROTLI|ZLIB)/.test((e as { code: string }).code)) {
    return new AppError(400, 'invalid_body', 'Request body could not be decompressed (check Content-Encoding)');
  }
  if (status === 415) return new AppError(415, 'unsupported_media_type', 'Unsupported request body type or charset');
  if (status && status >= 400 && status < 500 && e.expose === true) {
    return new AppError(status, 'bad_request', typeof e.message === 'string' ? e.message : 'Bad request');
  }
  return undefined;
}

export interface ErrorAnswer {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown> | undefined;
  /** For server failures: the id to quote when reporting it (the logs have the rest). */
  requestId?: string | undefined;
}

/**
 * The one mapping of a thrown error to what the client is told, for every API (REST bodies are
 * `{"error": {...}}`, GraphQL's `{"errors": [...]}`). A client's mistake keeps its message; a
 * server failure is logged and says nothing of its insides.
 */
export function answerFor(ctx: AppContext, err: unknown): ErrorAnswer {
  const dataError = dataExceptionOf(err);
  // Input that got past validation: answered as the client's mistake, logged so the gap is fixed.
  if (dataError) ctx.state.log.warn({ sqlstate: (err as { code: string }).code, path: ctx.path }, 'database refused a request value');
  const conflict = referenceConflictOf(err);
  // A race the checks could not see, or a check missing: logged so the second is found.
  if (conflict) ctx.state.log.warn({ sqlstate: (err as { code: string }).code, path: ctx.path }, 'a foreign key refused a write');
  const clientError = dataError ?? conflict ?? queryTimeoutOf(err) ?? clientErrorFrom(err);
  if (clientError)
    return { status: clientError.status, code: clientError.code, message: clientError.message, details: clientError.details };
  const status = err instanceof AppError ? err.status : 500;
  ctx.state.log.error({ err }, 'request failed');
  return {
    status,
    code: err instanceof AppError ? err.code : 'internal_error',
    message: status === 503 ? 'Service temporarily unavailable' : 'Internal server error',
    requestId: ctx.state.requestId,
  };
}

/** Errors to HTTP for the whole app: `{"error": {"code", "message"}}` (plus `details` or `requestId`). */
export function errorMapping(): AppMiddleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { error: { code: 'route_not_found', message: `No route for ${ctx.method} ${ctx.path}` } };
      } else if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
        // The router's answer to a known path with another method; it has set `Allow`. A method
        // the router knows nothing of at all (TRACE, PROPFIND) it answers 501, but for the client
        // it is the same mistake: this path does not take that method (RFC 9110 §15.5.6).
        ctx.status = 405;
        ctx.body = {
          error: {
            code: 'method_not_allowed',
            message: `${ctx.method} is not supported on ${ctx.path} (allowed: ${ctx.response.get('Allow') || 'none'})`,
          },
        };
      }
    } catch (err) {
      const { status, ...error } = answerFor(ctx, err);
      ctx.status = status;
      ctx.body = { error: Object.fromEntries(Object.entries(error).filter(([, v]) => v !== undefined)) };
      if (status === 401 && !ctx.response.get('WWW-Authenticate')) ctx.set('WWW-Authenticate', 'Basic realm="Lectern"');
    }
  };
}
