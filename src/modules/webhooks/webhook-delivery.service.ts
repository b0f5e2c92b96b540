import type { Knex } from '../../platform/db/knex.js';
import type { Logger } from '../../platform/logger.js';
import type { Mailer } from '../../platform/mail.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { settleStatement } from '../../platform/queues/outbox.js';
import { withTenant } from '../../platform/tenancy/with-tenant.js';
import { deliverJson, type AddressAllowance, type DeliveryOutcome } from './webhook-http.js';
import { signatureHeaders } from './webhook-signature.js';
import { objectIdOf, webhookGlobalId, webhookType } from './webhook-types.js';
import {
  deliveryWork,
  disableWebhook,
  failDelivery,
  insertNotice,
  markFailing,
  noticedWithin,
  markNoticeMailed,
  pruneDelivered,
  recordAttempt,
  recordDelivered,
  recordOldestDelivered,
  claimDueLogPrunes,
  snapshotRow,
  type DeliveryWork,
  type WebhookRow,
} from './webhooks.data.js';
import { nextAttemptAt } from './webhooks.rules.js';

/**
 * One attempt at a webhook delivery, in a worker: the stored query run as the webhook's owner,
 * the envelope (real-clients.md section 5.A) POSTed and signed (Standard Webhooks), the outcome
 * recorded, a retry scheduled or the delivery settled, notices mailed. No transaction is open
 * while the receiver is waited for.
 */

export interface DeliverySettings {
  timeoutMs: number;
  /** The waits before each retry; attempts in all = its length + 1. */
  retryScheduleMs: readonly number[];
  disableAfterMs: number;
  logDays: number;
  allow: AddressAllowance;
  endpointConcurrency: number;
  /** STATEMENT_TIMEOUT_MS: a stored query's statements are stopped after it, as a request's are. */
  statementTimeoutMs: number;
}

/** The owner a stored query runs as. */
export interface QueryOwner {
  id: number;
  email: string;
  companyId: number | null;
  permissions: string[];
}

/**
 * Runs a stored query in `db` (the delivery's read-only transaction) as `owner`, with
 * `$objectid` bound; `tombstone` is a deleted record's last state. The API face provides it
 * (webhook-payload.graphql.ts).
 */
export type StoredQueryRunner = (
  db: Knex,
  run: {
    tenant: Tenant;
    owner: QueryOwner;
    query: string;
    objectId: string;
    tombstone?: { type: string; legacyId: number; row: object } | undefined;
  },
) => Promise<{ data: unknown; errors: { message: string; code: string | null; serverError: boolean }[] }>;

export interface DeliveryDeps {
  knex: Knex;
  log: Logger;
  runQuery: StoredQueryRunner;
  mailer: Mailer;
  settings: DeliverySettings;
  /** The instance's public address (the envelope's `metadata.instance`). */
  instanceUrl(tenant: Tenant): string;
  /** Counts an outcome (metrics). */
  count?(outcome: 'delivered' | 'failed' | 'retried'): void;
  /** Test hook: how the receiver's address is resolved (default DNS). */
  lookup?: Parameters<typeof deliverJson>[3]['lookup'];
}

/** What the job does next: nothing (settled), or run again at a time (a retry, a receiver busy). */
export type AttemptResult = { next: 'done'; settled?: boolean } | { next: 'later'; at: number };

/**
 * Each webhook's deliveries in this process: how many are being sent (WEBHOOK_ENDPOINT_CONCURRENCY
 * at most) and the jobs waiting for one of those slots, first come first served.
 */
interface Endpoint {
  sending: number;
  waiting: (() => void)[];
  /** When a slot last freed (or the endpoint was first used): a receiver that frees none for a while is slow. */
  freedAt: number;
}
const endpoints = new Map<string, Endpoint>();

/**
 * Takes one of the webhook's sending slots in this process: at once (`took`), after waiting for
 * one behind at most `limit` others (`waited`), or not at all (`full`: the job comes back later).
 * A slot that frees goes straight to the first waiter, so a burst to a fast receiver keeps its
 * slots busy: when every job beyond the slots was delayed 0.5-1 s, the slots sat idle while they
 * slept (10 deliveries to an idle receiver on 127.0.0.1 took 1-2.4 s, 0.25-0.7 s now). Waiting
 * jobs keep their worker slots, so a receiver that hangs holds at most 2 x `limit` of them (half
 * sending, half waiting). Waiting in the job rather than waking a delayed one: a job promoted while
 * its previous run is still being wound up by BullMQ loses its lock renewal (tracked by job id).
 */
