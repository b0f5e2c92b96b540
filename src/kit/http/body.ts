import { bodyParser } from '@koa/bodyparser';
import type { AppMiddleware } from './context.js';

declare module './context.js' {
  interface AppState {
    /** Why the request body could not be read (bad JSON, too large, bad encoding), kept for later. */
    bodyError?: unknown;
  }
}

/**
 * JSON and form bodies with a size limit, read before any database connection is taken, so a
 * slow upload never holds one. A parse error is kept rather than thrown: routes that read the
 * body mount `bodyErrors()` after authentication, so a caller without valid credentials gets 401
 * whatever it sent, and only an authenticated caller learns that its body was at fault.
 */
export function bodyParsing(limit: string): AppMiddleware {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: limit,
    formLimit: limit,
    jsonStrict: true,
    onError: (err, ctx) => {
      (ctx.state as { bodyError?: unknown }).bodyError = err;
    },
  }) as unknown as AppMiddleware;
  return parse;
}

/** Throws the body's parse error, if any: mount after authentication on routes that read bodies. */
export function bodyErrors(): AppMiddleware {
  return async (ctx, next) => {
    if (ctx.state.bodyError !== undefined) throw ctx.state.bodyError;
    await next();
  };
}
