import type { Db, Knex } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { PLATFORM_SCHEMA } from '../../platform/tenancy/tenant.js';
import { activeUserJsonSql, type ActiveUser } from '../users/index.js';

/**
 * Webhooks: the only file that names the `webhooks`, `webhook_events`, `webhook_deliveries` and
 * `webhook_notices` tables (migration 017, whose triggers also write events and deliveries), and
 * `platform.webhook_log_prunes` (platform migration 011).
 * Every function takes the transaction first.
 *
 * @uses users: a delivery's envelope names the user a change acted for (`metadata.user.email`), read with the delivery in one statement, as is the webhook's owner its stored query runs as
 */

export type WebhookState = 'active' | 'disabled';
export type DeliveryState = 'pending' | 'delivered' | 'failed';

export class Webhook extends BaseModel {
  static override tableName = 'webhooks';

  declare id: number;
  declare name: string;
  declare type_key: string;
  declare url: string;
  /** The stored payload query, run with `$objectid` at delivery. */
  declare query: string;
  /** `config` as the client sent it, parsed: the envelope's `configuration`. */
  declare config: Record<string, unknown>;
  declare notification_emails: string[];
  declare lifecycle_state: WebhookState;
  /** Whose permissions the stored query runs with; null once that user is gone. */
  declare owner_user_id: number | null;
  declare signing_secret: string;
  declare previous_signing_secret: string | null;
  declare previous_secret_expires_at: Date | null;
  declare failing_since: Date | null;
  declare disabled_reason: string | null;
  declare created_at: Date;
  declare updated_at: Date;
}

export type WebhookRow = Pick<
  Webhook,
  | 'id'
  | 'name'
  | 'type_key'
  | 'url'
  | 'query'
  | 'config'
  | 'notification_emails'
  | 'lifecycle_state'
  | 'owner_user_id'
  | 'signing_secret'
  | 'previous_signing_secret'
  | 'previous_secret_expires_at'
  | 'failing_since'
  | 'disabled_reason'
  | 'created_at'
  | 'updated_at'
>;

/** The columns a write sets. */
export type WebhookColumns = Partial<Omit<WebhookRow, 'id' | 'created_at' | 'updated_at'>>;

export class WebhookEvent extends BaseModel {
  static override tableName = 'webhook_events';

  declare id: number;
  declare type_key: string;
  declare record_id: number;
  declare txid: string;
  /** The record's last state, for a deletion. */
  declare snapshot: Record<string, unknown> | null;
  declare context: string | null;
  declare actor_user_id: number | null;
  declare triggered_at: Date;
}

export class WebhookDelivery extends BaseModel {
  static override tableName = 'webhook_deliveries';

  declare id: number;
  declare webhook_id: number;
  declare event_id: number;
  declare state: DeliveryState;
  declare attempts: number;
  declare status_code: number | null;
  declare duration_ms: number | null;
  declare response_excerpt: string | null;
  declare error: string | null;
  declare next_attempt_at: Date | null;
  declare last_attempt_at: Date | null;
  declare delivered_at: Date | null;
  declare resends: number;
  declare created_at: Date;
}

export type DeliveryRow = Pick<
  WebhookDelivery,
  | 'id'
  | 'webhook_id'
  | 'event_id'
  | 'state'
  | 'attempts'
  | 'status_code'
  | 'duration_ms'
  | 'response_excerpt'
  | 'error'
  | 'next_attempt_at'
  | 'last_attempt_at'
  | 'delivered_at'
  | 'resends'
  | 'created_at'
>;

export class WebhookNotice extends BaseModel {
  static override tableName = 'webhook_notices';

  declare id: number;
  declare webhook_id: number | null;
  declare subject: string;
  declare body: string;
  declare recipients: string[];
  declare mailed: boolean;
  declare created_at: Date;
}

export type NoticeRow = Pick<WebhookNotice, 'id' | 'webhook_id' | 'subject' | 'body' | 'recipients' | 'mailed' | 'created_at'>;

const WEBHOOKS = Webhook.tableName;
const EVENTS = WebhookEvent.tableName;
const DELIVERIES = WebhookDelivery.tableName;
const NOTICES = WebhookNotice.tableName;

/** `config` and the addresses as PostgreSQL takes them (jsonb, text[]). */
function toColumns(columns: WebhookColumns): Record<string, unknown> {
  const out: Record<string, unknown> = { ...columns };
  if (columns.config !== undefined) out.config = JSON.stringify(columns.config);
  return out;
}

