import Router from '@koa/router';
import type { Knex } from '../../platform/db/knex.js';
import { tenantOf, type AppContext, type AppState } from '../../kit/http/context.js';
import { csrfField, html, sendPage, signInForm, signInRefusal, type Html, controlPanelNav } from '../../kit/http/pages.js';
import { claimForm, endSession, oneTimeFormId, sessionOf, signInSession } from '../../kit/http/session.js';
import { hasPermission } from '../../platform/permissions.js';
import { type SignIn, activeUserWithPermissions } from '../users/index.js';
import {
  createServiceClient,
  listAuthorizedApplications,
  listClients,
  removeApplicationAccess,
  revokeClient,
  serviceUserChoices,
} from './clients.service.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';
import { AppError, ValidationError } from '../../platform/errors.js';

/**
 * Server-rendered pages on a tenant's host:
 * - Control Panel, section API clients (tenant admins: `AUTHORIZED_APPLICATIONS_EDIT`, which the
 *   admin role holds): create client credentials acting as a chosen service user (the secret is
 *   shown once), list them, revoke them. Named by what it does: it was "Authorized Applications"
 *   at `/control-panel/authorized-applications`, which still redirects here (bookmarks, links);
 * - `/account/applications`, "Apps you authorized": the integrations a user has allowed to act for
 *   them (the OAuth consent), with "Remove access".
 * Signing in here is the tenant's own sign-in; the session is this host's alone.
 */

/** The permission keeps its name: roles and integrations name it. */
export const CONTROL_PANEL_PERMISSION = 'AUTHORIZED_APPLICATIONS_EDIT';
const APPS = '/control-panel/api-clients';
/** The section's address before it was named for what it does. */
const OLD_APPS = '/control-panel/authorized-applications';
const ACCOUNT_APPS = '/account/applications';

interface PageUser {
  id: number;
  email: string;
  permissions: string[];
}

/** Only a path on this host: `next` must never send the browser elsewhere. */
const safeNext = (v: unknown) => (typeof v === 'string' && /^\/(?![/\\])[\x21-\x7E]*$/.test(v) ? v : APPS);

