import crypto from 'node:crypto';
import Router from '@koa/router';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { Config } from '../../platform/config.js';
import type { AppContext, AppState } from '../../kit/http/context.js';
import { csrfField, html, sendPage, signInForm, signInRefusal, type Html } from '../../kit/http/pages.js';
import { keepPendingAuthorization, sessionOf, signInSession, type PendingAuthorization } from '../../kit/http/session.js';
import type { SignIn } from '../users/index.js';
import { slugFromHost, type TenantRegistry } from '../../platform/tenancy/registry.js';
import { hasControlCharacter } from '../../platform/util/text.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { SCOPE, type OAuthServerClient, type OAuthUser } from './oauth-store.js';
import type { OAuthServers } from './oauth-server.js';
import { devCallbackPage } from './dev-callback.routes.js';

/**
 * The authorization endpoint and its pages, on the platform host (the auth address):
 * `GET /oauth/authorize` checks the client and its exact redirect URI (until both are known,
 * errors are shown on a page, never redirected), then the rest of the request (errors from here
 * on go back to the client as RFC 6749 error redirects); then the instance page (unless the
 * `instance` hint names one), the instance's sign-in page, and the consent page naming the
 * application; then a redirect to the callback with `code`, the same `state` and `iss`.
 * With OAUTH_DEV_CALLBACK, also `GET /oauth/dev-callback`, a callback page for trying the flow
 * by hand (dev-callback.routes.ts).
 */

export interface AuthorizeDeps {
  config: Config;
  registry: TenantRegistry;
  servers: OAuthServers;
  signIn: SignIn;
}

// RFC 7636 §4.2: 43-128 characters of the unreserved set.
const CODE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;
// RFC 6749 Appendix A: printable ASCII.
const VSCHAR = /^[\x20-\x7E]+$/;

/**
 * A request parameter that must appear at most once (RFC 6749 §3.1): null when repeated,
 * undefined when absent or empty. A value with a control character is returned as sent: each
 * check below refuses it as the malformed value it is (leaving it out would take it as absent,
 * and a code would be issued without the state, scope or PKCE the client asked for).
 */
function single(ctx: AppContext, name: string): string | undefined | null {
  const v = ctx.query[name];
  if (Array.isArray(v)) return null;
  return v === undefined || v === '' ? undefined : v;
}

/** The instance a user named, as a full address (`https://acme.lectern.example.com`), a host, or a bare slug. */
export async function resolveInstance(input: string, config: Config, registry: TenantRegistry): Promise<Tenant | undefined> {
  const value = input.trim().toLowerCase();
  if (!value || value.length > 300) return undefined;
  let slug: string | undefined;
  if (/^[a-z][a-z0-9-]*$/.test(value)) slug = value;
  else {
    try {
      slug = slugFromHost(new URL(value.includes('://') ? value : `https://${value}`).host, config.baseDomain);
    } catch {
      return undefined;
    }
  }
  return slug ? registry.bySlug(slug) : undefined;
}