/** Inserts a webhook. */
export async function insertWebhook(
  db: Db,
  columns: WebhookColumns & Pick<WebhookRow, 'name' | 'type_key' | 'url' | 'query' | 'signing_secret'>,
): Promise<WebhookRow> {
  const [row] = (await db(WEBHOOKS).insert(toColumns(columns)).returning('*')) as WebhookRow[];
  return row!;
}

/** Changes the columns given; undefined when there is no such webhook. */
export async function updateWebhook(db: Db, id: number, columns: WebhookColumns): Promise<WebhookRow | undefined> {
  const [row] = (await db(WEBHOOKS)
    .where({ id })
    .update({ ...toColumns(columns), updated_at: db.fn.now() })
    .returning('*')) as WebhookRow[];
  return row;
}

/**
 * How many webhooks the tenant has, counted under a lock that makes concurrent creations take
 * turns (a transaction-scoped advisory lock on the table's name), so a limit checked with it holds.
 */
export async function countWebhooksForCreate(db: Db): Promise<number> {
  await db.raw(`select pg_advisory_xact_lock(hashtext(current_schema() || '.webhooks'))`);
  const [row] = await db(WEBHOOKS).count<{ count: string }[]>('* as count');
  return Number(row?.count ?? 0);
}

/** Deletes a webhook with its deliveries and notices; false when there was none. */
export async function deleteWebhookRow(db: Db, id: number): Promise<boolean> {
  return (await db(WEBHOOKS).where({ id }).delete()) > 0;
}

/**
 * One webhook, locked for a write: FOR NO KEY UPDATE, which the capture of a change (its
 * deliveries' foreign key takes KEY SHARE) does not wait for.
 */
export function lockWebhook(db: Db, id: number): Promise<WebhookRow | undefined> {
  return db(WEBHOOKS).where({ id }).forNoKeyUpdate().first<WebhookRow | undefined>();
}

/** Webhooks by id (a page's batch). */
export function webhooksByIds(db: Db, ids: readonly number[]): Promise<WebhookRow[]> {
  return db(WEBHOOKS).whereIn('id', ids as number[]);
}

/** A page of the tenant's webhooks by id, and how many there are (the Control Panel's list). */
export async function webhookPage(db: Db, page: { first: number; offset: number }): Promise<{ rows: WebhookRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    db(WEBHOOKS).orderBy('id').limit(page.first).offset(page.offset) as Promise<WebhookRow[]>,
    db(WEBHOOKS).count<{ count: string }[]>('* as count'),
  ]);
  return { rows, total: Number(count?.count ?? 0) };
}

/** The active webhooks of a type (a manual firing, a test). */
export function activeWebhooksOfType(db: Db, typeKey: string): Promise<WebhookRow[]> {
  return db(WEBHOOKS).where({ type_key: typeKey, lifecycle_state: 'active' }).orderBy('id');
}

/**
 * Records an event fired by hand (a manual type, a test) and one pending delivery for each
 * webhook given; answers the deliveries' ids. Changes are recorded by the triggers of migration
 * 017 instead.
 */
export async function insertManualEvent(
  db: Db,
  event: { type_key: string; record_id: number; context: string; actor_user_id: number | null },
  webhookIds: readonly number[],
): Promise<number[]> {
  const [row] = (await db(EVENTS)
    .insert({ ...event, txid: db.raw('txid_current()') })
    // A second firing of one record in one transaction is the same event.
    .onConflict(['txid', 'type_key', 'record_id'])
    .merge({ triggered_at: db.raw('excluded.triggered_at') })
    .returning('id')) as { id: number }[];
  if (!webhookIds.length) return [];
  // Fired again in the same transaction: the same event, and no second delivery of it.
  const rows = (await db(DELIVERIES)
    .insert(webhookIds.map((webhook_id) => ({ webhook_id, event_id: row!.id })))
    .onConflict(['webhook_id', 'event_id'])
    .ignore()
    .returning('id')) as { id: string | number }[];
  return rows.map((r) => Number(r.id));
}

