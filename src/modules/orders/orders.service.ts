import type { Db } from '../../db/knex.js';
import { AppError, ConflictError, NotFoundError } from '../../errors.js';
import { addToOutbox } from '../../jobs/outbox.js';
import { centsToDecimal, toCents } from './money.js';
import { orderHash, parseOrder, type OrderInput } from './order-input.js';

/** Who places an order: the REST API user, and the tenant (for job payloads). */
export interface OrderActor {
  tenantId: number;
  userId: number | null;
  /** The API user's company: the order's company when the body names none. */
  companyId: number | null;
}

export interface PlacedOrder {
  orderId: number;
  /** True when an Idempotency-Key matched an earlier identical order: nothing new was made. */
  replayed: boolean;
}

/** A reference the intake dropped because it names nothing (contract rule 1). */
interface Discarded {
  path: string;
  id: number | null;
  reason: string;
}

interface OpportunityRow {
  id: number;
  state: string;
  request_hash: string | null;
  retries: number;
  released_on: string | null;
}

/** Deterministic job ids (no `:`): a second enqueue of the same step is a no-op in BullMQ. */
export function orderJobId(step: 'order' | 'invoice', tenantId: number, orderId: number, attempt = 0): string {
  return `${step}-${tenantId}-${orderId}${attempt ? `-r${attempt}` : ''}`;
}

async function existingIds(db: Db, table: string, ids: Iterable<number>): Promise<Set<number>> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return new Set();
  return new Set(await db(table).whereIn('id', wanted).pluck('id'));
}

/** The same key: the same body answers the same order; another body is refused. */
function replayOf(existing: OpportunityRow, hash: string): PlacedOrder {
  if (existing.request_hash !== hash) {
    throw new AppError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used for a different order; use a new key for a new order');
  }
  return { orderId: existing.id, replayed: true };
}

/**
 * Takes an order (contract: "Create an order") in the caller's tenant transaction: the
 * opportunity in the REST initial state `received`, its lines, and an outbox row for the
 * worker, all or nothing. Items naming no event are dropped with their stock items; a name
 * (item contact or student) naming no contact leaves its place unnamed; a stock item naming
 * nothing is dropped. Every drop is kept in `discarded`.
 */
