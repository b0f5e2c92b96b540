import { hasPermission } from '../../platform/permissions.js';
import escapeHtml from 'escape-html';
import { AppError } from '../../platform/errors.js';
import type { AppContext, AppMiddleware } from './context.js';

/**
 * Server-rendered pages (OAuth sign-in, instance choice and consent; Control Panel; account).
 * `html` escapes every interpolated value unless it is itself `html`, so user-supplied text
 * (an application's name, an email) can never become markup.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

function render(v: unknown): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

const STYLE = `
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1d2433}
main{max-width:44rem;margin:3rem auto;background:#fff;border-radius:8px;padding:2rem 2.5rem;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:.9rem 0 .3rem;font-weight:600}
input,select{width:100%;padding:.55rem;border:1px solid #c5cad3;border-radius:4px;font-size:1rem;box-sizing:border-box}
button{margin-top:1.2rem;padding:.6rem 1.2rem;border:0;border-radius:4px;background:#2453a6;color:#fff;font-size:1rem;cursor:pointer}
button.secondary{background:#e3e6eb;color:#1d2433}button.danger{background:#b3261e}
.error{background:#fdecea;color:#8a1c14;padding:.7rem 1rem;border-radius:4px}.notice{background:#e8f3ea;padding:.7rem 1rem;border-radius:4px}
table{width:100%;border-collapse:collapse;margin-top:1rem}td,th{text-align:left;padding:.45rem;border-bottom:1px solid #e3e6eb;vertical-align:top}
code{background:#f0f1f4;padding:.1rem .3rem;border-radius:3px;overflow-wrap:anywhere}.muted{color:#5b6475}form.inline{display:inline}
nav{margin-bottom:1.2rem}nav a{margin-right:1rem}td form.inline button,nav button{margin-top:0}
.landing h2{font-size:1.1rem;margin:1.8rem 0 .5rem}.landing h3{font-size:1rem;margin:1.2rem 0 .3rem}.landing ul{margin:.3rem 0;padding-left:1.2rem}
.landing li{margin:.2rem 0}.landing th{width:11rem;font-weight:600}.landing section.instance{border-top:1px solid #e3e6eb}`;

/** A whole page: the layout around `body`. */
export function page(title: string, body: Html, nav?: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Lectern</title><style>${new Html(STYLE)}</style></head>
<body><main>${nav ?? ''}<h1>${title}</h1>${body}</main></body></html>`.value;
}

/** A hidden CSRF field for a form of this page. */
export function csrfField(ctx: AppContext): Html {
  return html`<input type="hidden" name="_csrf" value="${ctx.state.csrfToken ?? ''}">`;
}

/** Sends a page with the headers every one of them gets: no caching, no framing, no referrer. */
export function sendPage(ctx: AppContext, title: string, body: Html, opts: { status?: number; nav?: Html } = {}): void {
  ctx.status = opts.status ?? 200;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  // Consent and sign-in must never be framed (clickjacking); codes and state must not leak in Referer.
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = page(title, body, opts.nav);
}

/**
 * Page routes answer errors with a page, not JSON: a client mistake with its message, anything
 * else with a generic one (the details stay in the log, under the request id).
 */
export function pageErrors(): AppMiddleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError && err.status < 500) {
        sendPage(
          ctx,
          err.status === 403 ? 'Not allowed' : err.status === 404 ? 'Not found' : 'Something is not right',
          html`<p class="error">${err.message}</p>`,
          { status: err.status },
        );
        return;
      }
      // Too busy for now (too many sign-in checks waiting): say so, and when to come back.
      if (err instanceof AppError && err.status === 503) {
        ctx.set('Retry-After', '1');
        sendPage(ctx, 'Busy', html`<p class="error">${err.message}</p>`, { status: 503 });
        return;
      }
      ctx.state.log.error({ err }, 'page failed');
      sendPage(
        ctx,
        'Something went wrong',
        html`<p class="error">Something went wrong on our side. Please try again. (Reference: <code>${ctx.state.requestId}</code>)</p>`,
        { status: 500 },
      );
    }
  };
}

/** The email and password form of a sign-in page (OAuth sign-in and the Control Panel share it). */
export function signInForm(
  ctx: AppContext,
  opts: { action: string; email?: string; error?: string; hidden?: Record<string, string> },
): Html {
  return html`${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<form method="post" action="${opts.action}">${csrfField(ctx)}
${Object.entries(opts.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`;
}

/** The message and status of a refused sign-in: the same whether or not the email exists. */
export function signInRefusal(
  ctx: AppContext,
  result: { reason: 'invalid' } | { reason: 'throttled'; retryAfterS: number },
): { error: string; status: number } {
  if (result.reason === 'invalid') return { error: 'The email or password is not right.', status: 401 };
  ctx.set('Retry-After', String(result.retryAfterS));
  const wait = result.retryAfterS < 120 ? `${result.retryAfterS} seconds` : `${Math.ceil(result.retryAfterS / 60)} minutes`;
  return { error: `Too many sign-in attempts. Wait ${wait} and try again.`, status: 429 };
}

/**
 * The Control Panel's sections: each page's navigation shows those the user's role may open
 * (one list for every section's pages, so a new section is one row).
 */
export const CONTROL_PANEL_SECTIONS: readonly { href: string; label: string; permission: string }[] = [
  // Where an administrator creates client credentials (the permission keeps its old name: it is an interface).
  { href: '/control-panel/api-clients', label: 'API clients', permission: 'AUTHORIZED_APPLICATIONS_EDIT' },
  { href: '/control-panel/portals', label: 'Portals', permission: 'WEBLINK_PORTALS_EDIT' },
  { href: '/control-panel/webhooks', label: 'Webhooks', permission: 'WEBHOOKS_VIEW' },
];

/** The navigation of a Control Panel page for a signed-in user: the sections they may open, the apps they authorized, sign out. */
export function controlPanelNav(ctx: AppContext, user: { email: string; permissions: readonly string[] }): Html {
  const sections = CONTROL_PANEL_SECTIONS.filter((s) => hasPermission(user.permissions, s.permission));
  return html`<nav>
${sections.map((s) => html`<a href="${s.href}">${s.label}</a>`)}
<a href="/account/applications">Apps you authorized</a>
<form method="post" action="/control-panel/logout" class="inline">${csrfField(ctx)}<button type="submit" class="secondary">Sign out ${user.email}</button></form></nav>`;
}