async function takeSlot(key: string, limit: number): Promise<'took' | 'waited' | 'full'> {
  let endpoint = endpoints.get(key);
  if (!endpoint) endpoints.set(key, (endpoint = { sending: 0, waiting: [], freedAt: Date.now() }));
  if (endpoint.sending < limit) {
    endpoint.sending++;
    return 'took';
  }
  if (endpoint.waiting.length >= limit) return 'full';
  const waiting = endpoint.waiting;
  await new Promise<void>((resolve) => waiting.push(resolve));
  return 'waited';
}

/**
 * When a job that found its receiver's slots full comes back: in a moment (0.5-1 s) when the
 * receiver answers (a slot freed within the last second), else after about a receiver's timeout
 * (a slot cannot free sooner than its request times out): a hanging receiver's backlog is then read
 * again a few times a minute, not twice a second per delivery, and costs other tenants nothing.
 */
function comeBackAt(key: string, now: number, timeoutMs: number): number {
  const slow = now - (endpoints.get(key)?.freedAt ?? now) > 1000;
  const wait = slow ? Math.max(1000, timeoutMs) : 1000;
  return now + wait / 2 + Math.floor((Math.random() * wait) / 2);
}

/** Gives a slot back, to the first job waiting for it if any. */
function releaseSlot(key: string): void {
  const endpoint = endpoints.get(key);
  if (!endpoint) return;
  endpoint.freedAt = Date.now();
  const next = endpoint.waiting.shift();
  if (next) return next();
  if (--endpoint.sending <= 0) endpoints.delete(key);
}

/** When each tenant's delivered deliveries were last pruned in this process. */
const prunedAt = new Map<number, number>();
const PRUNE_EVERY_MS = 3_600_000;

const isoMicros = (d: Date) => d.toISOString().replace(/Z$/, '000Z');

/** A failure of the stored query, said to the webhook's owners; `retry`: worth another attempt. */
class PayloadFailure extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/**
 * The stored query's answer for the delivery's record, run with its owner's permissions now (a
 * read-only transaction in the tenant). A deleted record is answered from its last state.
 */
async function payloadOf(deps: DeliveryDeps, tenant: Tenant, work: DeliveryWork): Promise<unknown> {
  const { webhook, event } = work;
  const type = webhookType(event.type_key);
  if (!type) throw new PayloadFailure(`Its webhook type (${event.type_key}) no longer exists`, false);
  if (webhook.owner_user_id === null) {
    throw new PayloadFailure('Its owner (who created it) is gone: its stored query runs with their permissions, so nothing is sent', false);
  }
  // Read with the delivery, in its statement.
  const owner = work.owner;
  if (!owner) {
    throw new PayloadFailure('Its owner (who created it) is no longer an active user: its stored query runs with their permissions', false);
  }
  let result: Awaited<ReturnType<StoredQueryRunner>>;
  try {
    result = await withTenant(
      deps.knex,
      tenant,
      async (db) => {
        const row = event.snapshot ? await snapshotRow(db, type.entity, event.snapshot) : undefined;
        return deps.runQuery(db, {
          tenant,
          owner: { id: owner.id, email: owner.email, companyId: owner.company_id, permissions: owner.permissions },
          query: webhook.query,
          objectId: objectIdOf(type.entity, event.record_id),
          tombstone: row ? { type: type.entity, legacyId: event.record_id, row } : undefined,
        });
      },
      // Each statement in one round trip, as a request's queries are (no BEGIN and COMMIT), and
      // stopped after STATEMENT_TIMEOUT_MS as a request's are.
      { readOnly: true, autocommit: true, statementTimeoutMs: deps.settings.statementTimeoutMs },
    );
  } catch (err) {
    if (err instanceof PayloadFailure) throw err;
    deps.log.warn({ webhookId: webhook.id, err: { message: (err as Error).message } }, 'webhook stored query failed');
    throw new PayloadFailure('Its stored query could not be run (a server error); it will be tried again', true);
  }
  const forbidden = result.errors.find((e) => e.code === 'FORBIDDEN');
  if (forbidden) throw new PayloadFailure(`Its owner may not read what its stored query asks: ${forbidden.message}`, false);
  if (result.errors.some((e) => e.serverError)) {
    throw new PayloadFailure('Its stored query could not be run (a server error); it will be tried again', true);
  }
  if (result.errors.length)
    throw new PayloadFailure(`Its stored query answers errors: ${result.errors.map((e) => e.message).join('; ')}`, false);
  return result.data;
}

