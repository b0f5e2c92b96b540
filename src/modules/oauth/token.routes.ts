import Router from '@koa/router';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { AppContext, AppState } from '../../kit/http/context.js';
import type { ClientAuthOutcome } from './client-auth-guard.js';
import { ACCESS_TOKEN_LIFETIME_S } from './oauth-store.js';
import { authorizationServerMetadata, type OAuthServers } from './oauth-server.js';

/**
 * `POST /oauth/token` (authorization_code, refresh_token, client_credentials) and the RFC 8414
 * metadata, on the platform host. Parameters come form-encoded in the body, or in the query
 * string (some clients send them there with an empty body). Clients authenticate with
 * `client_id`/`client_secret` in the body or with HTTP Basic, whose id and secret are
 * form-urlencoded first (RFC 6749 §2.3.1) and decoded here before the library sees them.
 * Client authentication that keeps failing from one address is made to wait (ClientAuthGuard):
 * 429 `too_many_attempts` with Retry-After, no challenge.
 */

// RFC 6749 Appendix A: what a client id or secret can be; the library refuses anything else as
// invalid_request without checking it, so such a request is nothing to count.
const VSCHAR = /^[\x20-\x7E]+$/;

/** RFC 6749 §2.3.1: Basic credentials are `urlencode(id):urlencode(secret)`; decoded here. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const raw = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = raw.indexOf(':');
  if (colon < 0) return undefined;
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v.replace(/\+/g, ' '));
    } catch {
      return v;
    }
  };
  return { id: decode(raw.slice(0, colon)), secret: decode(raw.slice(colon + 1)) };
}

function oauthError(ctx: AppContext, status: number, error: string, description: string): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  ctx.body = { error, error_description: description };
}

export function tokenRoutes(servers: OAuthServers): Router<AppState> {
  const router = new Router<AppState>();
  const metadata = authorizationServerMetadata(servers.issuer);
  router.get('/.well-known/oauth-authorization-server', (ctx) => {
    ctx.body = metadata;
  });

  router.post('/oauth/token', async (ctx) => {
    if (ctx.state.bodyError !== undefined)
      return oauthError(ctx, 400, 'invalid_request', 'The request body could not be read as application/x-www-form-urlencoded');
    const body = (ctx.request.body && typeof ctx.request.body === 'object' ? ctx.request.body : {}) as Record<string, unknown>;
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(ctx.query)) {
      if (Array.isArray(v)) return oauthError(ctx, 400, 'invalid_request', `${k} must be sent once`);
      if (v !== undefined) query[k] = v;
    }
    for (const [k, v] of Object.entries(body)) {
      if (typeof v !== 'string') return oauthError(ctx, 400, 'invalid_request', `${k} must be sent once, as text`);
    }
    const bodyless = !ctx.request.length && Object.keys(body).length === 0;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(ctx.headers)) if (typeof v === 'string') headers[k] = v;
    const basic = basicCredentials(headers.authorization);
    if (basic) headers.authorization = `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`;
    // RFC 6749 §2.3: one client authentication per request. A secret in the form beside Basic
    // credentials (or another client id there) is two, and which one counts would be a guess.
    const params: Record<string, unknown> = { ...query, ...body };
    if (basic && (params.client_secret !== undefined || (params.client_id !== undefined && params.client_id !== basic.id))) {
      return oauthError(
        ctx,
        400,
        'invalid_request',
        'Use one client authentication: HTTP Basic, or client_id and client_secret in the form, not both',
      );
    }
    // Parameters in the query string with no body count as a form.
    if (bodyless) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = '0';
    }
    const request = new OAuth2Server.Request({ method: ctx.method, headers, query, body: params });
    const response = new OAuth2Server.Response();
    // The library's answer: undefined when it issued a token (in `response`), else what it threw.
    const issue = async (): Promise<{ outcome: ClientAuthOutcome; value: unknown }> => {
      try {
        await servers.token.token(request, response);
        return { outcome: 'authenticated', value: undefined };
      } catch (err) {
        return { outcome: (err as { name?: string }).name === 'invalid_client' ? 'refused' : 'other', value: err };
      }
    };
    const clientId = basic ? basic.id : params.client_id;
    const secret = basic ? basic.secret : params.client_secret;
    // Only a secret presented is a guess: without one (or with one the library will not check) nothing is counted.
    const guarded = typeof clientId === 'string' && typeof secret === 'string' && VSCHAR.test(clientId) && VSCHAR.test(secret);
    let failure: unknown;
    try {
      const result = guarded
        ? await servers.clientAuth.attempt(clientId, ctx.ip, issue)
        : { throttled: false as const, value: (await issue()).value };
      if (result.throttled) {
        ctx.set('Retry-After', String(result.retryAfterS));
        // Not invalid_client: the secret may be right, and a client told it is wrong would be misled.
        return oauthError(
          ctx,
          429,
          'too_many_attempts',
          `Client authentication failed too often from this address; try again in ${result.retryAfterS} s`,
        );
      }
      failure = result.value;
    } catch (err) {
      failure = err;
    }
    if (failure === undefined) {
      const issued = response.body as Record<string, unknown>;
      ctx.status = 200;
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      // The library derives expires_in from the expiry it stored, a few ms ago (3599): the token lives 3600 s from issue.
      ctx.body = {
        access_token: issued.access_token,
        token_type: 'Bearer',
        expires_in: ACCESS_TOKEN_LIFETIME_S,
        ...(issued.refresh_token ? { refresh_token: issued.refresh_token } : {}),
        scope: issued.scope,
      };
      return;
    }
    const e = failure as { name?: string; code?: number; message?: string };
    if (response.get('www-authenticate')) ctx.set('WWW-Authenticate', response.get('www-authenticate') as string);
    if (!(failure instanceof OAuth2Server.OAuthError) || e.name === 'server_error' || (e.code ?? 500) >= 500) {
      // The library puts the underlying error's message in error_description: keep it in the log.
      ctx.state.log.error({ err: failure }, 'token request failed');
      return oauthError(ctx, 500, 'server_error', `Internal server error (reference ${ctx.state.requestId})`);
    }
    oauthError(ctx, e.code ?? 400, e.name ?? 'invalid_request', e.message ?? 'Invalid request');
  });
  return router;
}