/** What one delivery attempt needs: the delivery, its webhook and its event. */
export interface DeliveryWork {
  delivery: DeliveryRow;
  webhook: WebhookRow;
  event: { id: number; type_key: string; record_id: number; snapshot: Record<string, unknown> | null; context: string | null };
  /** `triggered_at` with its microseconds, ISO (the envelope's). */
  triggeredAt: string;
  /** The acting user's e-mail address (null when none, or gone). */
  actorEmail: string | null;
  /** The webhook's owner as the stored query runs: null when there is none or they are not active. */
  owner: Omit<ActiveUser, 'password_hash'> | null;
}

const MICROS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** The delivery with its webhook and event; undefined when it is gone (pruned, its webhook removed). */
export async function deliveryWork(db: Db, deliveryId: number): Promise<DeliveryWork | undefined> {
  const row = (await db(`${DELIVERIES} as d`)
    .join(`${EVENTS} as e`, 'e.id', 'd.event_id')
    .join(`${WEBHOOKS} as w`, 'w.id', 'd.webhook_id')
    .where('d.id', deliveryId)
    .first(
      db.raw('to_jsonb(d) as delivery'),
      db.raw('to_jsonb(w) as webhook'),
      'e.id as event_id',
      'e.type_key',
      'e.record_id',
      'e.snapshot',
      'e.context',
      db.raw(`to_char(e.triggered_at at time zone 'UTC', ${MICROS}) as triggered_at`),
      db.raw('(select u.email from users u where u.id = e.actor_user_id) as actor_email'),
      db.raw(`${activeUserJsonSql('w.owner_user_id')} as owner`),
    )) as
    | {
        delivery: DeliveryRow;
        webhook: WebhookRow;
        event_id: string | number;
        type_key: string;
        record_id: number;
        snapshot: Record<string, unknown> | null;
        context: string | null;
        triggered_at: string;
        actor_email: string | null;
        owner: Omit<ActiveUser, 'password_hash'> | null;
      }
    | undefined;
  if (!row) return undefined;
  const dates = <T extends object>(o: T, keys: (keyof T)[]): T => {
    for (const k of keys) if (o[k] !== null && o[k] !== undefined) (o as Record<keyof T, unknown>)[k] = new Date(o[k] as string);
    return o;
  };
  return {
    delivery: dates(row.delivery, ['next_attempt_at', 'last_attempt_at', 'delivered_at', 'created_at']),
    webhook: dates(row.webhook, ['previous_secret_expires_at', 'failing_since', 'created_at', 'updated_at']),
    event: { id: Number(row.event_id), type_key: row.type_key, record_id: row.record_id, snapshot: row.snapshot, context: row.context },
    triggeredAt: row.triggered_at,
    actorEmail: row.actor_email,
    owner: row.owner,
  };
}

/** The outcome of one attempt, as it is recorded. */
export interface AttemptRecord {
  state: DeliveryState;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
  next_attempt_at: Date | null;
}

/** Records an attempt of a pending delivery; false when it was no longer pending (another attempt settled it). */
export async function recordAttempt(db: Db, deliveryId: number, attempt: AttemptRecord): Promise<boolean> {
  const n = await db(DELIVERIES)
    .where({ id: deliveryId, state: 'pending' })
    .update({
      ...attempt,
      attempts: db.raw('attempts + 1'),
      last_attempt_at: db.fn.now(),
      delivered_at: attempt.state === 'delivered' ? db.fn.now() : null,
    });
  return n > 0;
}

/**
 * Records a successful attempt of a pending delivery and runs `settle` (the job's outbox settle,
 * not yet run) in the same statement: one round trip and one commit. False when the delivery was
 * no longer pending (the settle runs either way: the job is done).
 */
export async function recordDelivered(
  db: Db,
  deliveryId: number,
  attempt: Omit<AttemptRecord, 'state' | 'error' | 'next_attempt_at'>,
  settle: Knex.QueryBuilder,
): Promise<boolean> {
  const n = await db
    .with('settled', settle)
    .table(DELIVERIES)
    .where({ id: deliveryId, state: 'pending' })
    .update({
      ...attempt,
      state: 'delivered',
      error: null,
      next_attempt_at: null,
      attempts: db.raw('attempts + 1'),
      last_attempt_at: db.fn.now(),
      delivered_at: db.fn.now(),
    });
  return n > 0;
}

/** Marks a pending delivery failed without an attempt (its webhook disabled, its owner gone). */
export async function failDelivery(db: Db, deliveryId: number, error: string): Promise<boolean> {
  const n = await db(DELIVERIES).where({ id: deliveryId, state: 'pending' }).update({ state: 'failed', error, next_attempt_at: null });
  return n > 0;
}