export function controlPanelRoutes(deps: { knex: Knex; signIn: SignIn }): Router<AppState> {
  const router = new Router<AppState>();
  const { knex } = deps;

  /** The signed-in user of this tenant, re-read each request (still active, current role); else to sign-in. */
  async function currentUser(ctx: AppContext): Promise<PageUser | undefined> {
    const tenant = tenantOf(ctx);
    const s = sessionOf(ctx).user;
    const user =
      s?.tenantId === tenant.id ? await withTenant(knex, tenant, (db) => activeUserWithPermissions(db, { id: s.userId })) : undefined;
    if (!user) {
      ctx.redirect(`/control-panel/login?next=${encodeURIComponent(ctx.path)}`);
      return undefined;
    }
    return { id: user.id, email: user.email, permissions: user.permissions };
  }

  const nav = controlPanelNav;

  const loginPage = (ctx: AppContext, opts: { email?: string; error?: string; status?: number; next?: string } = {}) =>
    sendPage(
      ctx,
      `Sign in to ${tenantOf(ctx).name}`,
      signInForm(ctx, { action: '/control-panel/login', hidden: { next: safeNext(opts.next) }, ...opts }),
      { status: opts.status ?? 200 },
    );

  router.get('/control-panel', (ctx) => ctx.redirect(APPS));
  // The old address of the section and of its forms: moved for good. A page load is a 301; a form
  // posted from a page loaded before the move is a 308, so the browser posts it again, unchanged.
  const moved = (ctx: AppContext) => {
    ctx.status = ctx.method === 'GET' || ctx.method === 'HEAD' ? 301 : 308;
    ctx.redirect(`${APPS}${ctx.path.slice(OLD_APPS.length)}${ctx.querystring ? `?${ctx.querystring}` : ''}`);
  };
  router.all(OLD_APPS, moved);
  router.all(`${OLD_APPS}/:clientId/revoke`, moved);
  router.get('/control-panel/login', (ctx) => loginPage(ctx, { next: ctx.query.next as string | undefined }));
  router.post('/control-panel/login', async (ctx) => {
    const body = ctx.request.body as Record<string, unknown>;
    const email = String(body.email ?? '');
    const next = safeNext(body.next);
    const tenant = tenantOf(ctx);
    const result = await deps.signIn.attempt(tenant, email, String(body.password ?? ''), ctx.ip);
    if (!result.ok) return loginPage(ctx, { email, next, ...signInRefusal(ctx, result) });
    await signInSession(ctx, { tenantId: tenant.id, userId: result.user.id, email: result.user.email });
    ctx.redirect(next);
  });
  router.post('/control-panel/logout', (ctx) => {
    endSession(ctx);
    ctx.redirect('/control-panel/login');
  });

  async function applicationsPage(ctx: AppContext, user: PageUser, extra: { created?: Html; error?: string; status?: number } = {}) {
    const tenant = tenantOf(ctx);
    const [clients, users] = await Promise.all([
      listClients(knex, { tenantId: tenant.id }),
      withTenant(knex, tenant, (db) => serviceUserChoices(db)),
    ]);
    const emailOf = new Map(users.map((u) => [u.id, u.email]));
    const rows = clients.map(
      (
        c,
      ) => html`<tr><td>${c.name}</td><td><code>${c.clientId}</code></td><td>${c.serviceUserId ? (emailOf.get(c.serviceUserId) ?? `user ${c.serviceUserId} (inactive)`) : ''}</td>
<td>${c.createdAt.slice(0, 10)}</td><td>${
        c.revokedAt
          ? html`Revoked ${c.revokedAt.slice(0, 10)}`
          : html`<form method="post" action="${APPS}/${c.clientId}/revoke" class="inline">${csrfField(ctx)}<button type="submit" class="danger" aria-label="Revoke ${c.name}">Revoke</button></form>`
      }</td></tr>`,
    );
    sendPage(
      ctx,
      'API clients',
      html`${extra.created ?? ''}${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
<p>An API client is a client id and secret (OAuth client credentials) that a server of yours exchanges for tokens of the
Lectern GraphQL API, acting as one of this instance's users, with that user's permissions.
Integrations that people sign in to and allow are not listed here: each user sees those under <a href="${ACCOUNT_APPS}">Apps you authorized</a>.</p>
<h2>Create an API client</h2>
<form method="post" action="${APPS}">${csrfField(ctx)}<input type="hidden" name="form_id" value="${oneTimeFormId()}">
<label for="name">Name</label><input id="name" name="name" required maxlength="100" placeholder="e.g. Website booking sync">
<label for="service_user">Acts as</label><select id="service_user" name="service_user" required>
${users.map((u) => html`<option value="${u.id}">${u.email} (${u.role})</option>`)}</select>
<button type="submit">Create</button></form>
<h2>API clients of ${tenant.name}</h2>
${
  clients.length
    ? html`<table><thead><tr><th>Name</th><th>Client id</th><th>Acts as</th><th>Created</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p class="muted">None yet.</p>`
}`,
      { status: extra.status ?? 200, nav: nav(ctx, user) },
    );
  }

  /** The signed-in user, if allowed into the API clients section. */
  async function admin(ctx: AppContext): Promise<PageUser | undefined> {
    const user = await currentUser(ctx);
    if (user && !hasPermission(user.permissions, CONTROL_PANEL_PERMISSION)) {
      throw new AppError(
        403,
        'permission_denied',
        `API clients need the ${CONTROL_PANEL_PERMISSION} permission, which your role does not have: ask an administrator of this instance.`,
      );
    }
    return user;
  }

  router.get(APPS, async (ctx) => {
    const user = await admin(ctx);
    if (user) await applicationsPage(ctx, user);
  });

  router.post(APPS, async (ctx) => {
    const user = await admin(ctx);
    if (!user) return;
    const body = ctx.request.body as Record<string, unknown>;
    if (!claimForm(ctx, body.form_id)) {
      return applicationsPage(ctx, user, {
        error: 'This form was already sent: that API client exists (its secret was shown once). Create a new one if you need a secret.',
        status: 409,
      });
    }
    const serviceUser = Number(body.service_user);
    try {
      const created = await createServiceClient(knex, tenantOf(ctx), {
        name: String(body.name ?? ''),
        serviceUser: Number.isInteger(serviceUser) && serviceUser > 0 ? serviceUser : String(body.service_user ?? ''),
        createdBy: user.email,
      });
      await applicationsPage(ctx, user, {
        created: html`<div class="notice" role="status"><p><strong>${created.name}</strong> can now get tokens acting as ${created.serviceUserEmail}.
Copy the secret now: it is shown only this once.</p>
<p>Client id: <code id="client-id">${created.clientId}</code></p><p>Client secret: <code id="client-secret">${created.clientSecret}</code></p></div>`,
      });
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      await applicationsPage(ctx, user, { error: err.message, status: 400 });
    }
  });

  router.post(`${APPS}/:clientId/revoke`, async (ctx) => {
    const user = await admin(ctx);
    if (!user) return;
    const revoked = await revokeClient(knex, String((ctx as unknown as { params: { clientId: string } }).params.clientId), {
      tenantId: tenantOf(ctx).id,
    });
    await applicationsPage(ctx, user, {
      created: html`<p class="notice" role="status">${revoked.name} is revoked: its id and secret get no more tokens, and the tokens it had stopped working.</p>`,
    });
  });

  async function myApplicationsPage(ctx: AppContext, user: PageUser, notice?: string) {
    const apps = await listAuthorizedApplications(knex, tenantOf(ctx).id, user.id);
    sendPage(
      ctx,
      'Apps you authorized',
      html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${
  apps.length
    ? html`<p>These apps may use Lectern as you, with your permissions, until you remove their access.</p>
<table><thead><tr><th>App</th><th>Authorized</th><th></th></tr></thead><tbody>
${apps.map(
  (a) => html`<tr><td>${a.name}</td><td>${a.authorizedAt.slice(0, 10)}</td><td>
<form method="post" action="${ACCOUNT_APPS}/${a.clientId}/remove" class="inline">${csrfField(ctx)}<button type="submit" class="danger" aria-label="Remove access of ${a.name}">Remove access</button></form></td></tr>`,
)}</tbody></table>`
    : html`<p class="muted">You have not authorized any app: none can act for you.</p>`
}`,
      { nav: nav(ctx, user) },
    );
  }

  router.get(ACCOUNT_APPS, async (ctx) => {
    const user = await currentUser(ctx);
    if (user) await myApplicationsPage(ctx, user);
  });

  router.post(`${ACCOUNT_APPS}/:clientId/remove`, async (ctx) => {
    const user = await currentUser(ctx);
    if (!user) return;
    const clientId = String((ctx as unknown as { params: { clientId: string } }).params.clientId);
    await removeApplicationAccess(knex, tenantOf(ctx).id, user.id, clientId);
    await myApplicationsPage(ctx, user, 'Access removed: that app can no longer act for you.');
  });

  return router;
}
