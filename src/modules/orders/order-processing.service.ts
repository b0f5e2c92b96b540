import type { Db } from '../../platform/db/knex.js';
import { AppError, NotFoundError } from '../../platform/errors.js';
import { holdPlaces } from '../delegates/index.js';
import { centsToDecimal } from './money.js';
import {
  insertInvoice,
  insertRegistration,
  lockOrderForInvoice,
  lockOrderForRegistration,
  markFailed,
  opportunityState,
  setOrderState,
} from './order-steps.data.js';
import { delegatesOf, draftInvoice, placesWanted, type EventLine } from './orders.rules.js';

/**
 * The worker's two steps for an order, each one transaction that starts by locking the
 * opportunity row and checking its state: a step that already happened is skipped, so a job
 * that runs again (a retry, a worker killed half way and its job picked up again) makes no
 * second registration or invoice: the state changes in the same transaction as the rows it
 * stands for. The unique constraints on `opportunity_id` are the net under that.
 */

export type StepOutcome = { done: string } | { skipped: string };

const notFound = (orderId: number) => new NotFoundError(`Order ${orderId} does not exist`, 'order_not_found');

/**
 * Step 1: registration and delegates. A named delegate per item contact and per student, one
 * unnamed row holding the places bought without names. Manual-workflow orders stop at
 * `awaiting_release` until released. With the tenant's capacity check on, an order that would
 * overbook an event is refused (409 `event_full`) and nothing is written.
 */
export async function registerOrder(db: Db, orderId: number): Promise<StepOutcome> {
  const opp = await lockOrderForRegistration(db, orderId);
  if (!opp) throw notFound(orderId);
  if (opp.state !== 'received' && opp.state !== 'released') return { skipped: opp.state };
  if (opp.state === 'received' && opp.order_workflow === 'manual') {
    await setOrderState(db, orderId, 'awaiting_release');
    return { done: 'awaiting_release' };
  }

  const lines = opp.event_lines;
  if (opp.prevent_overbooking && lines.length) await checkCapacity(db, lines);

  // The registration and its delegates in one statement (in line order, named before unnamed).
  if (lines.length)
    await insertRegistration(db, { opportunity_id: orderId, contact_id: opp.contact_id, company_id: opp.company_id }, delegatesOf(lines));

  // An invoice is due when the tenant has the payment type and the order carries a payment.
  const invoiceDue = lines.length > 0 && opp.payment_type_id !== null && opp.payment_amount !== null;
  await setOrderState(db, orderId, invoiceDue ? 'registered' : 'completed');
  return { done: invoiceDue ? 'registered' : 'completed' };
}

/** Holds the order's places (the delegates module's holdPlaces: the capacity decision every path that holds places makes). */
async function checkCapacity(db: Db, lines: EventLine[]): Promise<void> {
  const full = await holdPlaces(db, placesWanted(lines));
  if (full)
    throw new AppError(409, 'event_full', `Event ${full.id} (${full.title}) has ${full.left} place(s) left; the order needs ${full.need}`);
}

/**
 * Step 2: the invoice (a line per place-buying item and per stock item, the total, the
 * currency) and the payment, recorded against the payment type the tenant set up.
 */
export async function invoiceOrder(db: Db, orderId: number): Promise<StepOutcome> {
  const opp = await lockOrderForInvoice(db, orderId);
  if (!opp) throw notFound(orderId);
  if (opp.state !== 'registered') return { skipped: opp.state };

  const invoice = draftInvoice(opp.invoice_source, {
    currency_id: opp.currency_id,
    payment_currency: opp.payment_currency,
    payment_amount: opp.payment_amount!,
  });
  // The invoice, its lines, the payment (when something was paid) and the order's new state:
  // one statement, so one round trip.
  await insertInvoice(
    db,
    {
      opportunity_id: orderId,
      contact_id: opp.contact_id,
      company_id: opp.company_id,
      currency: invoice.currency,
      total: centsToDecimal(invoice.totalCents),
      amount_paid: centsToDecimal(invoice.paidCents),
      status: invoice.status,
    },
    invoice.lines,
    invoice.paidCents > 0
      ? {
          payment_type_id: opp.payment_type_id!,
          amount: centsToDecimal(invoice.paidCents),
          currency: opp.payment_currency ?? invoice.currency,
          transaction_code: opp.payment_transaction_code,
        }
      : null,
  );
  return { done: 'completed' };
}

/**
 * Marks an order failed with a reason ops can read (`orders:show`) and act on (`orders:retry`).
 * A completed order is never marked failed, and a failed one keeps its first reason.
 */
export async function markOrderFailed(db: Db, orderId: number, code: string, reason: string): Promise<void> {
  await markFailed(db, orderId, code, reason.slice(0, 1000));
}

/**
 * Whether an order still needs its job's work: it is received, released or registered. One
 * awaiting release, completed, failed or gone needs nothing of that job (a release or a retry
 * queues a job of its own).
 */
export async function orderNeedsWork(db: Db, orderId: number): Promise<boolean> {
  const state = await opportunityState(db, orderId);
  return state !== undefined && ['received', 'released', 'registered'].includes(state);
}
