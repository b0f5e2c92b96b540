import type { Db } from '../../db/knex.js';
import { AppError, NotFoundError } from '../../errors.js';
import { addToOutbox } from '../../jobs/outbox.js';
import { placesBooked } from '../events/public-events.resource.js';
import { centsToDecimal, toCents } from './money.js';
import { orderJobId } from './orders.service.js';

/**
 * The worker's two steps for an order, each one transaction that starts by locking the
 * opportunity row and checking its state: a step that already happened is skipped, so a job
 * that runs again (a retry, a worker killed half way and its job picked up again) makes no
 * second registration or invoice: the state changes in the same transaction as the rows it
 * stands for. The unique constraints on `opportunity_id` are the net under that.
 */

interface Opportunity {
  id: number;
  state: string;
  contact_id: number;
  company_id: number | null;
  currency_id: string | null;
  payment_type_id: number | null;
  payment_amount: string | null;
  payment_currency: string | null;
  payment_transaction_code: string | null;
  retries: number;
}

interface EventLine {
  id: number;
  event_id: number;
  contact_id: number | null;
  student_ids: number[];
  quantity: number;
}

const utcNow = (db: Db) => db.raw(`(now() at time zone 'utc')`);

/** Locks the order and reads it with the tenant's order settings, in one round trip. */
async function lockOrder(db: Db, orderId: number): Promise<Opportunity & { order_workflow: string; prevent_overbooking: boolean }> {
  const opp = await db('opportunities as o')
    .crossJoin(db.raw('settings as s'))
    .where('o.id', orderId)
    .forUpdate('o')
    .first('o.*', 's.order_workflow', 's.prevent_overbooking');
  if (!opp) throw new NotFoundError(`Order ${orderId} does not exist`, 'order_not_found');
  return opp;
}

export type StepOutcome = { done: string } | { skipped: string };

/**
 * Step 1: registration and delegates. A named delegate per item contact and per student, one
 * unnamed row holding the places bought without names. Manual-workflow orders stop at
 * `awaiting_release` until released. With the tenant's capacity check on, an order that would
 * overbook an event is refused (409 `event_full`) and nothing is written.
 */
export async function registerOrder(db: Db, tenantId: number, orderId: number): Promise<StepOutcome> {
  const opp = await lockOrder(db, orderId);
  if (opp.state !== 'received' && opp.state !== 'released') return { skipped: opp.state };
  if (opp.state === 'received' && opp.order_workflow === 'manual') {
    await db('opportunities').where({ id: orderId }).update({ state: 'awaiting_release', updated_on: utcNow(db) });
    return { done: 'awaiting_release' };
  }

  const lines = await db('opportunity_lines').where({ opportunity_id: orderId, kind: 'event' }).orderBy('position').select<EventLine[]>('id', 'event_id', 'contact_id', 'student_ids', 'quantity');
  if (opp.prevent_overbooking && lines.length) await checkCapacity(db, lines);

  if (lines.length) {
    const [registration] = await db('registrations')
      .insert({ opportunity_id: orderId, contact_id: opp.contact_id, company_id: opp.company_id })
      .returning<{ id: number }[]>('id');
    const rows = lines.flatMap((line) => {
      const named = [...(line.contact_id ? [line.contact_id] : []), ...line.student_ids];
      const unnamed = line.quantity - named.length;
      return [
        ...named.map((contact_id) => ({ event_id: line.event_id, contact_id, registration_id: registration!.id })),
        ...(unnamed > 0 ? [{ event_id: line.event_id, contact_id: null, num_places: unnamed, registration_id: registration!.id }] : []),
      ];
    });
    await db('delegates').insert(rows);
  }

  // An invoice is due when the tenant has the payment type and the order carries a payment.
  const invoiceDue = lines.length > 0 && opp.payment_type_id !== null && opp.payment_amount !== null;
  await db('opportunities')
    .where({ id: orderId })
    .update({ state: invoiceDue ? 'registered' : 'completed', completed_on: invoiceDue ? null : utcNow(db), updated_on: utcNow(db) });
  if (invoiceDue) {
    await addToOutbox(db, tenantId, { queue: 'invoices', name: 'create', data: { tenantId, orderId }, jobId: orderJobId('invoice', tenantId, orderId, opp.retries) });
  }
  return { done: invoiceDue ? 'registered' : 'completed' };
}

