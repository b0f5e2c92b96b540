import Router from '@koa/router';
import type { Knex } from '../../platform/db/knex.js';
import { tenantOf, type AppContext, type AppState } from '../../kit/http/context.js';
import { csrfField, html, sendPage, type Html, controlPanelNav } from '../../kit/http/pages.js';
import { withRequestDb } from '../../kit/http/request-db.js';
import { sessionOf } from '../../kit/http/session.js';
import { AppError, NotFoundError } from '../../platform/errors.js';
import { hasPermission } from '../../platform/permissions.js';
import type { Problem } from '../../platform/problems.js';
import type { PlatformRuntime } from '../../platform/runtime.js';
import { activeUserWithPermissions } from '../users/index.js';
import { objectIdOf, webhookType, type WebhookEntity } from './webhook-types.js';
import {
  deliveriesOfWebhook,
  eventsByIds,
  latestNotices,
  webhookPage,
  webhooksByIds,
  type DeliveryRow,
  type NoticeRow,
} from './webhooks.data.js';
import { changeWebhook, fireManualWebhook, resendDelivery, sendTestDelivery } from './webhooks.service.js';

/**
 * Control Panel, section Webhooks, on a tenant's host: the instance's webhooks with the latest
 * notices (the only place notices go when no SMTP_URL is set), and one webhook's deliveries with
 * "Resend", "Send test" and "Disable"/"Enable"; a manual type's webhook also has "Fire" for one
 * record (as `webhooks { trigger }`: every active webhook of the type is told). The same permissions as the Core API's webhooks:
 * WEBHOOKS_VIEW to look, WEBHOOKS_EDIT to act. Sign-in, sessions and CSRF are the Control Panel's
 * (`/control-panel/login`, control-panel.routes.ts). Each request's database work is one
 * request db (withRequestDb): a read for a GET; for a POST one transaction, recorded as the
 * Control Panel acting for the signed-in user, so a refusal thrown after a write undoes it.
 */

export const WEBHOOKS_VIEW = 'WEBHOOKS_VIEW';
export const WEBHOOKS_EDIT = 'WEBHOOKS_EDIT';
const SECTION = '/control-panel/webhooks';
const WEBHOOKS_PAGE = 100;
const DELIVERIES_PAGE = 50;
const NOTICES_SHOWN = 20;
const NOTICES_OF_ONE = 10;
/** Past this an offset only makes PostgreSQL skip rows for nothing. */
const MAX_OFFSET = 1_000_000;
const MAX_ID = 2_147_483_647;

interface PageUser {
  id: number;
  email: string;
  permissions: string[];
}

type Rt = Pick<PlatformRuntime, 'knex' | 'gate' | 'config' | 'dispatcher'>;

const when = (d: Date | string | null | undefined): Html | string =>
  d ? html`<time datetime="${new Date(d).toISOString()}">${new Date(d).toISOString().slice(0, 19).replace('T', ' ')} UTC</time>` : '';
const typeName = (key: string) => webhookType(key)?.name ?? key;

/** `?offset=`: a whole number from 0 (absent: 0); anything else is refused rather than guessed. */
function offsetOf(ctx: AppContext): number {
  const raw = ctx.query.offset;
  if (raw === undefined || raw === '') return 0;
  if (typeof raw !== 'string' || !/^\d{1,7}$/.test(raw) || Number(raw) > MAX_OFFSET)
    throw new AppError(400, 'invalid_offset', `offset must be a whole number from 0 to ${MAX_OFFSET}`);
  return Number(raw);
}

/** A record id from the path or a form; a value no row can have is simply not found. */
function idOf(raw: unknown, what: string): number {
  const id = typeof raw === 'string' && /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(id <= MAX_ID)) throw new NotFoundError(`No such ${what}`, `${what}_not_found`);
  return id;
}

/** "Newer" / "Older" links of a paged list, when there is more on either side. */
function pager(path: string, offset: number, size: number, shown: number, total: number, what: string): Html {
  if (total <= size && offset === 0) return html``;
  const newer = offset > 0 ? html`<a href="${path}${offset - size > 0 ? `?offset=${offset - size}` : ''}">Newer</a>` : '';
  const older = offset + shown < total ? html`<a href="${path}?offset=${offset + size}">Older</a>` : '';
  const range = shown ? `${offset + 1}–${offset + shown}` : 'none';
  return html`<p class="muted">${what} ${range} of ${total}. ${newer} ${older}</p>`;
}