/** The secrets that sign now: the current one, and the one rotated out while its overlap lasts. */
function signingSecrets(webhook: WebhookRow, now: number): string[] {
  const previous = webhook.previous_signing_secret;
  const until = webhook.previous_secret_expires_at ? new Date(webhook.previous_secret_expires_at).getTime() : 0;
  return previous && until > now ? [webhook.signing_secret, previous] : [webhook.signing_secret];
}

/** The delivery's Standard Webhooks message id: the same for every attempt and resend of it. */
export const messageIdOf = (tenantId: number, deliveryId: number) => `msg_${tenantId}_${deliveryId}`;

/** The body POSTed: `{ metadata, payload, configuration }`, as the production service sends it. */
export function envelopeOf(tenant: Tenant, work: DeliveryWork, payload: unknown, instance: string, now: Date): string {
  return JSON.stringify({
    metadata: {
      user: { email: work.actorEmail },
      instance,
      triggered_at: work.triggeredAt,
      sent_at: isoMicros(now),
      context: work.event.context ?? 'system',
      webhook_id: webhookGlobalId(work.webhook.id),
      is_retry: work.delivery.attempts > 0 || work.delivery.resends > 0,
    },
    payload,
    configuration: work.webhook.config,
  });
}

/**
 * One attempt at delivery `deliveryId` of `tenant`. Settles it (delivered, or failed for good)
 * or says when to try again. Safe to run twice at once: the second records nothing once the
 * first has settled it, and a receiver that sees both sees the same `webhook-id`.
 */
export async function attemptDelivery(deps: DeliveryDeps, tenant: Tenant, deliveryId: number, jobId?: string): Promise<AttemptResult> {
  const read = () => withTenant(deps.knex, tenant, (db) => deliveryWork(db, deliveryId), { readOnly: true, autocommit: true });
  let work = await read();
  if (!work || work.delivery.state !== 'pending') return { next: 'done' };
  if (await notSent(deps, tenant, work)) return { next: 'done' };
  const now = Date.now();
  const due = work.delivery.next_attempt_at ? new Date(work.delivery.next_attempt_at).getTime() : 0;
  if (due > now + 50) return { next: 'later', at: due };
  // Per receiver (a tenant's webhooks that all point at one host share its bound), not per
  // webhook: several webhooks at one hanging receiver would each hold their own share.
  const endpoint = `${tenant.id}:${receiverOf(work.webhook.url)}`;
  // A slow receiver holds a bounded share of a process's delivery slots; its other deliveries
  // come back later without counting an attempt (comeBackAt), and others' go ahead.
  const slot = await takeSlot(endpoint, deps.settings.endpointConcurrency);
  if (slot === 'full') return { next: 'later', at: comeBackAt(endpoint, now, deps.settings.timeoutMs) };
  let outcome: DeliveryOutcome;
  try {
    if (slot === 'waited') {
      // Things may have changed during the wait (another attempt settled it, the webhook was disabled).
      work = await read();
      if (!work || work.delivery.state !== 'pending') return { next: 'done' };
      if (await notSent(deps, tenant, work)) return { next: 'done' };
    }
    outcome = await send(deps, tenant, work);
  } finally {
    releaseSlot(endpoint);
  }
  if (outcome.ok && !work.webhook.failing_since && jobId) return settleDelivered(deps, tenant, work, outcome, jobId);
  return settle(deps, tenant, work, outcome);
}

/**
 * The common outcome, delivered to a webhook that was not failing: recorded and the job's outbox
 * row settled in one statement, its own transaction (no BEGIN and COMMIT round trips, one commit).
 */
async function settleDelivered(
  deps: DeliveryDeps,
  tenant: Tenant,
  work: DeliveryWork,
  outcome: DeliveryOutcome,
  jobId: string,
): Promise<AttemptResult> {
  const fresh = await withTenant(
    deps.knex,
    tenant,
    (db) =>
      recordDelivered(
        db,
        work.delivery.id,
        { status_code: outcome.status, duration_ms: Math.round(outcome.durationMs), response_excerpt: outcome.responseExcerpt },
        settleStatement(db, jobId),
      ),
    { autocommit: true, via: { context: 'worker' } },
  );
  if (fresh) {
    deps.count?.('delivered');
    await maybePrune(deps, tenant);
  }
  return { next: 'done', settled: true };
}