/** Locks the order's events (in id order, so concurrent orders cannot deadlock) and counts places. */
async function checkCapacity(db: Db, lines: EventLine[]): Promise<void> {
  const wanted = new Map<number, number>();
  for (const l of lines) wanted.set(l.event_id, (wanted.get(l.event_id) ?? 0) + l.quantity);
  const ids = [...wanted.keys()].sort((a, b) => a - b);
  const events = await db('events').whereIn('id', ids).orderBy('id').forUpdate().select<{ id: number; title: string; delegates_max: number | null }[]>('id', 'title', 'delegates_max');
  const booked = await placesBooked(db, ids);
  for (const e of events) {
    if (e.delegates_max === null) continue;
    const left = e.delegates_max - (booked.get(e.id) ?? 0);
    const need = wanted.get(e.id)!;
    if (need > left) {
      throw new AppError(409, 'event_full', `Event ${e.id} (${e.title}) has ${Math.max(0, left)} place(s) left; the order needs ${need}`);
    }
  }
}

interface InvoiceSourceLine {
  kind: 'event' | 'stock_item';
  event_id: number | null;
  stock_item_id: number | null;
  quantity: number;
  unit_price: string;
  event_title: string | null;
  event_start: string | null;
  event_currency: string | null;
  stock_name: string | null;
}

/**
 * Step 2: the invoice (a line per place-buying item and per stock item, the total, the
 * currency) and the payment, recorded against the payment type the tenant set up.
 */
export async function invoiceOrder(db: Db, orderId: number): Promise<StepOutcome> {
  const opp = await lockOrder(db, orderId);
  if (opp.state !== 'registered') return { skipped: opp.state };

  const source = await db('opportunity_lines as l')
    .leftJoin('events as e', 'e.id', 'l.event_id')
    .leftJoin('stock_items as s', 's.id', 'l.stock_item_id')
    .where('l.opportunity_id', orderId)
    .orderBy('l.position')
    .select<InvoiceSourceLine[]>(
      'l.kind', 'l.event_id', 'l.stock_item_id', 'l.quantity', 'l.unit_price',
      'e.title as event_title', 'e.start_date as event_start', 'e.currency_code as event_currency', 's.name as stock_name',
    );
  const lines = source.map((l, i) => {
    const unit = toCents(l.unit_price);
    const description = l.kind === 'event' ? `${l.event_title ?? `Event ${l.event_id}`}${l.event_start ? ` (${l.event_start})` : ''}` : (l.stock_name ?? `Stock item ${l.stock_item_id}`);
    return { position: i + 1, description, event_id: l.event_id, stock_item_id: l.stock_item_id, quantity: l.quantity, unitCents: unit, amountCents: unit * l.quantity };
  });
  const totalCents = lines.reduce((sum, l) => sum + l.amountCents, 0);
  const paidCents = toCents(opp.payment_amount!);
  const currency = opp.currency_id ?? opp.payment_currency ?? source.find((l) => l.event_currency)?.event_currency ?? null;

  const [invoice] = await db('invoices')
    .insert({
      opportunity_id: orderId,
      registration_id: db('registrations').where({ opportunity_id: orderId }).select('id'),
      contact_id: opp.contact_id,
      company_id: opp.company_id,
      currency,
      total: centsToDecimal(totalCents),
      amount_paid: centsToDecimal(paidCents),
      status: paidCents <= 0 ? 'unpaid' : paidCents >= totalCents ? 'paid' : 'part_paid',
    })
    .returning<{ id: number }[]>('id');
  await db('invoice_lines').insert(
    lines.map((l) => ({
      invoice_id: invoice!.id,
      position: l.position,
      description: l.description,
      event_id: l.event_id,
      stock_item_id: l.stock_item_id,
      quantity: l.quantity,
      unit_price: centsToDecimal(l.unitCents),
      amount: centsToDecimal(l.amountCents),
    })),
  );
  if (paidCents > 0) {
    await db('payments').insert({
      invoice_id: invoice!.id,
      payment_type_id: opp.payment_type_id,
      amount: centsToDecimal(paidCents),
      currency: opp.payment_currency ?? currency,
      transaction_code: opp.payment_transaction_code,
    });
  }
  await db('opportunities').where({ id: orderId }).update({ state: 'completed', completed_on: utcNow(db), updated_on: utcNow(db) });
  return { done: 'completed' };
}

/**
 * Marks an order failed with a reason ops can read (`orders:show`) and act on (`orders:retry`).
 * A completed order is never marked failed.
 */
export async function markOrderFailed(db: Db, orderId: number, code: string, reason: string): Promise<void> {
  await db('opportunities')
    .where({ id: orderId })
    .whereNot({ state: 'completed' })
    .update({ state: 'failed', failure_code: code, failure_reason: reason.slice(0, 1000), failed_on: utcNow(db), updated_on: utcNow(db) });
}