function noticesTable(notices: NoticeRow[]): Html {
  if (!notices.length) return html`<p class="muted">None.</p>`;
  return html`<table><thead><tr><th>When</th><th>Notice</th><th>Mailed</th></tr></thead><tbody>
${notices.map(
  (
    n,
  ) => html`<tr><td>${when(n.created_at)}</td><td><strong>${n.subject}</strong><pre style="white-space:pre-wrap;margin:.3rem 0 0">${n.body}</pre>
${n.recipients.length ? html`<span class="muted">To ${n.recipients.join(', ')}</span>` : html`<span class="muted">No notification address.</span>`}</td>
<td>${n.mailed ? 'Mailed' : 'Not mailed'}</td></tr>`,
)}</tbody></table>`;
}

/** The record a manual type is fired for, as the Control Panel names it: its number. */
const RECORD_WORDS: Partial<Record<WebhookEntity, string>> = { Event: 'event', CourseTemplate: 'course template' };

/** "Fire" on a manual type's webhook: the number of one record, then every active webhook of the type is told of it. */
function fireForm(ctx: AppContext, path: string, entity: WebhookEntity): Html {
  const what = RECORD_WORDS[entity] ?? entity;
  return html`<form method="post" action="${path}/fire" class="inline">${csrfField(ctx)}
<label>Fire for the ${what} number <input name="record" inputmode="numeric" pattern="[0-9]*" required size="8"></label>
<button type="submit">Fire</button></form>
<p class="muted">Tells every active webhook of this manual type about that ${what}, as <code>webhooks { trigger }</code> does.</p>`;
}