/** Whether the delivery still waits for an attempt (the reconciler's question). */
export async function deliveryPending(db: Db, deliveryId: number): Promise<boolean> {
  const row = await db(DELIVERIES).where({ id: deliveryId }).first<{ state: DeliveryState } | undefined>('state');
  return row?.state === 'pending';
}

/** A delivery as it is (no lock). */
export function deliveryById(db: Db, id: number): Promise<DeliveryRow | undefined> {
  return db(DELIVERIES).where({ id }).first<DeliveryRow | undefined>();
}

/** A delivery, locked for a resend; undefined when there is none of this webhook. */
export function lockDelivery(db: Db, id: number): Promise<DeliveryRow | undefined> {
  return db(DELIVERIES).where({ id }).forUpdate().first<DeliveryRow | undefined>();
}

/** Puts a delivery back to pending for a resend: a new job id (`resends`), the attempts it had kept. */
export async function reopenDelivery(db: Db, id: number): Promise<DeliveryRow> {
  const [row] = (await db(DELIVERIES)
    .where({ id })
    .update({ state: 'pending', next_attempt_at: null, resends: db.raw('resends + 1') })
    .returning('*')) as DeliveryRow[];
  return row!;
}

/** A page of a webhook's deliveries, newest first, and how many there are. */
export async function deliveriesOfWebhook(
  db: Db,
  webhookId: number,
  page: { first: number; offset: number; state?: DeliveryState | undefined },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const base = () => {
    const q = db(DELIVERIES).where({ webhook_id: webhookId });
    if (page.state) q.where({ state: page.state });
    return q;
  };
  const [rows, [count]] = await Promise.all([
    base().orderBy('id', 'desc').limit(page.first).offset(page.offset) as Promise<DeliveryRow[]>,
    base().count<{ count: string }[]>('* as count'),
  ]);
  return { rows: rows.map((r) => ({ ...r, id: Number(r.id), event_id: Number(r.event_id) })), total: Number(count?.count ?? 0) };
}

/** The event a delivery is about: its type and record. */
export function eventsByIds(
  db: Db,
  ids: readonly number[],
): Promise<{ id: number; type_key: string; record_id: number; triggered_at: Date }[]> {
  return db(EVENTS)
    .whereIn('id', ids as number[])
    .select('id', 'type_key', 'record_id', 'triggered_at');
}

/**
 * Marks the webhook failing since now (unless it already was); clears it when `failing` is false.
 * Answers since when it has been failing (null: it is not).
 */
export async function markFailing(db: Db, webhookId: number, failing: boolean): Promise<Date | null> {
  if (!failing) {
    await db(WEBHOOKS).where({ id: webhookId }).whereNotNull('failing_since').update({ failing_since: null });
    return null;
  }
  const [row] = (await db(WEBHOOKS)
    .where({ id: webhookId })
    .update({ failing_since: db.raw('coalesce(failing_since, now())') })
    .returning('failing_since')) as { failing_since: Date | null }[];
  return row?.failing_since ?? null;
}

/** Disables an active webhook, saying why; false when it was not active. */
export async function disableWebhook(db: Db, webhookId: number, reason: string): Promise<boolean> {
  const n = await db(WEBHOOKS)
    .where({ id: webhookId, lifecycle_state: 'active' })
    .update({ lifecycle_state: 'disabled', disabled_reason: reason, updated_at: db.fn.now() });
  return n > 0;
}

/** Records a notice (mailed or not). */
export async function insertNotice(db: Db, notice: Omit<NoticeRow, 'id' | 'created_at' | 'mailed'>): Promise<number> {
  const [row] = (await db(NOTICES).insert(notice).returning('id')) as { id: number }[];
  return row!.id;
}

/** Whether the webhook had a notice within the last `ms` (mailed or not). */
export async function noticedWithin(db: Db, webhookId: number, ms: number): Promise<boolean> {
  const row = await db(NOTICES)
    .where({ webhook_id: webhookId })
    .where('created_at', '>', db.raw('now() - make_interval(secs => ?)', [ms / 1000]))
    .first('id');
  return row !== undefined;
}

/** Marks a notice mailed. */
export async function markNoticeMailed(db: Db, id: number): Promise<void> {
  await db(NOTICES).where({ id }).update({ mailed: true });
}