export function authorizeRoutes(deps: AuthorizeDeps): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/oauth' });
  const { servers, registry, config } = deps;
  const clientOf = (clientId: string) => servers.findClient(clientId);

  /** An error after the redirect URI is trusted: back to the client, with state and issuer. */
  const redirectError = (ctx: AppContext, p: Pick<PendingAuthorization, 'redirectUri' | 'state'>, error: string, description: string) => {
    const url = new URL(p.redirectUri);
    url.searchParams.set('error', error);
    url.searchParams.set('error_description', description);
    if (p.state) url.searchParams.set('state', p.state);
    url.searchParams.set('iss', servers.issuer);
    ctx.redirect(url.toString());
  };
  const stop = (ctx: AppContext, title: string, message: string, status = 400) =>
    sendPage(ctx, title, html`<p class="error">${message}</p>`, { status });

  router.get('/authorize', async (ctx) => {
    const clientId = single(ctx, 'client_id');
    const redirectUri = single(ctx, 'redirect_uri');
    // A client id with a control character names no client: never looked up (a NUL would reach the database).
    const client = typeof clientId === 'string' && !hasControlCharacter(clientId) ? await clientOf(clientId) : false;
    if (!client || !client.grants.includes('authorization_code')) {
      return stop(
        ctx,
        'Unknown application',
        "This sign-in link names no application registered with Lectern (client_id is missing, unknown or revoked). Tell the application's developers.",
      );
    }
    if (typeof redirectUri !== 'string' || !client.redirectUris.includes(redirectUri)) {
      return stop(
        ctx,
        'Wrong return address',
        "This sign-in link asks to return to an address the application did not register (redirect_uri must match exactly). Tell the application's developers.",
      );
    }
    const state = single(ctx, 'state');
    // A state outside VSCHAR (a control character, non-ASCII) is refused and not echoed, as the
    // library does: it is no value the client can have meant, and reflecting raw bytes (CR, LF,
    // NUL) into its callback helps nobody; the error says what was wrong.
    const back = { redirectUri, state: typeof state === 'string' && VSCHAR.test(state) ? state : undefined };
    const names = ['response_type', 'client_id', 'redirect_uri', 'state', 'scope', 'code_challenge', 'code_challenge_method', 'instance'];
    const repeated = names.find((n) => single(ctx, n) === null);
    if (repeated) return redirectError(ctx, back, 'invalid_request', `${repeated} must be sent once`);
    if (state !== undefined && !back.state) return redirectError(ctx, back, 'invalid_request', 'state must be printable ASCII');
    if (single(ctx, 'response_type') !== 'code') return redirectError(ctx, back, 'unsupported_response_type', 'response_type must be code');
    const scope = single(ctx, 'scope');
    if (scope !== undefined && scope !== SCOPE) return redirectError(ctx, back, 'invalid_scope', `the only scope is ${SCOPE}`);
    const challenge = single(ctx, 'code_challenge');
    const method = single(ctx, 'code_challenge_method');
    if (challenge !== undefined || method !== undefined) {
      if (method !== 'S256') return redirectError(ctx, back, 'invalid_request', 'code_challenge_method must be S256');
      if (typeof challenge !== 'string' || !CODE_CHALLENGE.test(challenge))
        return redirectError(ctx, back, 'invalid_request', 'code_challenge must be 43-128 characters of A-Z a-z 0-9 - . _ ~');
    }
    const instance = single(ctx, 'instance');
    const tenant = typeof instance === 'string' ? await resolveInstance(instance, config, registry) : undefined;
    keepPendingAuthorization(ctx, {
      id: crypto.randomBytes(12).toString('base64url'),
      clientId: client.id,
      redirectUri,
      ...(back.state ? { state: back.state } : {}),
      ...(scope ? { scope } : {}),
      ...(challenge ? { codeChallenge: challenge as string, codeChallengeMethod: 'S256' } : {}),
      ...(tenant ? { tenantId: tenant.id } : {}),
    });
    ctx.redirect(nextStep(ctx));
  });

  /** Where a pending authorization goes next: choose the instance, sign in, or consent. */
  function nextStep(ctx: AppContext): string {
    const session = sessionOf(ctx);
    const pending = session.authorization;
    if (!pending?.tenantId) return '/oauth/instance';
    return session.user?.tenantId === pending.tenantId ? '/oauth/consent' : '/oauth/login';
  }

  /** The pending authorization, or a page saying there is none (an old tab, an expired session). */
  function pendingOf(ctx: AppContext): PendingAuthorization | undefined {
    const pending = sessionOf(ctx).authorization;
    if (!pending)
      stop(
        ctx,
        'Nothing to authorize',
        'There is no sign-in in progress here (it may have expired). Go back to the application and start again.',
      );
    return pending;
  }

  const instancePage = async (ctx: AppContext, opts: { value?: string; error?: string } = {}) => {
    const pending = pendingOf(ctx);
    if (!pending) return;
    const client = await clientOf(pending.clientId);
    sendPage(
      ctx,
      'Which Lectern instance?',
      html`<p>${client ? client.name : 'An application'} wants to connect to your Lectern instance. Enter your instance's address.</p>
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<form method="post" action="/oauth/instance">${csrfField(ctx)}
<label for="instance">Instance address</label>
<input id="instance" name="instance" required placeholder="https://yourcompany.${config.baseDomain}" value="${opts.value ?? ''}">
<button type="submit">Continue</button></form>`,
      { status: opts.error ? 400 : 200 },
    );
  };

  router.get('/instance', (ctx) => instancePage(ctx));
  router.post('/instance', async (ctx) => {
    const pending = pendingOf(ctx);
    if (!pending) return;
    const input = String((ctx.request.body as Record<string, unknown>).instance ?? '');
    const tenant = await resolveInstance(input, config, registry);
    if (!tenant) return instancePage(ctx, { value: input, error: 'There is no Lectern instance at that address. Check it and try again.' });
    pending.tenantId = tenant.id;
    ctx.redirect(nextStep(ctx));
  });

  const tenantOfPending = async (ctx: AppContext): Promise<{ pending: PendingAuthorization; tenant: Tenant } | undefined> => {
    const pending = pendingOf(ctx);
    if (!pending) return undefined;
    const tenant = pending.tenantId ? await registry.byId(pending.tenantId) : undefined;
    if (!tenant) {
      ctx.redirect('/oauth/instance');
      return undefined;
    }
    return { pending, tenant };
  };

  const loginPage = (ctx: AppContext, tenant: Tenant, opts: { email?: string; error?: string; status?: number } = {}) =>
    sendPage(
      ctx,
      `Sign in to ${tenant.name}`,
      html`${signInForm(ctx, { action: '/oauth/login', ...opts })}
<p class="muted">Not your instance? <a href="/oauth/instance">Choose another one</a>.</p>`,
      { status: opts.status ?? 200 },
    );

  router.get('/login', async (ctx) => {
    const found = await tenantOfPending(ctx);
    if (found) loginPage(ctx, found.tenant);
  });
  router.post('/login', async (ctx) => {
    const found = await tenantOfPending(ctx);
    if (!found) return;
    const body = ctx.request.body as Record<string, unknown>;
    const email = String(body.email ?? '');
    const result = await deps.signIn.attempt(found.tenant, email, String(body.password ?? ''), ctx.ip);
    if (!result.ok) return loginPage(ctx, found.tenant, { email, ...signInRefusal(ctx, result) });
    await signInSession(ctx, { tenantId: found.tenant.id, userId: result.user.id, email: result.user.email });
    ctx.redirect('/oauth/consent');
  });

  // Each decision form names the request its page shows: Allow applies to that request only.
  const consentBody = (ctx: AppContext, pending: PendingAuthorization, client: OAuthServerClient, tenant: Tenant, email: string): Html =>
    html`<p><strong>${client.name}</strong> wants to use Lectern on your behalf.</p>
<p>It will act as <strong>${email}</strong> in <strong>${tenant.name}</strong>, with what your role there allows, until you remove its access.</p>
<form method="post" action="/oauth/consent" class="inline">${csrfField(ctx)}<input type="hidden" name="request" value="${pending.id}"><input type="hidden" name="decision" value="allow"><button type="submit">Allow</button></form>
<form method="post" action="/oauth/consent" class="inline">${csrfField(ctx)}<input type="hidden" name="request" value="${pending.id}"><input type="hidden" name="decision" value="deny"><button type="submit" class="secondary">Deny</button></form>
<form method="post" action="/oauth/switch-account">${csrfField(ctx)}<p class="muted">Not ${email}? <button type="submit" class="secondary">Use another account</button></p></form>`;

  /** The signed-in user, when it is a user of the pending request's instance. */
  const signedIn = (ctx: AppContext, tenant: Tenant) => {
    const user = sessionOf(ctx).user;
    if (user?.tenantId === tenant.id) return user;
    ctx.redirect('/oauth/login');
    return undefined;
  };

  router.get('/consent', async (ctx) => {
    const found = await tenantOfPending(ctx);
    if (!found) return;
    const user = signedIn(ctx, found.tenant);
    if (!user) return;
    const client = await clientOf(found.pending.clientId);
    if (!client) return stop(ctx, 'Unknown application', 'This application is no longer registered with Lectern.');
    sendPage(ctx, `Allow ${client.name}?`, consentBody(ctx, found.pending, client, found.tenant, user.email));
  });

  router.post('/consent', async (ctx) => {
    const found = await tenantOfPending(ctx);
    if (!found) return;
    const user = signedIn(ctx, found.tenant);
    if (!user) return;
    const { pending } = found;
    const body = ctx.request.body as Record<string, unknown>;
    // The page this decision comes from showed another request than the one now in progress
    // (another application's authorization started in this browser since): it decides nothing.
    if (body.request !== pending.id) {
      return stop(
        ctx,
        'This page is out of date',
        'Another sign-in was started in this browser after this page was shown, so this answer cannot be used. Go back to the application and start again.',
      );
    }
    const session = sessionOf(ctx);
    // One decision per request: a second submission (a double click, the back button) finds nothing pending.
    session.authorization = undefined;
    if (body.decision !== 'allow') return redirectError(ctx, pending, 'access_denied', 'The user denied access');
    const request = new OAuth2Server.Request({
      method: 'POST',
      query: {},
      headers: {},
      body: {
        response_type: 'code',
        client_id: pending.clientId,
        redirect_uri: pending.redirectUri,
        ...(pending.state ? { state: pending.state } : {}),
        ...(pending.scope ? { scope: pending.scope } : {}),
        ...(pending.codeChallenge ? { code_challenge: pending.codeChallenge, code_challenge_method: pending.codeChallengeMethod } : {}),
      },
    });
    const response = new OAuth2Server.Response();
    const actor: OAuthUser = { id: user.userId, tenantId: user.tenantId };
    try {
      await servers.authorize.authorize(request, response, { authenticateHandler: { handle: () => actor } });
    } catch (err) {
      // The library has put an error redirect on the response when the redirect URI was trusted.
      if (!response.get('location')) {
        ctx.state.log.warn({ err: { message: (err as Error).message } }, 'authorization refused before redirect');
        return stop(ctx, 'Cannot authorize', 'This application can no longer be authorized. Go back to it and start again.');
      }
    }
    const location = new URL(response.get('location') as string);
    location.searchParams.set('iss', servers.issuer);
    ctx.redirect(location.toString());
  });

  router.post('/switch-account', async (ctx) => {
    sessionOf(ctx).user = undefined;
    ctx.redirect(sessionOf(ctx).authorization ? '/oauth/login' : '/oauth/instance');
  });

  // A callback page for trying the flow by hand, where the operator allows it (OAUTH_DEV_CALLBACK).
  if (config.oauthDevCallback) router.get('/dev-callback', devCallbackPage(servers));

  return router;
}