export function webhooksControlPanelRoutes(rt: Rt): Router<AppState> {
  const router = new Router<AppState>();

  /**
   * Runs a page's database work for the signed-in user of this tenant (re-read in the request's
   * db: still active, current role) when the role has `permission`; signed out or gone: to
   * sign-in, coming back to `back`; without the permission: 403, as the other sections refuse.
   */
  async function asUser(
    ctx: AppContext,
    permission: string,
    back: string,
    work: (db: Knex, user: PageUser) => Promise<void>,
  ): Promise<void> {
    const tenant = tenantOf(ctx);
    const s = sessionOf(ctx).user;
    const toSignIn = () => ctx.redirect(`/control-panel/login?next=${encodeURIComponent(back)}`);
    if (s?.tenantId !== tenant.id) return toSignIn();
    const writes = ctx.method === 'POST';
    await withRequestDb(
      rt,
      tenant,
      'api',
      async (db) => {
        const found = await activeUserWithPermissions(db, { id: s.userId });
        if (!found) return toSignIn();
        if (!hasPermission(found.permissions, permission)) {
          throw new AppError(
            403,
            'permission_denied',
            `Your role does not have the ${permission} permission: ask an administrator of this instance.`,
          );
        }
        await work(db, { id: found.id, email: found.email, permissions: found.permissions });
      },
      writes ? { via: { context: 'control-panel', actorUserId: s.userId } } : { readOnly: true },
    );
  }

  const nav = controlPanelNav;

  const messages = (extra: { notice?: string; error?: string }) =>
    html`${extra.notice ? html`<p class="notice" role="status">${extra.notice}</p>` : ''}${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}`;

  async function listPage(ctx: AppContext, db: Knex, user: PageUser) {
    const offset = offsetOf(ctx);
    const [page, notices] = await Promise.all([webhookPage(db, { first: WEBHOOKS_PAGE, offset }), latestNotices(db, NOTICES_SHOWN)]);
    const rows = page.rows.map(
      (w) => html`<tr><td><a href="${SECTION}/${w.id}">${w.name}</a></td><td>${typeName(w.type_key)}</td><td><code>${w.url}</code></td>
<td>${w.lifecycle_state}${w.disabled_reason ? html`<br><span class="muted">${w.disabled_reason}</span>` : ''}</td><td>${when(w.failing_since)}</td></tr>`,
    );
    sendPage(
      ctx,
      'Webhooks',
      html`<p>A webhook POSTs what its stored query answers to its address whenever a change of its type is committed.
Register them with the Core API (<code>webhooks { create }</code>); here you see their deliveries, resend one, send a test, or disable one.</p>
<h2>Webhooks of ${tenantOf(ctx).name}</h2>
${
  page.total
    ? html`<table><thead><tr><th>Name</th><th>Type</th><th>Address</th><th>State</th><th>Failing since</th></tr></thead><tbody>${rows}</tbody></table>
${pager(SECTION, offset, WEBHOOKS_PAGE, page.rows.length, page.total, 'Webhooks')}`
    : html`<p class="muted">None yet.</p>`
}
<h2>Latest notices</h2>
<p class="muted">Failure and disabling notices, also mailed to a webhook's notification addresses when mail is set up (SMTP_URL).</p>
${noticesTable(notices)}`,
      { nav: nav(ctx, user) },
    );
  }

  async function detailPage(
    ctx: AppContext,
    db: Knex,
    user: PageUser,
    id: number,
    extra: { notice?: string; error?: string; status?: number; offset?: number } = {},
  ) {
    const [webhook] = await webhooksByIds(db, [id]);
    if (!webhook) throw new NotFoundError('No such webhook', 'webhook_not_found');
    const offset = extra.offset ?? offsetOf(ctx);
    const [page, notices] = await Promise.all([
      deliveriesOfWebhook(db, id, { first: DELIVERIES_PAGE, offset }),
      latestNotices(db, NOTICES_OF_ONE, id),
    ]);
    const events = new Map(
      (page.rows.length ? await eventsByIds(db, [...new Set(page.rows.map((d) => d.event_id))]) : []).map((e) => [Number(e.id), e]),
    );
    const path = `${SECTION}/${id}`;
    const canEdit = hasPermission(user.permissions, WEBHOOKS_EDIT);
    const active = webhook.lifecycle_state === 'active';
    const manual = webhookType(webhook.type_key)?.manual ? webhookType(webhook.type_key) : undefined;
    const button = (action: string, label: string, cls = '', hidden: Html | string = '') =>
      html`<form method="post" action="${path}/${action}" class="inline">${csrfField(ctx)}${hidden}<button type="submit"${cls ? html` class="${cls}"` : ''}>${label}</button></form>`;
    const row = (d: DeliveryRow) => {
      const event = events.get(d.event_id);
      return html`<tr><td>#${d.id}<br>${when(d.created_at)}${event ? html`<br><span class="muted">${typeName(event.type_key)}, ${event.record_id === 0 ? 'a test (no record)' : `record ${event.record_id}`}</span>` : ''}</td>
<td>${d.state}<br><span class="muted">${d.attempts} attempt${d.attempts === 1 ? '' : 's'}</span>${d.next_attempt_at ? html`<br>next ${when(d.next_attempt_at)}` : ''}</td>
<td>${d.status_code ?? ''}${d.duration_ms !== null ? html`<br><span class="muted">${d.duration_ms} ms</span>` : ''}</td>
<td>${d.error ?? ''}${d.response_excerpt ? html`<details><summary>Response</summary><pre style="white-space:pre-wrap">${d.response_excerpt}</pre></details>` : ''}</td>
<td>${canEdit && d.state !== 'pending' ? button('resend', 'Resend', 'secondary', html`<input type="hidden" name="delivery" value="${d.id}">`) : ''}</td></tr>`;
    };
    sendPage(
      ctx,
      `Webhook ${webhook.name}`,
      html`<p><a href="${SECTION}">All webhooks</a></p>${messages(extra)}
<table><tbody>
<tr><th>Type</th><td>${typeName(webhook.type_key)}</td></tr>
<tr><th>Address</th><td><code>${webhook.url}</code></td></tr>
<tr><th>State</th><td>${webhook.lifecycle_state}${webhook.disabled_reason ? html` (${webhook.disabled_reason})` : ''}</td></tr>
<tr><th>Failing since</th><td>${webhook.failing_since ? when(webhook.failing_since) : html`<span class="muted">not failing</span>`}</td></tr>
<tr><th>Notices to</th><td>${webhook.notification_emails.join(', ') || html`<span class="muted">nobody</span>`}</td></tr>
</tbody></table>
${
  canEdit
    ? html`<p>${active ? button('test', 'Send test') : ''} ${active ? button('disable', 'Disable', 'danger') : button('enable', 'Enable')}</p>`
    : ''
}
${canEdit && active && manual ? fireForm(ctx, path, manual.entity) : ''}
<h2>Deliveries</h2>
${
  page.total
    ? html`<table><thead><tr><th>Delivery</th><th>State</th><th>Answer</th><th>Error</th><th></th></tr></thead><tbody>${page.rows.map(row)}</tbody></table>`
    : html`<p class="muted">None yet.</p>`
}
${pager(path, offset, DELIVERIES_PAGE, page.rows.length, page.total, 'Deliveries')}
<h2>Notices</h2>
${noticesTable(notices)}`,
      { status: extra.status ?? 200, nav: nav(ctx, user) },
    );
  }

  /** The page after an action: the webhook's, with what happened or why nothing did (the service's words). */
  async function afterAction(ctx: AppContext, db: Knex, user: PageUser, id: number, problems: Problem[], notice: string) {
    const problem = problems[0];
    // The services say "not found" for a webhook or delivery that is not there; anything else is a refusal of its state.
    if (problem && /not found/i.test(problem.message)) throw new NotFoundError(problem.message, 'not_found');
    await detailPage(ctx, db, user, id, problem ? { error: problem.message, status: 409, offset: 0 } : { notice, offset: 0 });
  }

  const webhookIdOf = (ctx: AppContext) => idOf((ctx as unknown as { params: { id: string } }).params.id, 'webhook');
  const bodyOf = (ctx: AppContext) => (ctx.request.body ?? {}) as Record<string, unknown>;

  router.get(SECTION, (ctx) => asUser(ctx, WEBHOOKS_VIEW, SECTION, (db, user) => listPage(ctx, db, user)));

  router.get(`${SECTION}/:id`, async (ctx) => {
    const id = webhookIdOf(ctx);
    await asUser(ctx, WEBHOOKS_VIEW, `${SECTION}/${id}`, (db, user) => detailPage(ctx, db, user, id));
  });

  router.post(`${SECTION}/:id/resend`, async (ctx) => {
    const id = webhookIdOf(ctx);
    await asUser(ctx, WEBHOOKS_EDIT, `${SECTION}/${id}`, async (db, user) => {
      const deliveryId = idOf(bodyOf(ctx).delivery, 'delivery');
      const { delivery, problems } = await resendDelivery(db, tenantOf(ctx).id, deliveryId);
      // A delivery of another webhook is not resent from this one's page (thrown: the transaction undoes it).
      if (delivery && delivery.webhook_id !== id) throw new NotFoundError('No such delivery of this webhook', 'delivery_not_found');
      await afterAction(ctx, db, user, id, problems, `Delivery #${deliveryId} is queued to be sent again.`);
    });
  });

  router.post(`${SECTION}/:id/test`, async (ctx) => {
    const id = webhookIdOf(ctx);
    await asUser(ctx, WEBHOOKS_EDIT, `${SECTION}/${id}`, async (db, user) => {
      const { delivery, problems } = await sendTestDelivery(db, id, null, {
        tenantId: tenantOf(ctx).id,
        userId: user.id,
        context: 'control-panel',
      });
      await afterAction(ctx, db, user, id, problems, `A test delivery (#${delivery?.id ?? ''}) is queued.`);
    });
  });

  router.post(`${SECTION}/:id/fire`, async (ctx) => {
    const id = webhookIdOf(ctx);
    await asUser(ctx, WEBHOOKS_EDIT, `${SECTION}/${id}`, async (db, user) => {
      const [webhook] = await webhooksByIds(db, [id]);
      if (!webhook) throw new NotFoundError('No such webhook', 'webhook_not_found');
      const type = webhookType(webhook.type_key);
      const raw = bodyOf(ctx).record;
      const recordId = typeof raw === 'string' && /^\s*[1-9]\d{0,9}\s*$/.test(raw) ? Number(raw) : NaN;
      if (webhook.lifecycle_state !== 'active') {
        return detailPage(ctx, db, user, id, { error: 'The webhook is disabled: enable it before firing it.', status: 409, offset: 0 });
      }
      if (!type?.manual) {
        return detailPage(ctx, db, user, id, { error: 'Only a manual webhook type is fired by hand.', status: 409, offset: 0 });
      }
      if (!(recordId <= MAX_ID)) {
        return detailPage(ctx, db, user, id, {
          error: `Give the number of the ${RECORD_WORDS[type.entity] ?? type.entity}: a whole number from 1.`,
          status: 400,
          offset: 0,
        });
      }
      const { deliveries, problems } = await fireManualWebhook(db, type, objectIdOf(type.entity, recordId), {
        tenantId: tenantOf(ctx).id,
        userId: user.id,
        context: 'control-panel',
      });
      await afterAction(
        ctx,
        db,
        user,
        id,
        problems,
        `${type.name} fired for ${RECORD_WORDS[type.entity] ?? type.entity} ${recordId}: ${deliveries} deliver${deliveries === 1 ? 'y' : 'ies'} queued.`,
      );
    });
  });

  for (const [action, lifecycleState, notice] of [
    ['disable', 'disabled', 'The webhook is disabled: nothing more is sent to it until it is enabled.'],
    ['enable', 'active', 'The webhook is enabled: changes from now on are sent to it.'],
  ] as const) {
    router.post(`${SECTION}/:id/${action}`, async (ctx) => {
      const id = webhookIdOf(ctx);
      await asUser(ctx, WEBHOOKS_EDIT, `${SECTION}/${id}`, async (db, user) => {
        // The stored query is not changed here, so there is nothing for the query check to look at.
        const { problems } = await changeWebhook(db, id, { lifecycleState }, { userId: user.id, checkQuery: () => null });
        await afterAction(ctx, db, user, id, problems, notice);
      });
    });
  }

  return router;
}
