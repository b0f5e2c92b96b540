import type { Db } from '../../platform/db/knex.js';
import { AppError, ConflictError, NotFoundError } from '../../platform/errors.js';
import { addToOutbox } from '../../platform/queues/outbox.js';
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

/** Deterministic job ids (no `:`): a second enqueue of the same run is a no-op in BullMQ. */
export function orderJobId(tenantId: number, orderId: number, attempt = 0): string {
  return `order-${tenantId}-${orderId}${attempt ? `-r${attempt}` : ''}`;
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

  const refs = await lookUpReferences(db, order, actor);
  if (!refs.contacts.has(order.contact_id)) throw new NotFoundError(`Contact ${order.contact_id} does not exist`, 'contact_not_found', { fields: { contact_id: 'names no contact' } });
  if (order.company_id !== undefined && refs.companyId === null) {
    throw new NotFoundError(`Company ${order.company_id} does not exist`, 'company_not_found', { fields: { company_id: 'names no company' } });
  }
  const companyId = refs.companyId;
  const payment = order.payment;
  const paymentType = refs.paymentTypeId === null ? undefined : { id: refs.paymentTypeId };
  const { lines, discarded } = resolveItems(order, refs);

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

  // The place-buying lines in one statement, then their stock items in one more.
  let position = 0;
  const placed = lines.map((line) => ({ line, position: ++position, childPositions: line.children.map(() => ++position) }));
  if (placed.length) {
    const inserted = await db('opportunity_lines')
      .insert(placed.map(({ line, position: pos }) => ({
        opportunity_id: opp.id,
        position: pos,
        kind: 'event',
        event_id: line.eventId,
        contact_id: line.contactId,
        student_ids: line.studentIds,
        quantity: line.quantity,
        unit_price: centsToDecimal(toCents(line.price)),
      })))
      .returning<{ id: number; position: number }[]>(['id', 'position']);
    const idAt = new Map(inserted.map((r) => [r.position, r.id]));
    const children = placed.flatMap(({ line, position: pos, childPositions }) =>
      line.children.map((child, i) => ({
        opportunity_id: opp.id,
        position: childPositions[i]!,
        kind: 'stock_item',
        stock_item_id: child.itemId,
        parent_line_id: idAt.get(pos)!,
        quantity: 1,
        unit_price: centsToDecimal(child.priceCents),
      })),
    );
    if (children.length) await db('opportunity_lines').insert(children);
  }
  await addToOutbox(db, actor.tenantId, { queue: 'orders', name: 'process', data: { tenantId: actor.tenantId, orderId: opp.id }, jobId: orderJobId(actor.tenantId, opp.id) });
  return { orderId: opp.id, replayed: false };
}

/** What the order's references name, looked up in one round trip. */
interface References {
  /** Every contact the order names that exists: the buyer, item contacts and students. */
  contacts: Set<number>;
  /** The body's company (null when it names none that exists); else the API user's; else the lowest id (contract). */
  companyId: number | null;
  /** The payment type the tenant set up under the payment's type name (any case), if any. */
  paymentTypeId: number | null;
  events: Set<number>;
  /** Stock item id to price (numeric text). */
  stock: Map<number, string>;
}

async function lookUpReferences(db: Db, order: OrderInput, actor: OrderActor): Promise<References> {
  const items = order.items ?? [];
  const contactIds = [order.contact_id, ...items.flatMap((it) => [...(it.contact_id ? [it.contact_id] : []), ...(it.students ?? []).map((s) => s.contact_id)])];
  const eventIds = items.flatMap((it) => (it.event_id ? [it.event_id] : []));
  const stockIds = items.flatMap((it) => (it.children ?? []).map((c) => c.item_id));
  const company = order.company_id !== undefined
    ? '(select id from companies where id = ?)'
    : 'coalesce((select id from companies where id = ?), (select min(id) from companies))';
  const { rows } = await db.raw<{ rows: { contacts: number[]; company_id: number | null; payment_type_id: number | null; events: number[]; stock: [number, string][] }[] }>(
    `select array(select id from contacts where id = any(?::int[])) as contacts,
            ${company} as company_id,
            (select id from payment_types where lower(name) = lower(?)) as payment_type_id,
            array(select id from events where id = any(?::int[])) as events,
            coalesce((select json_agg(json_build_array(id, price::text)) from stock_items where id = any(?::int[])), '[]'::json) as stock`,
    [contactIds, order.company_id ?? actor.companyId ?? 0, order.payment?.type ?? null, eventIds, stockIds],
  );
  const r = rows[0]!;
  return { contacts: new Set(r.contacts), companyId: r.company_id, paymentTypeId: r.payment_type_id, events: new Set(r.events), stock: new Map(r.stock) };
}

interface ResolvedLine {
  eventId: number;
  contactId: number | null;
  studentIds: number[];
  quantity: number;
  price: number;
  children: { itemId: number; priceCents: number }[];
}

function resolveItems(order: OrderInput, { contacts, events, stock }: References): { lines: ResolvedLine[]; discarded: Discarded[] } {
  const items = order.items ?? [];

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
  await addToOutbox(db, tenantId, { queue: 'orders', name: 'process', data: { tenantId, orderId }, jobId: `${orderJobId(tenantId, orderId)}-release` });
}

/**
 * Runs a failed order again from the step that failed: the order job skips a registration
 * that was made and goes on to the invoice. For ops, once the cause (a full event, an outage)
 * is dealt with.
 */
export async function retryOrder(db: Db, tenantId: number, orderId: number): Promise<{ step: 'register' | 'invoice' }> {
  const opp = await db('opportunities').where({ id: orderId }).forUpdate().first<OpportunityRow | undefined>();
  if (!opp) throw new NotFoundError(`Order ${orderId} does not exist`, 'order_not_found');
  if (opp.state !== 'failed') throw new ConflictError(`Order ${orderId} is ${opp.state}; only a failed order can be retried`, 'not_failed');
  const registered = await db('registrations').where({ opportunity_id: orderId }).first('id');
  const attempt = opp.retries + 1;
  await db('opportunities').where({ id: orderId }).update({
    // A released order (manual workflow) goes back to released, not to waiting for release again.
    state: registered ? 'registered' : opp.released_on ? 'released' : 'received',
    failure_code: null,
    failure_reason: null,
    failed_on: null,
    retries: attempt,
    updated_on: db.raw(`(now() at time zone 'utc')`),
  });
  // A job id of its own: the failed job of this order is kept a while for ops to read.
  await addToOutbox(db, tenantId, { queue: 'orders', name: 'process', data: { tenantId, orderId }, jobId: orderJobId(tenantId, orderId, attempt) });
  return { step: registered ? 'invoice' : 'register' };
}