/** The receiver a url names: its scheme, host and port. */
function receiverOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** A delivery of a disabled webhook is failed without being sent; true when it was. */
async function notSent(deps: DeliveryDeps, tenant: Tenant, work: DeliveryWork): Promise<boolean> {
  const { webhook } = work;
  if (webhook.lifecycle_state === 'active') return false;
  const reason = `Not sent: the webhook is disabled${webhook.disabled_reason ? ` (${webhook.disabled_reason})` : ''}`;
  await withTenant(deps.knex, tenant, (db) => failDelivery(db, work.delivery.id, reason), { via: { context: 'worker' } });
  deps.count?.('failed');
  return true;
}

/** Runs the stored query and POSTs the envelope; a query that cannot answer is an outcome too, sent to nobody. */
async function send(deps: DeliveryDeps, tenant: Tenant, work: DeliveryWork): Promise<DeliveryOutcome> {
  const started = Date.now();
  let payload: unknown;
  try {
    payload = await payloadOf(deps, tenant, work);
  } catch (err) {
    if (!(err instanceof PayloadFailure)) throw err;
    return { ok: false, status: null, durationMs: Date.now() - started, responseExcerpt: null, error: err.message, retryable: err.retry };
  }
  const now = new Date();
  const body = envelopeOf(tenant, work, payload, deps.instanceUrl(tenant), now);
  const headers = signatureHeaders(signingSecrets(work.webhook, now.getTime()), messageIdOf(tenant.id, work.delivery.id), now, body);
  return deliverJson(work.webhook.url, body, headers, {
    timeoutMs: deps.settings.timeoutMs,
    allow: deps.settings.allow,
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
  });
}

interface Notice {
  subject: string;
  body: string;
  /** False for a failed delivery's notice when one was mailed within the hour: kept for the Control Panel only. */
  mail?: boolean;
}

/** A webhook's failed deliveries are mailed about at most once in this long (each is kept for the Control Panel). */
const FAILURE_MAIL_EVERY_MS = 3_600_000;

/** Records the attempt's outcome and what follows from it; mails the notices after commit. */
async function settle(deps: DeliveryDeps, tenant: Tenant, work: DeliveryWork, outcome: DeliveryOutcome): Promise<AttemptResult> {
  const { webhook, delivery } = work;
  const attempts = delivery.attempts + 1;
  const now = Date.now();
  const gone = outcome.status === 410;
  const next = outcome.ok || gone || !outcome.retryable ? null : nextAttemptAt(attempts, deps.settings.retryScheduleMs, now);
  const state = outcome.ok ? 'delivered' : next ? 'pending' : 'failed';
  const what = `${webhook.name} (${webhook.url})`;
  const error = outcome.error ?? (outcome.ok ? null : `The receiver answered ${outcome.status ?? 'nothing'}`);
  const notices: Notice[] = [];
  const recorded = await withTenant(
    deps.knex,
    tenant,
    async (db) => {
      const fresh = await recordAttempt(db, delivery.id, {
        state,
        status_code: outcome.status,
        duration_ms: Math.round(outcome.durationMs),
        response_excerpt: outcome.responseExcerpt,
        error: outcome.ok ? null : error,
        next_attempt_at: next,
      });
      if (!fresh) return false;
      if (outcome.ok) {
        // Written only when it was failing: every success writing the webhook's row would make a
        // webhook's concurrent deliveries take turns on it.
        if (webhook.failing_since) await markFailing(db, webhook.id, false);
        return true;
      }
      const failingSince = await markFailing(db, webhook.id, true);
      if (gone && (await disableWebhook(db, webhook.id, 'the receiver answered 410 Gone'))) {
        notices.push({
          subject: `Webhook disabled: ${webhook.name}`,
          body: `The webhook ${what} was disabled: its receiver answered 410 Gone, which asks for no more deliveries. Enable it again (lifecycleState: active) once the receiver wants them.`,
        });
      } else if (state === 'failed') {
        notices.push({
          subject: `Webhook delivery failed: ${webhook.name}`,
          body: `A delivery of the webhook ${what} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${error}. It can be resent from the Control Panel or with webhooks { resend }. Further failures within the hour are listed in the Control Panel, not mailed.`,
          // A receiver that is down fails every delivery: one mail an hour, not one per change.
          // Failures of one webhook settle one after another (markFailing above holds its row), so
          // each sees the notices of those before it.
          mail: !(await noticedWithin(db, webhook.id, FAILURE_MAIL_EVERY_MS)),
        });
      }
      if (failingSince && now - new Date(failingSince).getTime() >= deps.settings.disableAfterMs) {
        if (await disableWebhook(db, webhook.id, `every delivery failed for ${spelledDuration(deps.settings.disableAfterMs)}`)) {
          notices.push({
            subject: `Webhook disabled: ${webhook.name}`,
            body: `The webhook ${what} was disabled: every delivery has failed since ${new Date(failingSince).toISOString()}. The last error: ${error}. Enable it again (lifecycleState: active) once the receiver works.`,
          });
        }
      }
      for (const n of notices)
        Object.assign(n, {
          id: await insertNotice(db, { webhook_id: webhook.id, subject: n.subject, body: n.body, recipients: webhook.notification_emails }),
        });
      return true;
    },
    { via: { context: 'worker' } },
  );
  if (!recorded) return { next: 'done' };
  deps.count?.(outcome.ok ? 'delivered' : next ? 'retried' : 'failed');
  for (const n of notices as (Notice & { id: number })[]) {
    if (n.mail === false) continue;
    const sent = await deps.mailer.send({ to: webhook.notification_emails, subject: n.subject, text: n.body });
    if (sent.sent) await withTenant(deps.knex, tenant, (db) => markNoticeMailed(db, n.id));
  }
  await maybePrune(deps, tenant);
  return next ? { next: 'later', at: next.getTime() } : { next: 'done' };
}

