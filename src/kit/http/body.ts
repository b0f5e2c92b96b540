import { bodyParser } from '@koa/bodyparser';
import { AppError } from '../../platform/errors.js';
import type { AppContext, AppMiddleware } from './context.js';

declare module './context.js' {
  interface AppState {
    /** Why the request body could not be read (bad JSON, too large, bad encoding), kept for later. */
    bodyError?: unknown;
  }
}

/**
 * Whether a media type (no parameters, lower case) is JSON: `application/json`, or a type with
 * the `+json` suffix (`application/graphql+json`, `application/vnd.api+json`).
 */
function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || /^application\/[\w.!#$&^-]+\+json$/.test(type);
}

/** The request's media type: its Content-Type without parameters (charset...), in lower case; '' when none. */
const mediaTypeOf = (ctx: Pick<AppContext, 'get'>): string => ctx.get('content-type').split(';')[0]!.trim().toLowerCase();

/** Whether the request's Content-Type is JSON ({@link isJsonMediaType}), whatever its parameters: what the body parsers read as JSON. */
export const sentAsJson = (ctx: Pick<AppContext, 'get'>): boolean => isJsonMediaType(mediaTypeOf(ctx));

/**
 * The media type of the request's body when it has one that is not JSON ('' when it came with no
 * Content-Type); undefined when the body is JSON or there is no body (no Content-Length or 0, and
 * not sent in chunks: a POST with no body and the document in the URL has none, whatever its type).
 */
export function nonJsonBody(ctx: AppContext): string | undefined {
  const hasBody = ctx.get('transfer-encoding') !== '' || Number(ctx.get('content-length')) > 0;
  if (!hasBody) return undefined;
  return sentAsJson(ctx) ? undefined : mediaTypeOf(ctx);
}

/** The 415 for a body that an API reading JSON got as `type` ({@link nonJsonBody}): its message names the header to send. */
export function unsupportedMediaType(type: string): AppError {
  const sent = type ? `as ${type.slice(0, 100)}` : 'with no Content-Type';
  return new AppError(
    415,
    'unsupported_media_type',
    `The request body was sent ${sent}: send it as JSON with Content-Type: application/json`,
  );
}

/**
 * JSON and form bodies with a size limit, read before any database connection is taken, so a
 * slow upload never holds one. JSON is `application/json` and every `+json` type
 * ({@link isJsonMediaType}), with any charset; forms are for the pages and the OAuth token
 * endpoint (RFC 6749). A parse error is kept rather than thrown: routes that read the body
 * mount `bodyErrors()` after authentication, so a caller without valid credentials gets 401
 * whatever it sent, and only an authenticated caller learns that its body was at fault.
 */
export function bodyParsing(limit: string): AppMiddleware {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    detectJSON: sentAsJson,
    jsonLimit: limit,
    formLimit: limit,
    jsonStrict: true,
    onError: (err, ctx) => {
      (ctx.state as { bodyError?: unknown }).bodyError = err;
    },
  }) as unknown as AppMiddleware;
  return parse;
}

/** Methods whose bodies are read (the body parser's). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * For routes that read JSON bodies (REST v2, `POST /portal/guest`); mount after authentication.
 * A body of another media type (none, text/plain, a form: `curl -d` sends one) is a 415 naming
 * the header, rather than an answer about fields that a body misread produced; then the body's
 * parse error, if any (400 not JSON, 413 too large...).
 */
export function bodyErrors(): AppMiddleware {
  return async (ctx, next) => {
    const other = BODY_METHODS.has(ctx.method) ? nonJsonBody(ctx) : undefined;
    if (other !== undefined) throw unsupportedMediaType(other);
    if (ctx.state.bodyError !== undefined) throw ctx.state.bodyError;
    await next();
  };
}
