import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import { addToOutbox } from '../../platform/queues/outbox.js';
import { newSigningSecret } from './webhook-signature.js';
import { decodedId, OBJECT_ID_PREFIX, webhookType, type WebhookType } from './webhook-types.js';
import {
  activeWebhooksOfType,
  countWebhooksForCreate,
  deleteWebhookRow,
  deliveryById,
  insertManualEvent,
  insertWebhook,
  lockDelivery,
  lockWebhook,
  reopenDelivery,
  updateWebhook,
  type DeliveryRow,
  type WebhookRow,
} from './webhooks.data.js';
import { MAX_WEBHOOKS, webhookChange, type WebhookInput } from './webhooks.rules.js';

export type { DeliveryRow, WebhookRow } from './webhooks.data.js';

/**
 * Webhooks: what the Core API's `webhooks { ... }` mutations and the Control Panel write. A
 * change to a record is captured by the tenant's triggers (migration 017), not here; these are
 * the webhooks themselves, and deliveries asked for by hand (a manual type, a test, a resend).
 */

/** Why a stored query cannot be stored (null: it can): checked against the API's schema by its face. */
export type QueryCheck = (query: string) => string | null;

/** Who writes, and how a stored query is checked. */
export interface WebhookWriter {
  tenantId: number;
  /** The user acting (a webhook's owner, whose permissions its stored query runs with). */
  userId: number;
  checkQuery: QueryCheck;
  /** Which path fires a manual event (`graphql`, `control-panel`). */
  context: string;
}

/** Job id of a delivery's job: as the capture trigger writes it; a resend gets one of its own. */
export function deliveryJobId(tenantId: number, deliveryId: number, resends = 0): string {
  return `webhooks-${tenantId}-d${deliveryId}${resends ? `-r${resends}` : ''}`;
}

async function queueDelivery(db: Db, tenantId: number, deliveryId: number, resends = 0): Promise<void> {
  await addToOutbox(db, tenantId, {
    queue: 'webhooks',
    name: 'deliver',
    data: { tenantId, deliveryId },
    jobId: deliveryJobId(tenantId, deliveryId, resends),
  });
}

function queryProblems(check: QueryCheck, query: string | undefined): Problem[] {
  if (query === undefined) return [];
  const why = check(query);
  return why ? [problem('query', query, `query ${why}`)] : [];
}

/**
 * Creates a webhook owned by the writer; answers its signing secret, shown this once. It starts
 * active (a client that activates right after creating changes nothing).
 */
export async function createWebhook(
  db: Db,
  input: WebhookInput,
  writer: WebhookWriter,
): Promise<{ webhook: WebhookRow | null; signingSecret: string | null; problems: Problem[] }> {
  const { columns, type, problems } = webhookChange(input, true);
  problems.push(...queryProblems(writer.checkQuery, columns.query));
  if (problems.length || !type || !columns.name || !columns.url || !columns.query) return { webhook: null, signingSecret: null, problems };
  if ((await countWebhooksForCreate(db)) >= MAX_WEBHOOKS) {
    const message = `An instance has at most ${MAX_WEBHOOKS} webhooks: delete one it no longer needs (webhooks { delete }) first`;
    return { webhook: null, signingSecret: null, problems: [problem('input', null, message)] };
  }
  const signingSecret = newSigningSecret();
  const webhook = await insertWebhook(db, {
    ...columns,
    name: columns.name,
    type_key: type.key,
    url: columns.url,
    query: columns.query,
    owner_user_id: writer.userId,
    signing_secret: signingSecret,
  });
  return { webhook, signingSecret, problems: [] };
}

/**
 * Changes the fields given of a webhook (never its type), or answers why not, writing nothing.
 * Whoever changes what it reads or where it sends (its query or url) becomes its owner: its query
 * then runs with their permissions, so an editor cannot read through another user's webhook what
 * their own role may not.
 */
export async function changeWebhook(
  db: Db,
  id: number,
  input: WebhookInput,
  writer: Pick<WebhookWriter, 'userId' | 'checkQuery'>,
): Promise<{ webhook: WebhookRow | null; problems: Problem[] }> {
  const current = await lockWebhook(db, id);
  if (!current) return { webhook: null, problems: [problem('webhookId', id, 'Webhook not found')] };
  const { columns, problems } = webhookChange(input, false, current);
  problems.push(...queryProblems(writer.checkQuery, columns.query));
  if (problems.length) return { webhook: null, problems };
  if (columns.query !== undefined || columns.url !== undefined) columns.owner_user_id = writer.userId;
  if (!Object.keys(columns).length) return { webhook: current, problems: [] };
  return { webhook: (await updateWebhook(db, id, columns)) ?? null, problems: [] };
}

/**
 * A new signing secret for a webhook, shown this once. The previous one keeps signing too (a
 * second signature) for `overlapMs`, so a receiver can switch over without losing a delivery.
 */
export async function rotateSigningSecret(
  db: Db,
  id: number,
  overlapMs: number,
): Promise<{ webhook: WebhookRow | null; signingSecret: string | null; problems: Problem[] }> {
  const current = await lockWebhook(db, id);
  if (!current) return { webhook: null, signingSecret: null, problems: [problem('webhookId', id, 'Webhook not found')] };
  const signingSecret = newSigningSecret();
  const webhook = await updateWebhook(db, id, {
    signing_secret: signingSecret,
    previous_signing_secret: current.signing_secret,
    previous_secret_expires_at: new Date(Date.now() + overlapMs),
  });
  return { webhook: webhook ?? null, signingSecret, problems: [] };
}

