import Router from '@koa/router';
import type { Knex } from '../../platform/db/knex.js';
import { tenantOf, type AppContext, type AppState } from '../../kit/http/context.js';
import { controlPanelNav, csrfField, html, sendPage } from '../../kit/http/pages.js';
import { sessionOf } from '../../kit/http/session.js';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { hasPermission } from '../../platform/permissions.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';
import { activeUserWithPermissions } from '../users/index.js';
import { normaliseDomain } from './portals.rules.js';
import { addPortal, listPortals, removePortal } from './portals.service.js';

/**
 * Control Panel, section Portals, on a tenant's host: the website addresses (portals) its
 * WebLink catalogue is published at; add one, remove one. For the instance's administrators
 * (`WEBLINK_PORTALS_EDIT`, which the admin role holds). Sign-in, sessions and CSRF are the
 * Control Panel's (`/control-panel/login`, control-panel.routes.ts).
 */

export const PORTALS_PERMISSION = 'WEBLINK_PORTALS_EDIT';
const PORTALS = '/control-panel/portals';

/** The form's field, as the page labels it: its error names it the same way and says what to type. */
const ADDRESS_LABEL = 'Website address';
const ADDRESS_WANTED =
  `${ADDRESS_LABEL}: type the website's host name, such as courses.example.com (pasting its address, ` +
  'such as https://courses.example.com/, works too), with no port and nothing after the name.';

interface PageUser {
  email: string;
  permissions: string[];
}

export function portalsControlPanelRoutes(deps: { knex: Knex }): Router<AppState> {
  const router = new Router<AppState>();
  const { knex } = deps;

  /** The signed-in administrator of this tenant (re-read each request); else to sign-in, or 403. */
  async function admin(ctx: AppContext): Promise<PageUser | undefined> {
    const tenant = tenantOf(ctx);
    const s = sessionOf(ctx).user;
    const user =
      s?.tenantId === tenant.id ? await withTenant(knex, tenant, (db) => activeUserWithPermissions(db, { id: s.userId })) : undefined;
    if (!user) {
      ctx.redirect(`/control-panel/login?next=${encodeURIComponent(PORTALS)}`);
      return undefined;
    }
    if (!hasPermission(user.permissions, PORTALS_PERMISSION)) {
      throw new AppError(
        403,
        'permission_denied',
        `Your role does not have the ${PORTALS_PERMISSION} permission: ask an administrator of this instance.`,
      );
    }
    return { email: user.email, permissions: user.permissions };
  }

  const nav = controlPanelNav;

  async function portalsPage(
    ctx: AppContext,
    user: PageUser,
    extra: { notice?: string; error?: string; domain?: string; status?: number } = {},
  ) {
    const tenant = tenantOf(ctx);
    const portals = await listPortals(knex, { tenantId: tenant.id });
    const rows = portals.map(
      (p) => html`<tr><td><code>${p.domain}</code></td><td>${p.createdAt.slice(0, 10)}</td><td>${p.createdBy ?? ''}</td><td>
<form method="post" action="${PORTALS}/remove" class="inline">${csrfField(ctx)}<input type="hidden" name="domain" value="${p.domain}"><button type="submit" class="danger" aria-label="Remove ${p.domain}">Remove</button></form></td></tr>`,
    );
    sendPage(
      ctx,
      'Portals',
      html`${extra.notice ? html`<p class="notice" role="status">${extra.notice}</p>` : ''}${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
<p>A portal is a website address your WebLink catalogue is published at: your own site's host name, such as
<code>www.example.com</code> or <code>courses.example.com</code>.
Its pages get a portal token from <code>POST /portal/guest</code> with <code>{"domain": "&lt;portal&gt;"}</code> and send it with their WebLink requests.</p>
<h2>Add a portal</h2>
<form method="post" action="${PORTALS}">${csrfField(ctx)}
<label for="domain">${ADDRESS_LABEL}</label><input id="domain" name="domain" required maxlength="300" value="${extra.domain ?? ''}" placeholder="e.g. courses.example.com"${
        extra.error && extra.status === 400 ? html` aria-invalid="true"` : ''
      }>
<button type="submit">Add</button></form>
<h2>Portals of ${tenant.name}</h2>
${portals.length ? html`<table><thead><tr><th>Website address</th><th>Added</th><th>By</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="muted">None yet.</p>`}`,
      { status: extra.status ?? 200, nav: nav(ctx, user) },
    );
  }

  router.get(PORTALS, async (ctx) => {
    const user = await admin(ctx);
    if (user) await portalsPage(ctx, user);
  });

  router.post(PORTALS, async (ctx) => {
    const user = await admin(ctx);
    if (!user) return;
    const domain = String((ctx.request.body as Record<string, unknown>).domain ?? '');
    // Checked here first so the message speaks of the field as the page names it (the service's
    // names the API's `domain`).
    if (normaliseDomain(domain).domain === null) return portalsPage(ctx, user, { error: ADDRESS_WANTED, domain, status: 400 });
    try {
      const added = await addPortal(knex, tenantOf(ctx), { domain, createdBy: user.email });
      await portalsPage(ctx, user, { notice: `${added.domain} is a portal of this instance now.` });
    } catch (err) {
      if (!(err instanceof ValidationError || err instanceof ConflictError)) throw err;
      await portalsPage(ctx, user, { error: err.message, domain, status: err instanceof ConflictError ? 409 : 400 });
    }
  });

  router.post(`${PORTALS}/remove`, async (ctx) => {
    const user = await admin(ctx);
    if (!user) return;
    const domain = String((ctx.request.body as Record<string, unknown>).domain ?? '');
    try {
      const removed = await removePortal(knex, domain, { tenantId: tenantOf(ctx).id });
      await portalsPage(ctx, user, {
        notice: `${removed.domain} is removed: its website gets no more portal tokens, and the tokens it has stop working within a minute.`,
      });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await portalsPage(ctx, user, { error: err.message, status: 404 });
    }
  });

  return router;
}
