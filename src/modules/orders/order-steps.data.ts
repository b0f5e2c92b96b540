import type { Db, Knex } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import type { EventLine, InvoiceLineDraft, InvoiceSourceLine, NewDelegate, OpportunityState } from './orders.rules.js';
import type { Invoice, Payment } from './orders.data.js';
import { Opportunity, Registration, type OpportunityRow } from './orders.data.js';

/**
 * The statements of the worker's two steps (registration, invoice; see order-processing.service.ts),
 * each a few statements of one round trip, and of the ops' release and retry.
 *
 * @uses settings: the worker's steps read the tenant's order settings with the locked order, one round trip
 * @uses delegates: the registration step writes the registration and its delegates in one statement
 * @uses events: the invoice step reads its lines' event titles with the locked order
 */

/** The order locked for a change of state, or undefined. */
export function lockOpportunity(db: Db, id: number): Promise<OpportunityRow | undefined> {
  return db(Opportunity.tableName).where({ id }).forUpdate().first<OpportunityRow | undefined>();
}

/** Releases an order held by the manual workflow. */
export async function markReleased(db: Db, id: number): Promise<void> {
  await db(Opportunity.tableName)
    .where({ id })
    .update({ state: 'released', released_on: utcNow(db), updated_on: utcNow(db) });
}

/** Whether the order has its registration. */
export async function hasRegistration(db: Db, opportunityId: number): Promise<boolean> {
  return (await db(Registration.tableName).where({ opportunity_id: opportunityId }).first('id')) !== undefined;
}

/** Puts a failed order back in `state` for another run, its failure forgotten and `retries` counted. */
export async function markRetried(db: Db, id: number, state: OpportunityState, retries: number): Promise<void> {
  await db(Opportunity.tableName)
    .where({ id })
    .update({ state, failure_code: null, failure_reason: null, failed_on: null, retries, updated_on: utcNow(db) });
}

/** An order locked by a step, with the tenant's order settings and what the step reads of its lines. */
export type LockedOrder<X> = OpportunityRow & { order_workflow: 'automatic' | 'manual'; prevent_overbooking: boolean } & X;

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

/**
 * Locks the order and reads it with the tenant's order settings and, when given, what the step
 * needs of its lines (a JSON column), in one round trip. The lines were written with the order
 * and never change, so reading them beside the locked row is safe.
 */
async function lockOrder<X extends object>(db: Db, orderId: number, extra: Knex.Raw): Promise<LockedOrder<X> | undefined> {
  const row: unknown = await db('opportunities as o')
    .crossJoin(db.raw('settings as s'))
    .where('o.id', orderId)
    .forUpdate('o')
    .first('o.*', 's.order_workflow', 's.prevent_overbooking', extra);
  return row as LockedOrder<X> | undefined;
}

/** The order locked for the registration step, with its place-buying lines. */
export function lockOrderForRegistration(db: Db, orderId: number): Promise<LockedOrder<{ event_lines: EventLine[] }> | undefined> {
  return lockOrder(db, orderId, db.raw(EVENT_LINES));
}

/** The order locked for the invoice step, with every line and what its invoice line says of it. */
export function lockOrderForInvoice(db: Db, orderId: number): Promise<LockedOrder<{ invoice_source: InvoiceSourceLine[] }> | undefined> {
  return lockOrder(db, orderId, db.raw(INVOICE_SOURCE));
}

/** Moves an order on to `state`; `completed` stamps completed_on (and clears it otherwise). */
export async function setOrderState(db: Db, orderId: number, state: 'awaiting_release' | 'registered' | 'completed'): Promise<void> {
  if (state === 'awaiting_release')
    await db(Opportunity.tableName)
      .where({ id: orderId })
      .update({ state, updated_on: utcNow(db) });
  else
    await db(Opportunity.tableName)
      .where({ id: orderId })
      .update({ state, completed_on: state === 'completed' ? utcNow(db) : null, updated_on: utcNow(db) });
}

/** The registration and its delegates in one statement (delegates in the order given). */
export async function insertRegistration(
  db: Db,
  registration: Pick<Registration, 'opportunity_id' | 'contact_id' | 'company_id'>,
  delegates: NewDelegate[],
): Promise<void> {
  await db.raw(
    `with r as (insert into registrations (opportunity_id, contact_id, company_id) values (?, ?, ?) returning id)
     insert into delegates (event_id, contact_id, num_places, registration_id)
     select d.event_id, d.contact_id, d.num_places, r.id
       from r cross join json_to_recordset(?::json) as d(event_id int, contact_id int, num_places int, n int)
      order by d.n`,
    [registration.opportunity_id, registration.contact_id, registration.company_id, JSON.stringify(delegates.map((d, n) => ({ ...d, n })))],
  );
}

export type NewInvoice = Pick<Invoice, 'opportunity_id' | 'contact_id' | 'company_id' | 'currency' | 'total' | 'amount_paid' | 'status'>;

/**
 * The invoice (against the order's registration), its lines, the payment when one is given, and
 * the order completed: one statement, so one round trip.
 */
export async function insertInvoice(
  db: Db,
  invoice: NewInvoice,
  lines: InvoiceLineDraft[],
  payment: Pick<Payment, 'payment_type_id' | 'amount' | 'currency' | 'transaction_code'> | null,
): Promise<void> {
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
      invoice.opportunity_id,
      invoice.opportunity_id,
      invoice.contact_id,
      invoice.company_id,
      invoice.currency,
      invoice.total,
      invoice.amount_paid,
      invoice.status,
      JSON.stringify(lines),
      payment?.payment_type_id ?? null,
      payment?.amount ?? null,
      payment?.currency ?? null,
      payment?.transaction_code ?? null,
      payment !== null,
      invoice.opportunity_id,
    ],
  );
}

/** Marks an order failed, unless it is completed or already failed (it keeps its first reason). */
export async function markFailed(db: Db, orderId: number, code: string, reason: string): Promise<void> {
  await db(Opportunity.tableName)
    .where({ id: orderId })
    .whereNotIn('state', ['completed', 'failed'])
    .update({ state: 'failed', failure_code: code, failure_reason: reason, failed_on: utcNow(db), updated_on: utcNow(db) });
}

/** The order's state, or undefined when there is no such order. */
export async function opportunityState(db: Db, orderId: number): Promise<OpportunityState | undefined> {
  const row = await db(Opportunity.tableName).where({ id: orderId }).first<{ state: OpportunityState } | undefined>('state');
  return row?.state;
}