/**
 * Sends a delivery again, as it was (the same `webhook-id`, `is_retry` true): back to pending
 * and queued under a job id of its own. Its webhook must be active.
 */
export async function resendDelivery(
  db: Db,
  tenantId: number,
  deliveryId: number,
): Promise<{ delivery: DeliveryRow | null; problems: Problem[] }> {
  // The webhook first, then the delivery: the order a webhook's deletion takes them in.
  const found = await deliveryById(db, deliveryId);
  const webhook = found && (await lockWebhook(db, found.webhook_id));
  const delivery = webhook && (await lockDelivery(db, deliveryId));
  if (!delivery) return { delivery: null, problems: [problem('deliveryId', deliveryId, 'Delivery not found')] };
  if (webhook?.lifecycle_state !== 'active') {
    return { delivery: null, problems: [problem('deliveryId', deliveryId, 'Its webhook is disabled: enable it before resending')] };
  }
  if (delivery.state === 'pending') return { delivery, problems: [] };
  const reopened = await reopenDelivery(db, deliveryId);
  await queueDelivery(db, tenantId, deliveryId, reopened.resends);
  return { delivery: reopened, problems: [] };
}

/** The record an object id names when it is of `type`'s entity; undefined when it names another. */
export function recordOfType(type: WebhookType, objectId: string): number | undefined {
  const m = /^([A-Za-z]+):(\d{1,10})$/.exec(decodedId(objectId) ?? '');
  if (!m) return undefined;
  const spelled = m[1] === OBJECT_ID_PREFIX[type.entity] || m[1] === type.entity;
  const id = Number(m[2]);
  return spelled && id >= 1 && id <= 2147483647 ? id : undefined;
}

/**
 * Sends a test delivery to one webhook: its stored query run for `objectId` (a record of its
 * type's entity), or, without one, for no record (`$objectid` names record 0, which no query
 * finds: the receiver sees the envelope and an empty payload). Its webhook must be active.
 */
export async function sendTestDelivery(
  db: Db,
  webhookId: number,
  objectId: string | null,
  writer: Pick<WebhookWriter, 'tenantId' | 'userId' | 'context'>,
): Promise<{ delivery: DeliveryRow | null; problems: Problem[] }> {
  const webhook = await lockWebhook(db, webhookId);
  if (!webhook) return { delivery: null, problems: [problem('webhookId', webhookId, 'Webhook not found')] };
  if (webhook.lifecycle_state !== 'active')
    return { delivery: null, problems: [problem('webhookId', webhookId, 'The webhook is disabled')] };
  const type = webhookType(webhook.type_key);
  if (!type) return { delivery: null, problems: [problem('webhookId', webhookId, 'Its webhook type no longer exists')] };
  const recordId = objectId === null ? 0 : recordOfType(type, objectId);
  if (recordId === undefined)
    return { delivery: null, problems: [problem('objectId', objectId, `objectId must be the id of a ${type.entity}`)] };
  const [id] = await insertManualEvent(
    db,
    { type_key: type.key, record_id: recordId, context: writer.context, actor_user_id: writer.userId },
    [webhookId],
  );
  await queueDelivery(db, writer.tenantId, id!);
  const delivery = await lockDelivery(db, id!);
  return { delivery: delivery ?? null, problems: [] };
}

/**
 * Fires a manual webhook type (`manual_event`, `manual_course_template`) for one record: one
 * delivery to each active webhook of the type. Answers how many were queued.
 */
export async function fireManualWebhook(
  db: Db,
  typeId: WebhookType | undefined,
  objectId: string,
  writer: Pick<WebhookWriter, 'tenantId' | 'userId' | 'context'>,
): Promise<{ deliveries: number; problems: Problem[] }> {
  if (!typeId?.manual)
    return { deliveries: 0, problems: [problem('webhookTypeId', typeId?.key ?? null, 'webhookTypeId must name a manual webhook type')] };
  const recordId = recordOfType(typeId, objectId);
  if (recordId === undefined)
    return { deliveries: 0, problems: [problem('objectId', objectId, `objectId must be the id of a ${typeId.entity}`)] };
  const webhooks = await activeWebhooksOfType(db, typeId.key);
  const ids = await insertManualEvent(
    db,
    { type_key: typeId.key, record_id: recordId, context: writer.context, actor_user_id: writer.userId },
    webhooks.map((w) => w.id),
  );
  for (const id of ids) await queueDelivery(db, writer.tenantId, id);
  return { deliveries: ids.length, problems: [] };
}

/**
 * Deletes a webhook, its deliveries (pending ones are not sent: their jobs find nothing) and its
 * notices; or answers that there is none.
 */
export async function deleteWebhook(db: Db, id: number): Promise<{ deleted: boolean; problems: Problem[] }> {
  if (await deleteWebhookRow(db, id)) return { deleted: true, problems: [] };
  return { deleted: false, problems: [problem('webhookId', id, 'Webhook not found')] };
}
