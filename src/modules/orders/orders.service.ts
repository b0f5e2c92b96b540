import type { Db } from '../../platform/db/knex.js';
import { AppError, ConflictError, NotFoundError } from '../../platform/errors.js';
import { addToOutbox } from '../../platform/queues/outbox.js';
import { centsToDecimal, toCents } from './money.js';
import { orderHash, parseOrder } from './order-input.js';
import { hasRegistration, lockOpportunity, markReleased, markRetried } from './order-steps.data.js';
import {
  insertEventLines,
  insertOpportunity,
  insertStockLines,
  lookUpReferences,
  opportunityByIdempotencyKey,
  type OpportunityKeyRow,
} from './order-intake.data.js';
import { contactsNamed, resolveItems } from './orders.rules.js';

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

/** Deterministic job ids (no `:`): a second enqueue of the same run is a no-op in BullMQ. */
export function orderJobId(tenantId: number, orderId: number, attempt = 0): string {
  return `order-${tenantId}-${orderId}${attempt ? `-r${attempt}` : ''}`;
}

/** The same key: the same body answers the same order; another body is refused. */
function replayOf(existing: OpportunityKeyRow, hash: string): PlacedOrder {
  if (existing.request_hash !== hash) {
    throw new AppError(
      422,
      'idempotency_key_reused',
      'This Idempotency-Key was already used for a different order; use a new key for a new order',
    );
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
    const existing = await opportunityByIdempotencyKey(db, actor.userId, idempotencyKey);
    if (existing) return replayOf(existing, hash);
  }

  const items = order.items ?? [];
  const refs = await lookUpReferences(db, {
    contactIds: contactsNamed(order),
    company: order.company_id !== undefined ? { id: order.company_id } : { fallback: actor.companyId ?? 0 },
    paymentTypeName: order.payment?.type ?? null,
    eventIds: items.flatMap((it) => (it.event_id ? [it.event_id] : [])),
    stockIds: items.flatMap((it) => (it.children ?? []).map((c) => c.item_id)),
  });
  if (!refs.contacts.has(order.contact_id))
    throw new NotFoundError(`Contact ${order.contact_id} does not exist`, 'contact_not_found', {
      fields: { contact_id: 'names no contact' },
    });
  if (order.company_id !== undefined && refs.companyId === null) {
    throw new NotFoundError(`Company ${order.company_id} does not exist`, 'company_not_found', {
      fields: { company_id: 'names no company' },
    });
  }
  const companyId = refs.companyId;
  const payment = order.payment;
  const paymentType = refs.paymentTypeId === null ? undefined : { id: refs.paymentTypeId };
  const { lines, discarded } = resolveItems(order, refs);

  const opp = await insertOpportunity(db, {
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
    discarded,
    created_by_user_id: actor.userId,
    idempotency_key: idempotencyKey ?? null,
    request_hash: hash,
  });
  if (!opp) {
    // The other request of a race on this key made the order: answer that one.
    const winner = await opportunityByIdempotencyKey(db, actor.userId, idempotencyKey);
    return replayOf(winner!, hash);
  }

  // The place-buying lines in one statement, then their stock items in one more.
  let position = 0;
  const placed = lines.map((line) => ({ line, position: ++position, childPositions: line.children.map(() => ++position) }));
  if (placed.length) {
    const idAt = await insertEventLines(
      db,
      placed.map(({ line, position: pos }) => ({
        opportunity_id: opp.id,
        position: pos,
        event_id: line.eventId,
        contact_id: line.contactId,
        student_ids: line.studentIds,
        quantity: line.quantity,
        unit_price: centsToDecimal(toCents(line.price)),
      })),
    );
    const children = placed.flatMap(({ line, position: pos, childPositions }) =>
      line.children.map((child, i) => ({
        opportunity_id: opp.id,
        position: childPositions[i]!,
        stock_item_id: child.itemId,
        parent_line_id: idAt.get(pos)!,
        quantity: 1,
        unit_price: centsToDecimal(child.priceCents),
      })),
    );
    if (children.length) await insertStockLines(db, children);
  }
  await addToOutbox(db, actor.tenantId, {
    queue: 'orders',
    name: 'process',
    data: { tenantId: actor.tenantId, orderId: opp.id },
    jobId: orderJobId(actor.tenantId, opp.id),
  });
  return { orderId: opp.id, replayed: false };
}

/**
 * Releases an order held by the manual workflow: the worker then registers it. Only an order
 * that is waiting for release can be released.
 */
export async function releaseOrder(db: Db, tenantId: number, orderId: number): Promise<void> {
  const opp = await lockOpportunity(db, orderId);
  if (!opp) throw new NotFoundError(`Order ${orderId} does not exist`, 'order_not_found');
  if (opp.state !== 'awaiting_release') {
    throw new ConflictError(`Order ${orderId} is ${opp.state}; only an order awaiting release can be released`, 'not_awaiting_release');
  }
  await markReleased(db, orderId);
  // A job id of its own: the first job of this order may still be kept as completed.
  await addToOutbox(db, tenantId, {
    queue: 'orders',
    name: 'process',
    data: { tenantId, orderId },
    jobId: `${orderJobId(tenantId, orderId)}-release`,
  });
}

/**
 * Runs a failed order again from the step that failed: the order job skips a registration
 * that was made and goes on to the invoice. For ops, once the cause (a full event, an outage)
 * is dealt with.
 */
export async function retryOrder(db: Db, tenantId: number, orderId: number): Promise<{ step: 'register' | 'invoice' }> {
  const opp = await lockOpportunity(db, orderId);
  if (!opp) throw new NotFoundError(`Order ${orderId} does not exist`, 'order_not_found');
  if (opp.state !== 'failed') throw new ConflictError(`Order ${orderId} is ${opp.state}; only a failed order can be retried`, 'not_failed');
  const registered = await hasRegistration(db, orderId);
  const attempt = opp.retries + 1;
  // A released order (manual workflow) goes back to released, not to waiting for release again.
  await markRetried(db, orderId, registered ? 'registered' : opp.released_on ? 'released' : 'received', attempt);
  // A job id of its own: the failed job of this order is kept a while for ops to read.
  await addToOutbox(db, tenantId, {
    queue: 'orders',
    name: 'process',
    data: { tenantId, orderId },
    jobId: orderJobId(tenantId, orderId, attempt),
  });
  return { step: registered ? 'invoice' : 'register' };
}
