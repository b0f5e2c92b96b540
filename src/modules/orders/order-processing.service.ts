import type { Db, Knex } from '../../platform/db/knex.js';
import { AppError, NotFoundError } from '../../platform/errors.js';
import { placesBooked } from '../events/public-events.rest.js';
import { centsToDecimal, toCents } from './money.js';

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

/**
 * Locks the order and reads it with the tenant's order settings and, when given, what the step
 * needs of its lines (a JSON column), in one round trip. The lines were written with the order
 * and never change, so reading them beside the locked row is safe.
 */
async function lockOrder<X extends object = object>(db: Db, orderId: number, extra?: Knex.Raw): Promise<Opportunity & { order_workflow: string; prevent_overbooking: boolean } & X> {
  const opp = await db('opportunities as o')
    .crossJoin(db.raw('settings as s'))
    .where('o.id', orderId)
    .forUpdate('o')
    .first('o.*', 's.order_workflow', 's.prevent_overbooking', ...(extra ? [extra] : []));
  if (!opp) throw new NotFoundError(`Order ${orderId} does not exist`, 'order_not_found');
  return opp;
}

// The order's place-buying lines, as the registration step needs them.
const EVENT_LINES = `coalesce((select json_agg(json_build_object('id', l.id, 'event_id', l.event_id, 'contact_id', l.contact_id,
    'student_ids', l.student_ids, 'quantity', l.quantity) order by l.position)
  from opportunity_lines l where l.opportunity_id = o.id and l.kind = 'event'), '[]'::json) as event_lines`;

// Every line with what an invoice line says of it.
const INVOICE_SOURCE = `coalesce((select json_agg(json_build_object('kind', l.kind, 'event_id', l.event_id, 'stock_item_id', l.stock_item_id,
    'quantity', l.quantity, 'unit_price', l.unit_price::text, 'event_title', e.title, 'event_start', e.start_date::text,
    'event_currency', e.currency_code, 'stock_name', si.name) order by l.position)
  from opportunity_lines l left join events e on e.id = l.event_id left join stock_items si on si.id = l.stock_item_id
  where l.opportunity_id = o.id), '[]'::json) as invoice_source`;

export type StepOutcome = { done: string } | { skipped: string };

/**
 * Step 1: registration and delegates. A named delegate per item contact and per student, one
 * unnamed row holding the places bought without names. Manual-workflow orders stop at
 * `awaiting_release` until released. With the tenant's capacity check on, an order that would
 * overbook an event is refused (409 `event_full`) and nothing is written.
 */