export async function placeOrder(db: Db, actor: OrderActor, body: unknown, idempotencyKey?: string): Promise<PlacedOrder> {
  const order = parseOrder(body);
  const hash = orderHash(order);
  if (idempotencyKey) {
    const existing = await db('opportunities').where({ created_by_user_id: actor.userId, idempotency_key: idempotencyKey }).first<OpportunityRow | undefined>();
    if (existing) return replayOf(existing, hash);
  }

  // One lookup for every contact the order names: the buyer, item contacts and students.
  const contacts = await existingIds(db, 'contacts', [order.contact_id, ...(order.items ?? []).flatMap((it) => [...(it.contact_id ? [it.contact_id] : []), ...(it.students ?? []).map((s) => s.contact_id)])]);
  if (!contacts.has(order.contact_id)) throw new NotFoundError(`Contact ${order.contact_id} does not exist`, 'contact_not_found', { fields: { contact_id: 'names no contact' } });
  const companyId = await orderCompany(db, order, actor);
  const payment = order.payment;
  const paymentType = payment ? await db('payment_types').whereRaw('lower(name) = lower(?)', [payment.type]).first<{ id: number } | undefined>('id') : undefined;
  const { lines, discarded } = await resolveItems(db, order, contacts);

  const [opp] = await db('opportunities')
    .insert({
      state: 'received',
      contact_id: order.contact_id,
      company_id: companyId,
      external_id: order.external_id ?? null,
      region_id: order.region_id ?? null,
      currency_id: order.currency_id ?? null,
      source_type_id: order.source_type_id ?? null,
      payment_type_name: payment?.type ?? null,
      payment_type_id: paymentType?.id ?? null,
      payment_amount: payment ? centsToDecimal(toCents(payment.amount)) : null,
      payment_currency: payment?.currency ?? null,
      payment_transaction_code: payment?.transaction_code ?? null,
      discarded: JSON.stringify(discarded),
      created_by_user_id: actor.userId,
      idempotency_key: idempotencyKey ?? null,
      request_hash: hash,
    })
    // Two requests racing with one key: the second waits for the first to commit, inserts
    // nothing here, and answers the first one's order below.
    .onConflict(['created_by_user_id', 'idempotency_key'])
    .ignore()
    .returning<{ id: number }[]>('id');
  if (!opp) {
    const winner = await db('opportunities').where({ created_by_user_id: actor.userId, idempotency_key: idempotencyKey }).first<OpportunityRow>();
    return replayOf(winner, hash);
  }

  let position = 0;
  for (const line of lines) {
    const [row] = await db('opportunity_lines')
      .insert({
        opportunity_id: opp.id,
        position: ++position,
        kind: 'event',
        event_id: line.eventId,
        contact_id: line.contactId,
        student_ids: line.studentIds,
        quantity: line.quantity,
        unit_price: centsToDecimal(toCents(line.price)),
      })
      .returning<{ id: number }[]>('id');
    for (const child of line.children) {
      await db('opportunity_lines').insert({
        opportunity_id: opp.id,
        position: ++position,
        kind: 'stock_item',
        stock_item_id: child.itemId,
        parent_line_id: row!.id,
        quantity: 1,
        unit_price: centsToDecimal(child.priceCents),
      });
    }
  }
  await addToOutbox(db, actor.tenantId, { queue: 'orders', name: 'register', data: { tenantId: actor.tenantId, orderId: opp.id }, jobId: orderJobId('order', actor.tenantId, opp.id) });
  return { orderId: opp.id, replayed: false };
}

/** The body's company; else the API user's; else the company with the lowest id (contract). */
async function orderCompany(db: Db, order: OrderInput, actor: OrderActor): Promise<number | null> {
  if (order.company_id !== undefined) {
    const found = await db('companies').where({ id: order.company_id }).first('id');
    if (!found) throw new NotFoundError(`Company ${order.company_id} does not exist`, 'company_not_found', { fields: { company_id: 'names no company' } });
    return order.company_id;
  }
  const { rows } = await db.raw<{ rows: { id: number | null }[] }>(
    'select coalesce((select id from companies where id = ?), (select min(id) from companies)) as id',
    [actor.companyId ?? 0],
  );
  return rows[0]?.id ?? null;
}

interface ResolvedLine {
  eventId: number;
  contactId: number | null;
  studentIds: number[];
  quantity: number;
  price: number;
  children: { itemId: number; priceCents: number }[];
}