/** The latest notices (of one webhook, or all), newest first. */
export function latestNotices(db: Db, limit: number, webhookId?: number): Promise<NoticeRow[]> {
  const q = db(NOTICES).orderBy('id', 'desc').limit(limit);
  if (webhookId !== undefined) q.where({ webhook_id: webhookId });
  return q;
}

/**
 * Deletes deliveries delivered more than `days` ago, and events left with no delivery. Bounded
 * per call (`limit` deliveries) so a tenant's first prune after a long time does not hold a long
 * transaction; answers how many deliveries went.
 */
export async function pruneDelivered(db: Db, days: number, limit = 5000): Promise<number> {
  const gone = (await db(DELIVERIES)
    .whereIn(
      'id',
      db(DELIVERIES)
        .select('id')
        .where({ state: 'delivered' })
        .where('delivered_at', '<', db.raw('now() - make_interval(days => ?)', [days]))
        .limit(limit),
    )
    .delete()
    .returning('event_id')) as { event_id: string | number }[];
  if (gone.length) {
    const events = [...new Set(gone.map((g) => Number(g.event_id)))];
    await db(EVENTS)
      .whereIn('id', events)
      .whereNotExists(db(DELIVERIES).select(db.raw('1')).whereRaw(`${DELIVERIES}.event_id = ${EVENTS}.id`))
      .delete();
  }
  return gone.length;
}

/** Each tenant's oldest delivered delivery, or a time no older than it (platform migration 011). */
export class WebhookLogPrune extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.webhook_log_prunes`;
  static override idColumn = 'tenant_id';

  declare tenant_id: number;
  declare oldest_delivered_at: Date;
}
const LOG_PRUNES = WebhookLogPrune.tableName;

/**
 * Records the tenant's oldest delivered delivery left (after a prune, in its transaction); now
 * when none is left: anything delivered later is no older. The row is never removed while the
 * tenant exists, so a tenant that received deliveries is always found by the sweep.
 */
export async function recordOldestDelivered(db: Db, tenantId: number): Promise<void> {
  const oldest = db.raw(`coalesce((select min(delivered_at) from ?? where state = 'delivered'), now())`, [DELIVERIES]);
  await db(LOG_PRUNES).insert({ tenant_id: tenantId, oldest_delivered_at: oldest }).onConflict('tenant_id').merge();
}

/**
 * Claims up to `limit` tenants whose oldest delivered delivery is more than `days` old, the
 * longest due first: each is put back as due again in `retryMinutes` (its prune, once done,
 * records its real oldest). Rows another worker is claiming are skipped, and a claimed row is no
 * longer due, so workers sweeping at once share the work.
 */
export async function claimDueLogPrunes(db: Db, days: number, limit: number, retryMinutes = 10): Promise<number[]> {
  const rows = (await db(LOG_PRUNES)
    .whereIn(
      'tenant_id',
      db(LOG_PRUNES)
        .select('tenant_id')
        .where('oldest_delivered_at', '<', db.raw('now() - make_interval(days => ?)', [days]))
        .orderBy('oldest_delivered_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .update({ oldest_delivered_at: db.raw('now() - make_interval(days => ?, mins => ?)', [days, -retryMinutes]) })
    .returning('tenant_id')) as { tenant_id: number }[];
  return rows.map((r) => r.tenant_id);
}

/** The table a webhook entity's rows live in (for a deleted record's last state). */
const ENTITY_TABLES: Readonly<Record<string, string>> = {
  Event: 'events',
  CourseTemplate: 'course_templates',
  LearningPath: 'learning_paths',
  Document: 'documents',
  Learner: 'delegates',
  Opportunity: 'opportunities',
  Invoice: 'invoices',
  Session: 'sessions',
};

/**
 * A deleted record's last state as a row of its table, typed as a read of the table types it
 * (dates, numbers): what the entity's GraphQL type resolves. Undefined for an entity with no table here.
 */
export async function snapshotRow(db: Db, entity: string, snapshot: Record<string, unknown>): Promise<object | undefined> {
  const table = ENTITY_TABLES[entity];
  if (!table) return undefined;
  const { rows } = (await db.raw(`select * from jsonb_populate_record(null::??, ?::jsonb)`, [table, JSON.stringify(snapshot)])) as {
    rows: object[];
  };
  return rows[0];
}