export async function registerOrder(db: Db, orderId: number): Promise<StepOutcome> {
  const opp = await lockOrder<{ event_lines: EventLine[] }>(db, orderId, db.raw(EVENT_LINES));
  if (opp.state !== 'received' && opp.state !== 'released') return { skipped: opp.state };
  if (opp.state === 'received' && opp.order_workflow === 'manual') {
    await db('opportunities').where({ id: orderId }).update({ state: 'awaiting_release', updated_on: utcNow(db) });
    return { done: 'awaiting_release' };
  }

  const lines = opp.event_lines;
  if (opp.prevent_overbooking && lines.length) await checkCapacity(db, lines);

  if (lines.length) {
    const delegates = lines.flatMap((line) => {
      const named = [...(line.contact_id ? [line.contact_id] : []), ...line.student_ids];
      const unnamed = line.quantity - named.length;
      return [
        ...named.map((contact_id) => ({ event_id: line.event_id, contact_id, num_places: null })),
        ...(unnamed > 0 ? [{ event_id: line.event_id, contact_id: null, num_places: unnamed }] : []),
      ];
    }).map((d, n) => ({ ...d, n }));
    // The registration and its delegates in one statement (in line order, named before unnamed).
    await db.raw(
      `with r as (insert into registrations (opportunity_id, contact_id, company_id) values (?, ?, ?) returning id)
       insert into delegates (event_id, contact_id, num_places, registration_id)
       select d.event_id, d.contact_id, d.num_places, r.id
         from r cross join json_to_recordset(?::json) as d(event_id int, contact_id int, num_places int, n int)
        order by d.n`,
      [orderId, opp.contact_id, opp.company_id, JSON.stringify(delegates)],
    );
  }

  // An invoice is due when the tenant has the payment type and the order carries a payment.
  const invoiceDue = lines.length > 0 && opp.payment_type_id !== null && opp.payment_amount !== null;
  await db('opportunities')
    .where({ id: orderId })
    .update({ state: invoiceDue ? 'registered' : 'completed', completed_on: invoiceDue ? null : utcNow(db), updated_on: utcNow(db) });
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
  const opp = await lockOrder<{ invoice_source: InvoiceSourceLine[] }>(db, orderId, db.raw(INVOICE_SOURCE));
  if (opp.state !== 'registered') return { skipped: opp.state };

  const source = opp.invoice_source;
  const lines = source.map((l, i) => {
    const unit = toCents(l.unit_price);
    const description = l.kind === 'event' ? `${l.event_title ?? `Event ${l.event_id}`}${l.event_start ? ` (${l.event_start})` : ''}` : (l.stock_name ?? `Stock item ${l.stock_item_id}`);
    return { position: i + 1, description, event_id: l.event_id, stock_item_id: l.stock_item_id, quantity: l.quantity, unit_price: centsToDecimal(unit), amount: centsToDecimal(unit * l.quantity), cents: unit * l.quantity };
  });
  const totalCents = lines.reduce((sum, l) => sum + l.cents, 0);
  const paidCents = toCents(opp.payment_amount!);
  const currency = opp.currency_id ?? opp.payment_currency ?? source.find((l) => l.event_currency)?.event_currency ?? null;
  const status = paidCents <= 0 ? 'unpaid' : paidCents >= totalCents ? 'paid' : 'part_paid';

  // The invoice, its lines, the payment (when something was paid) and the order's new state:
  // one statement, so one round trip.
  await db.raw(
    `with i as (
       insert into invoices (opportunity_id, registration_id, contact_id, company_id, currency, total, amount_paid, status)
       values (?, (select id from registrations where opportunity_id = ?), ?, ?, ?, ?, ?, ?) returning id),
     l as (
       insert into invoice_lines (invoice_id, position, description, event_id, stock_item_id, quantity, unit_price, amount)
       select i.id, x.position, x.description, x.event_id, x.stock_item_id, x.quantity, x.unit_price, x.amount
         from i cross join json_to_recordset(?::json)
           as x(position int, description text, event_id int, stock_item_id int, quantity int, unit_price numeric, amount numeric)),
     p as (
       insert into payments (invoice_id, payment_type_id, amount, currency, transaction_code)
       select i.id, ?, ?, ?, ? from i where ?)
     update opportunities set state = 'completed', completed_on = (now() at time zone 'utc'), updated_on = (now() at time zone 'utc')
      where id = ?`,
    [
      orderId, orderId, opp.contact_id, opp.company_id, currency, centsToDecimal(totalCents), centsToDecimal(paidCents), status,
      JSON.stringify(lines.map(({ cents: _cents, ...line }) => line)),
      opp.payment_type_id, centsToDecimal(paidCents), opp.payment_currency ?? currency, opp.payment_transaction_code, paidCents > 0,
      orderId,
    ],
  );
  return { done: 'completed' };
}

/**
 * Marks an order failed with a reason ops can read (`orders:show`) and act on (`orders:retry`).
 * A completed order is never marked failed, and a failed one keeps its first reason.
 */
export async function markOrderFailed(db: Db, orderId: number, code: string, reason: string): Promise<void> {
  await db('opportunities')
    .where({ id: orderId })
    .whereNotIn('state', ['completed', 'failed'])
    .update({ state: 'failed', failure_code: code, failure_reason: reason.slice(0, 1000), failed_on: utcNow(db), updated_on: utcNow(db) });
}

/**
 * Whether an order still needs its job's work: it is received, released or registered. One
 * awaiting release, completed, failed or gone needs nothing of that job (a release or a retry
 * queues a job of its own).
 */
export async function orderNeedsWork(db: Db, orderId: number): Promise<boolean> {
  const row = await db('opportunities').where({ id: orderId }).first<{ state: string } | undefined>('state');
  return row !== undefined && ['received', 'released', 'registered'].includes(row.state);
}