async function resolveItems(db: Db, order: OrderInput, contacts: Set<number>): Promise<{ lines: ResolvedLine[]; discarded: Discarded[] }> {
  const items = order.items ?? [];
  const events = await existingIds(db, 'events', items.flatMap((it) => (it.event_id ? [it.event_id] : [])));
  const stockIds = [...new Set(items.flatMap((it) => (it.children ?? []).map((c) => c.item_id)))];
  const stock = new Map<number, string>(
    stockIds.length ? (await db('stock_items').whereIn('id', stockIds).select('id', 'price')).map((r: { id: number; price: string }) => [r.id, r.price]) : [],
  );

  const lines: ResolvedLine[] = [];
  const discarded: Discarded[] = [];
  items.forEach((it, i) => {
    if (it.event_id === undefined || !events.has(it.event_id)) {
      discarded.push({ path: `items.${i}.event_id`, id: it.event_id ?? null, reason: it.event_id === undefined ? 'item names no event' : 'no such event; item dropped' });
      return;
    }
    const named = [...(it.contact_id ? [it.contact_id] : []), ...(it.students ?? []).map((s) => s.contact_id)];
    const keep = (contactId: number, path: string) => {
      if (contacts.has(contactId)) return true;
      discarded.push({ path, id: contactId, reason: 'no such contact; the place stays unnamed' });
      return false;
    };
    const contactId = it.contact_id && keep(it.contact_id, `items.${i}.contact_id`) ? it.contact_id : null;
    const studentIds = (it.students ?? []).filter((s, j) => keep(s.contact_id, `items.${i}.students.${j}.contact_id`)).map((s) => s.contact_id);
    const children: ResolvedLine['children'] = [];
    (it.children ?? []).forEach((c, j) => {
      const stockPrice = stock.get(c.item_id);
      if (stockPrice === undefined) discarded.push({ path: `items.${i}.children.${j}.item_id`, id: c.item_id, reason: 'no such stock item; dropped' });
      else children.push({ itemId: c.item_id, priceCents: c.price !== undefined ? toCents(c.price) : toCents(stockPrice) });
    });
    lines.push({ eventId: it.event_id, contactId, studentIds, quantity: it.quantity ?? Math.max(1, named.length), price: it.price, children });
  });
  return { lines, discarded };
}

/**
 * Releases an order held by the manual workflow: the worker then registers it. Only an order
 * that is waiting for release can be released.
 */
export async function releaseOrder(db: Db, tenantId: number, orderId: number): Promise<void> {
  const opp = await db('opportunities').where({ id: orderId }).forUpdate().first<OpportunityRow | undefined>();
  if (!opp) throw new NotFoundError(`Order ${orderId} does not exist`, 'order_not_found');
  if (opp.state !== 'awaiting_release') {
    throw new ConflictError(`Order ${orderId} is ${opp.state}; only an order awaiting release can be released`, 'not_awaiting_release');
  }
  await db('opportunities').where({ id: orderId }).update({ state: 'released', released_on: db.raw(`(now() at time zone 'utc')`), updated_on: db.raw(`(now() at time zone 'utc')`) });
  // A job id of its own: the first job of this order may still be kept as completed.
  await addToOutbox(db, tenantId, { queue: 'orders', name: 'register', data: { tenantId, orderId }, jobId: `${orderJobId('order', tenantId, orderId)}-release` });
}

/**
 * Runs a failed order again from the step that failed: registration when it has none, else
 * its invoice. For ops, once the cause (a full event, an outage) is dealt with.
 */
export async function retryOrder(db: Db, tenantId: number, orderId: number): Promise<{ step: 'register' | 'invoice' }> {
  const opp = await db('opportunities').where({ id: orderId }).forUpdate().first<OpportunityRow | undefined>();
  if (!opp) throw new NotFoundError(`Order ${orderId} does not exist`, 'order_not_found');
  if (opp.state !== 'failed') throw new ConflictError(`Order ${orderId} is ${opp.state}; only a failed order can be retried`, 'not_failed');
  const registered = await db('registrations').where({ opportunity_id: orderId }).first('id');
  const attempt = opp.retries + 1;
  const step = registered ? 'invoice' : 'register';
  await db('opportunities').where({ id: orderId }).update({
    // A released order (manual workflow) goes back to released, not to waiting for release again.
    state: registered ? 'registered' : opp.released_on ? 'released' : 'received',
    failure_code: null,
    failure_reason: null,
    failed_on: null,
    retries: attempt,
    updated_on: db.raw(`(now() at time zone 'utc')`),
  });
  const job = step === 'register'
    ? { queue: 'orders' as const, name: 'register', data: { tenantId, orderId }, jobId: orderJobId('order', tenantId, orderId, attempt) }
    : { queue: 'invoices' as const, name: 'create', data: { tenantId, orderId }, jobId: orderJobId('invoice', tenantId, orderId, attempt) };
  await addToOutbox(db, tenantId, job);
  return { step };
}