/**
 * WEBHOOK_DISABLE_AFTER as a reason says it: `5 days`, `36 hours`, `90 minutes`, `1 second`, in the
 * largest unit that divides it (rounding to days said "2 days" for 36 h and "1 days" for 12 h).
 */
function spelledDuration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, unit] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}${ms === size ? '' : 's'}`;
  }
  return `${ms} ms`;
}

/** Delivered deliveries older than WEBHOOK_LOG_DAYS go, a tenant at a time, at most hourly per process. */
async function maybePrune(deps: DeliveryDeps, tenant: Tenant): Promise<void> {
  const last = prunedAt.get(tenant.id) ?? 0;
  if (Date.now() - last < PRUNE_EVERY_MS) return;
  prunedAt.set(tenant.id, Date.now());
  await pruneLog(deps, tenant);
}

/** What pruning a delivery log needs. */
type LogPruneDeps = Pick<DeliveryDeps, 'knex' | 'log'> & { settings: Pick<DeliverySettings, 'logDays'> };

/** The deliveries a prune deletes at most in one transaction (a tenant with more stays due). */
const PRUNE_BATCH = 5000;

/**
 * Deletes the tenant's deliveries delivered more than WEBHOOK_LOG_DAYS ago and records its oldest
 * delivered one left (platform.webhook_log_prunes), in one transaction. A failure is logged: the
 * tenant stays due and is looked at again.
 */
async function pruneLog(deps: LogPruneDeps, tenant: Pick<Tenant, 'id' | 'schema'>): Promise<void> {
  try {
    await withTenant(deps.knex, tenant, async (db) => {
      await pruneDelivered(db, deps.settings.logDays, PRUNE_BATCH);
      await recordOldestDelivered(db, tenant.id);
    });
  } catch (err) {
    deps.log.warn({ tenantId: tenant.id, err: { message: (err as Error).message } }, 'pruning webhook deliveries failed');
  }
}

/**
 * The worker's sweep: prunes the delivery logs of up to `limit` tenants whose oldest delivered
 * delivery is past WEBHOOK_LOG_DAYS (claimed first, so workers sweeping at once share them), so a
 * tenant that no longer receives deliveries loses its old ones too, suspended or not. Stops
 * between tenants once `stopping()` says so (a claimed tenant left is due again in 10 minutes).
 * Answers how many tenants it claimed.
 */
export async function pruneDueLogs(
  deps: LogPruneDeps,
  tenantById: (id: number) => Promise<Pick<Tenant, 'id' | 'schema'> | undefined>,
  opts: { limit?: number; stopping?: () => boolean } = {},
): Promise<number> {
  const due = await claimDueLogPrunes(deps.knex, deps.settings.logDays, opts.limit ?? 200);
  for (const id of due) {
    if (opts.stopping?.()) break;
    // A tenant removed takes its row with it (on delete cascade).
    const tenant = await tenantById(id);
    if (tenant) await pruneLog(deps, tenant);
  }
  return due.length;
}

/** The reconciler's question: does the delivery still wait for an attempt? */
export { deliveryPending } from './webhooks.data.js';

/** Marks a delivery failed whose job failed for good in the queue (the reconciler, the failure watcher). */
export async function markDeliveryFailed(knex: Knex, tenant: Tenant, deliveryId: number, reason: string): Promise<void> {
  await withTenant(knex, tenant, (db) => failDelivery(db, deliveryId, reason), { via: { context: 'worker' } });
}
