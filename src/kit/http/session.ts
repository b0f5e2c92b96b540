import crypto from 'node:crypto';
import Tokens from 'csrf';
import type Koa from 'koa';
import createSession from 'koa-session';
import type { Knex } from '../../platform/db/knex.js';
import { AppError } from '../../platform/errors.js';
import type { AppContext, AppMiddleware, AppState } from './context.js';
import { deleteExpiredSessions, deleteSession, saveSession, sessionData } from './session.data.js';

/**
 * Browser sessions for Lectern's own pages (the OAuth sign-in and consent pages on the
 * platform host, the Control Panel and account pages on a tenant's host). The cookie holds a
 * random id, signed with SESSION_SECRET; the data lives in `platform.web_sessions` under the
 * id's hash, so neither a stolen table nor a guessed cookie opens a session. Cookies are
 * HttpOnly, SameSite=Lax, and Secure whenever the request came over HTTPS (behind the router in
 * production, `X-Forwarded-Proto`). A host's cookie is its own: a session never crosses hosts.
 */

/**
 * What a session holds. Everything is optional: a session starts empty, and an empty session is
 * never stored: looking at a page (a sign-in form, the instance page) keeps nothing server-side.
 * A session is stored once there is something to keep: an authorization in progress, or a
 * signed-in user.
 */
export interface SessionData {
  /** The signed-in user of this host's tenant (Control Panel, account pages, OAuth sign-in). */
  user?: { tenantId: number; userId: number; email: string };
  /** An authorization request waiting for sign-in and consent (platform host only). */
  authorization?: PendingAuthorization;
  /** Ids of one-time forms already submitted (a reload must not do their work twice). */
  usedForms?: string[];
}

export interface PendingAuthorization {
  /** Names this request on the pages it shows, so a decision applies to the request its page displayed. */
  id: string;
  clientId: string;
  redirectUri: string;
  state?: string;
  scope?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  /** The tenant the user chose or the `instance` hint named. */
  tenantId?: number;
}

/** A signed-in session lasts 8 hours; one only waiting for a sign-in, half an hour. */
const MAX_AGE_MS = 8 * 3600_000;
const PENDING_MAX_AGE_MS = 30 * 60_000;
const idHash = (key: string) => crypto.createHash('sha256').update(key).digest('hex');

export function sessions(app: Koa<AppState>, knex: Knex, keys: string[]): AppMiddleware {
  app.keys = keys;
  let writes = 0;
  return createSession(
    {
      key: 'lectern.sid',
      maxAge: MAX_AGE_MS,
      httpOnly: true,
      sameSite: 'lax',
      signed: true,
      renew: true,
      genid: () => crypto.randomBytes(32).toString('base64url'),
      store: {
        async get(key: string) {
          return sessionData(knex, idHash(key));
        },
        async set(key: string, data: unknown, maxAge: number) {
          const ttl = typeof maxAge === 'number' ? maxAge : MAX_AGE_MS;
          await saveSession(knex, idHash(key), data, new Date(Date.now() + ttl));
          // Now and then, forget sessions that have expired.
          if (++writes % 200 === 0) await deleteExpiredSessions(knex);
        },
        async destroy(key: string) {
          await deleteSession(knex, idHash(key));
        },
      },
    },
    app as unknown as Koa,
  ) as unknown as AppMiddleware;
}

/** The request's session data (the `sessions` middleware must run before). */
export function sessionOf(ctx: AppContext): SessionData {
  const s = (ctx as unknown as { session: SessionData | null }).session;
  if (!s) throw new Error('page route mounted without the session middleware');
  return s;
}

/**
 * Signs `user` in: a fresh session id (against session fixation) and a fresh CSRF secret, so
 * neither an id nor a form token someone planted or saw before sign-in is good after it.
 */
export async function signInSession(ctx: AppContext, user: NonNullable<SessionData['user']>): Promise<void> {
  const session = (ctx as unknown as { session: SessionData & { regenerate(): Promise<void>; maxAge: number } }).session;
  await session.regenerate();
  session.user = user;
  session.maxAge = MAX_AGE_MS;
  rotateCsrfSecret(ctx);
}

/** Keeps an authorization in progress: a short-lived session until the user signs in. */
export function keepPendingAuthorization(ctx: AppContext, pending: PendingAuthorization): void {
  const session = (ctx as unknown as { session: SessionData & { maxAge: number } }).session;
  session.authorization = pending;
  if (!session.user) session.maxAge = PENDING_MAX_AGE_MS;
}

/** Ends the session: its row is deleted and the cookie cleared. */
export function endSession(ctx: AppContext): void {
  (ctx as unknown as { session: unknown }).session = null;
}

declare module './context.js' {
  interface AppState {
    /** The CSRF token to put in this page's forms. */
    csrfToken?: string;
    /** This browser's CSRF secret, once read or made in this request. */
    csrfSecret?: string;
  }
}

const tokens = new Tokens();
const CSRF_COOKIE = 'lectern.csrf';

/** The CSRF secret lives in a signed cookie of its own, so a page with a form needs no stored session. */
function csrfSecretOf(ctx: AppContext): string {
  return ctx.cookies.get(CSRF_COOKIE, { signed: true }) ?? rotateCsrfSecret(ctx);
}

function rotateCsrfSecret(ctx: AppContext): string {
  const secret = tokens.secretSync();
  ctx.cookies.set(CSRF_COOKIE, secret, { signed: true, httpOnly: true, sameSite: 'lax', secure: ctx.secure, overwrite: true });
  // Forms on the page this request renders carry tokens of the new secret.
  ctx.state.csrfSecret = secret;
  ctx.state.csrfToken = tokens.create(secret);
  return secret;
}

/**
 * CSRF protection for every form: each browser has a secret, in a signed, HttpOnly cookie of
 * this host (never readable by another site, never forgeable without the server's keys); pages
 * embed a token made from it (`_csrf`), and a POST without a valid one is refused (403) before
 * its handler runs. Signing in changes the secret (see {@link signInSession}).
 */
export function csrfProtection(): AppMiddleware {
  return async (ctx, next) => {
    const secret = ctx.state.csrfSecret ?? csrfSecretOf(ctx);
    if (ctx.method === 'POST') {
      const sent = (ctx.request.body as Record<string, unknown> | undefined)?._csrf;
      if (typeof sent !== 'string' || !tokens.verify(secret, sent)) {
        throw new AppError(
          403,
          'csrf_failed',
          'This form has expired or did not come from this site. Go back, reload the page and try again.',
        );
      }
    }
    ctx.state.csrfToken ??= tokens.create(secret);
    await next();
  };
}

/** A fresh id for a form whose work must happen once, however often it is submitted. */
export function oneTimeFormId(): string {
  return crypto.randomBytes(12).toString('base64url');
}

/**
 * Claims a one-time form id for this submission: true the first time, false when the form was
 * already submitted (the browser re-posted it on reload or back).
 */
export function claimForm(ctx: AppContext, formId: unknown): boolean {
  const session = sessionOf(ctx);
  if (typeof formId !== 'string' || !/^[\w-]{16}$/.test(formId)) return false;
  const used = session.usedForms ?? [];
  if (used.includes(formId)) return false;
  session.usedForms = [...used.slice(-19), formId];
  return true;
}
