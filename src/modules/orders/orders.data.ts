import type { Db, Knex } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import type { ModelObject } from 'objection';
import { BaseModel } from '../../platform/db/model.js';
import { Delegate } from '../delegates/index.js';
import type { Discarded, EventLine, InvoiceLineDraft, InvoiceSourceLine, InvoiceStatus, NewDelegate, OpportunityState, References } from './orders.rules.js';

/**
 * Orders: the only file that names the `opportunities`, `opportunity_lines`, `registrations`,
 * `invoices`, `invoice_lines`, `payments`, `payment_types` and `stock_items` tables. Every
 * function takes the tenant's transaction first. It holds the intake's statements, the worker's
 * two steps (each a few statements, one round trip each), the tenant's payment types and stock
 * items, and the one read model of an order that `orders:show`/`orders:list` and GraphQL share.
 *
 * @uses contacts, companies, events: the intake looks up every reference an order names in one round trip, and the invoice step reads its lines' event titles with them
 * @uses settings: the worker's steps read the tenant's order settings with the locked order, one round trip
 * @uses delegates: the registration step writes the registration and its delegates in one statement
 */

export class PaymentType extends BaseModel {
  static override tableName = 'payment_types';

  declare id: number;
  /** Unique in any case (an index on lower(name)). */
  declare name: string;
  declare created_on: string;
}

export class StockItem extends BaseModel {
  static override tableName = 'stock_items';

  declare id: number;
  declare name: string;
  /** numeric(14,2) as text ("25.00"). */
  declare price: string;
  declare created_on: string;
}

/** An order placed through REST, and how far the worker got with it. */
export class Opportunity extends BaseModel {
  static override tableName = 'opportunities';

  declare id: number;
  /** received (the initial state of REST orders) -> [awaiting_release -> released] -> registered -> completed; or failed. */
  declare state: OpportunityState;
  declare source: string;
  declare contact_id: number;
  declare company_id: number | null;
  declare external_id: string | null;
  declare region_id: string | null;
  declare currency_id: string | null;
  declare source_type_id: number | null;
  /** The payment as sent; payment_type_id only when the tenant has set the type up (contract rule 2). */
  declare payment_type_name: string | null;
  declare payment_type_id: number | null;
  declare payment_amount: string | null;
  declare payment_currency: string | null;
  declare payment_transaction_code: string | null;
  declare discarded: Discarded[];
  declare created_by_user_id: number | null;
  declare idempotency_key: string | null;
  declare request_hash: string | null;
  declare failure_code: string | null;
  declare failure_reason: string | null;
  declare failed_on: string | null;
  declare retries: number;
  declare released_on: string | null;
  declare completed_on: string | null;
  declare created_on: string;
  declare updated_on: string;

  declare lines?: OpportunityLine[];
  declare registration?: Registration;
  declare invoice?: Invoice;

  static override get relationMappings() {
    return {
      lines: { relation: BaseModel.HasManyRelation, modelClass: OpportunityLine, join: { from: 'opportunities.id', to: 'opportunity_lines.opportunity_id' } },
      registration: { relation: BaseModel.HasOneRelation, modelClass: Registration, join: { from: 'opportunities.id', to: 'registrations.opportunity_id' } },
      invoice: { relation: BaseModel.HasOneRelation, modelClass: Invoice, join: { from: 'opportunities.id', to: 'invoices.opportunity_id' } },
    };
  }
}

/** An event line buys `quantity` places; a stock-item line is a child of an event line. */
export class OpportunityLine extends BaseModel {
  static override tableName = 'opportunity_lines';

  declare id: number;
  declare opportunity_id: number;
  declare position: number;
  declare kind: 'event' | 'stock_item';
  declare event_id: number | null;
  declare stock_item_id: number | null;
  declare parent_line_id: number | null;
  declare contact_id: number | null;
  declare student_ids: number[];
  declare quantity: number;
  declare unit_price: string;

  declare stockItem?: StockItem;

  static override get relationMappings() {
    return {
      stockItem: { relation: BaseModel.BelongsToOneRelation, modelClass: StockItem, join: { from: 'opportunity_lines.stock_item_id', to: 'stock_items.id' } },
    };
  }
}

/** What the registration step made of an order: its delegates point at it. */
export class Registration extends BaseModel {
  static override tableName = 'registrations';

  declare id: number;
  declare opportunity_id: number;
  declare contact_id: number;
  declare company_id: number | null;
  declare created_on: string;

  declare delegates?: Delegate[];

  static override get relationMappings() {
    return {
      delegates: { relation: BaseModel.HasManyRelation, modelClass: Delegate, join: { from: 'registrations.id', to: 'delegates.registration_id' } },
    };
  }
}

export class Invoice extends BaseModel {
  static override tableName = 'invoices';

  declare id: number;
  declare opportunity_id: number;
  declare registration_id: number | null;
  declare contact_id: number;
  declare company_id: number | null;
  declare currency: string | null;
  declare total: string;
  declare amount_paid: string;
  declare status: InvoiceStatus;
  declare created_on: string;

  declare lines?: InvoiceLine[];
  declare payments?: Payment[];

  static override get relationMappings() {
    return {
      lines: { relation: BaseModel.HasManyRelation, modelClass: InvoiceLine, join: { from: 'invoices.id', to: 'invoice_lines.invoice_id' } },
      payments: { relation: BaseModel.HasManyRelation, modelClass: Payment, join: { from: 'invoices.id', to: 'payments.invoice_id' } },
    };
  }
}

export class InvoiceLine extends BaseModel {
  static override tableName = 'invoice_lines';

  declare id: number;
  declare invoice_id: number;
  declare position: number;
  declare description: string;
  declare event_id: number | null;
  declare stock_item_id: number | null;
  declare quantity: number;
  declare unit_price: string;
  declare amount: string;
}

export class Payment extends BaseModel {
  static override tableName = 'payments';

  declare id: number;
  declare invoice_id: number;
  declare payment_type_id: number;
  declare amount: string;
  declare currency: string | null;
  declare transaction_code: string | null;
  declare received_on: string;

  declare paymentType?: PaymentType;

  static override get relationMappings() {
    return {
      paymentType: { relation: BaseModel.BelongsToOneRelation, modelClass: PaymentType, join: { from: 'payments.payment_type_id', to: 'payment_types.id' } },
    };
  }
}

/** Rows as PostgreSQL returns them: the models' columns, without Objection's methods. */
export type OpportunityRow = ModelObject<Opportunity>;
export type OpportunityLineRow = ModelObject<OpportunityLine>;
export type RegistrationRow = ModelObject<Registration>;
export type InvoiceRow = ModelObject<Invoice>;
export type InvoiceLineRow = ModelObject<InvoiceLine>;
export type PaymentRow = ModelObject<Payment>;
export type StockItemRow = ModelObject<StockItem>;
export type PaymentTypeRow = ModelObject<PaymentType>;


// ---------------------------------------------------------------------------------------------
// The read model: an order and what the worker made of it, read by batches of ids so that
// GraphQL's loaders and the ops views (`orders:show`, `orders:list`) read the same rows the same way.

/** Orders by id. */
export function opportunitiesByIds(db: Db, ids: readonly number[]): Promise<OpportunityRow[]> {
  return db(Opportunity.tableName).whereIn('id', ids as number[]);
}

/** The lines of these orders, in line order. */
export function linesOfOpportunities(db: Db, opportunityIds: readonly number[]): Promise<OpportunityLineRow[]> {
  return db(OpportunityLine.tableName).whereIn('opportunity_id', opportunityIds as number[]).orderBy('position');
}

/** The registrations of these orders (at most one each). */
export function registrationsOfOpportunities(db: Db, opportunityIds: readonly number[]): Promise<RegistrationRow[]> {
  return db(Registration.tableName).whereIn('opportunity_id', opportunityIds as number[]).orderBy('id');
}

/** Invoices by id. */
export function invoicesByIds(db: Db, ids: readonly number[]): Promise<InvoiceRow[]> {
  return db(Invoice.tableName).whereIn('id', ids as number[]);
}

/** The invoices of these orders (at most one each). */
export function invoicesOfOpportunities(db: Db, opportunityIds: readonly number[]): Promise<InvoiceRow[]> {
  return db(Invoice.tableName).whereIn('opportunity_id', opportunityIds as number[]).orderBy('id');
}

/** The lines of these invoices, in line order. */
export function linesOfInvoices(db: Db, invoiceIds: readonly number[]): Promise<InvoiceLineRow[]> {
  return db(InvoiceLine.tableName).whereIn('invoice_id', invoiceIds as number[]).orderBy('position');
}

/** The payments of these invoices, oldest first. */
export function paymentsOfInvoices(db: Db, invoiceIds: readonly number[]): Promise<PaymentRow[]> {
  return db(Payment.tableName).whereIn('invoice_id', invoiceIds as number[]).orderBy('id');
}

/** Stock items by id. */
export function stockItemsByIds(db: Db, ids: readonly number[]): Promise<StockItemRow[]> {
  return db(StockItem.tableName).whereIn('id', ids as number[]);
}

/** Payment types by id. */
export function paymentTypesByIds(db: Db, ids: readonly number[]): Promise<PaymentTypeRow[]> {
  return db(PaymentType.tableName).whereIn('id', ids as number[]);
}

export type OpportunitySummaryRow = Pick<Opportunity, 'id' | 'state' | 'external_id' | 'contact_id' | 'failure_reason' | 'created_on'>;

/** Orders, newest first, optionally by external id or state. */
export function listOpportunities(db: Db, filter: { externalId?: string; state?: string; limit?: number }): Promise<OpportunitySummaryRow[]> {
  const q = db(Opportunity.tableName).orderBy('id', 'desc').limit(filter.limit ?? 100);
  if (filter.externalId !== undefined) q.where({ external_id: filter.externalId });
  if (filter.state !== undefined) q.where({ state: filter.state });
  return q.select('id', 'state', 'external_id', 'contact_id', 'failure_reason', 'created_on');
}

// ---------------------------------------------------------------------------------------------
// Intake (contract: "Create an order").

/**
 * Which of the given contacts, events and stock items exist, the order's company, and the
 * tenant's payment type of that name, in one statement. `company`: the body's company id (only
 * that one counts), or the fallback (the API user's company, else the lowest id).
 */
export async function lookUpReferences(
  db: Db,
  ask: { contactIds: number[]; company: { id: number } | { fallback: number }; paymentTypeName: string | null; eventIds: number[]; stockIds: number[] },
): Promise<References> {
  const company = 'id' in ask.company
    ? '(select id from companies where id = ?)'
    : 'coalesce((select id from companies where id = ?), (select min(id) from companies))';
  const { rows } = await db.raw<{ rows: { contacts: number[]; company_id: number | null; payment_type_id: number | null; events: number[]; stock: [number, string][] }[] }>(
    `select array(select id from contacts where id = any(?::int[])) as contacts,
            ${company} as company_id,
            (select id from payment_types where lower(name) = lower(?)) as payment_type_id,
            array(select id from events where id = any(?::int[])) as events,
            coalesce((select json_agg(json_build_array(id, price::text)) from stock_items where id = any(?::int[])), '[]'::json) as stock`,
    [ask.contactIds, 'id' in ask.company ? ask.company.id : ask.company.fallback, ask.paymentTypeName, ask.eventIds, ask.stockIds],
  );
  const r = rows[0]!;
  return { contacts: new Set(r.contacts), companyId: r.company_id, paymentTypeId: r.payment_type_id, events: new Set(r.events), stock: new Map(r.stock) };
}

export type OpportunityKeyRow = Pick<Opportunity, 'id' | 'state' | 'request_hash' | 'retries' | 'released_on'>;

/** The order a user placed under an Idempotency-Key, if any. */
export function opportunityByIdempotencyKey(db: Db, userId: number | null, idempotencyKey: string | undefined): Promise<OpportunityKeyRow | undefined> {
  return db(Opportunity.tableName).where({ created_by_user_id: userId, idempotency_key: idempotencyKey }).first<OpportunityKeyRow | undefined>();
}

export type NewOpportunity = Pick<
  Opportunity,
  | 'contact_id' | 'company_id' | 'external_id' | 'region_id' | 'currency_id' | 'source_type_id' | 'payment_type_name' | 'payment_type_id'
  | 'payment_amount' | 'payment_currency' | 'payment_transaction_code' | 'created_by_user_id' | 'idempotency_key' | 'request_hash'
> & { discarded: Discarded[] };

/**
 * Inserts an order in the REST initial state `received`; undefined when the user already has an
 * order under the same Idempotency-Key.
 */
export async function insertOpportunity(db: Db, row: NewOpportunity): Promise<{ id: number } | undefined> {
  const [opp] = await db(Opportunity.tableName)
    .insert({ state: 'received', ...row, discarded: JSON.stringify(row.discarded) })
    // Two requests racing with one key: the second waits for the first to commit, inserts
    // nothing here, and answers the first one's order (see placeOrder).
    .onConflict(['created_by_user_id', 'idempotency_key'])
    .ignore()
    .returning<{ id: number }[]>('id');
  return opp;
}

export type NewEventLine = Pick<OpportunityLine, 'opportunity_id' | 'position' | 'event_id' | 'contact_id' | 'student_ids' | 'quantity' | 'unit_price'>;
export type NewStockLine = Pick<OpportunityLine, 'opportunity_id' | 'position' | 'stock_item_id' | 'parent_line_id' | 'quantity' | 'unit_price'>;

/** Inserts the order's place-buying lines in one statement; their ids by position. */
export async function insertEventLines(db: Db, lines: NewEventLine[]): Promise<Map<number, number>> {
  const inserted = await db(OpportunityLine.tableName)
    .insert(lines.map((l) => ({ opportunity_id: l.opportunity_id, position: l.position, kind: 'event', event_id: l.event_id, contact_id: l.contact_id, student_ids: l.student_ids, quantity: l.quantity, unit_price: l.unit_price })))
    .returning<{ id: number; position: number }[]>(['id', 'position']);
  return new Map(inserted.map((r) => [r.position, r.id]));
}

/** Inserts the stock items sold with the order's event lines, in one statement. */
export async function insertStockLines(db: Db, lines: NewStockLine[]): Promise<void> {
  await db(OpportunityLine.tableName).insert(
    lines.map((l) => ({ opportunity_id: l.opportunity_id, position: l.position, kind: 'stock_item', stock_item_id: l.stock_item_id, parent_line_id: l.parent_line_id, quantity: l.quantity, unit_price: l.unit_price })),
  );
}

// ---------------------------------------------------------------------------------------------
// Ops: release and retry.

/** The order locked for a change of state, or undefined. */
export function lockOpportunity(db: Db, id: number): Promise<OpportunityRow | undefined> {
  return db(Opportunity.tableName).where({ id }).forUpdate().first<OpportunityRow | undefined>();
}

/** Releases an order held by the manual workflow. */
export async function markReleased(db: Db, id: number): Promise<void> {
  await db(Opportunity.tableName).where({ id }).update({ state: 'released', released_on: utcNow(db), updated_on: utcNow(db) });
}

/** Whether the order has its registration. */
export async function hasRegistration(db: Db, opportunityId: number): Promise<boolean> {
  return (await db(Registration.tableName).where({ opportunity_id: opportunityId }).first('id')) !== undefined;
}

/** Puts a failed order back in `state` for another run, its failure forgotten and `retries` counted. */
export async function markRetried(db: Db, id: number, state: OpportunityState, retries: number): Promise<void> {
  await db(Opportunity.tableName).where({ id }).update({ state, failure_code: null, failure_reason: null, failed_on: null, retries, updated_on: utcNow(db) });
}

// ---------------------------------------------------------------------------------------------
// The worker's steps (see order-processing.service.ts).

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
  if (state === 'awaiting_release') await db(Opportunity.tableName).where({ id: orderId }).update({ state, updated_on: utcNow(db) });
  else await db(Opportunity.tableName).where({ id: orderId }).update({ state, completed_on: state === 'completed' ? utcNow(db) : null, updated_on: utcNow(db) });
}

/** The registration and its delegates in one statement (delegates in the order given). */
export async function insertRegistration(db: Db, registration: Pick<Registration, 'opportunity_id' | 'contact_id' | 'company_id'>, delegates: NewDelegate[]): Promise<void> {
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
      invoice.opportunity_id, invoice.opportunity_id, invoice.contact_id, invoice.company_id, invoice.currency, invoice.total, invoice.amount_paid, invoice.status,
      JSON.stringify(lines),
      payment?.payment_type_id ?? null, payment?.amount ?? null, payment?.currency ?? null, payment?.transaction_code ?? null, payment !== null,
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

// ---------------------------------------------------------------------------------------------
// The tenant's payment types and stock items.

/** The payment type of this name in any case, if any. */
export function paymentTypeNamed(db: Db, name: string): Promise<Pick<PaymentType, 'id'> | undefined> {
  return db(PaymentType.tableName).whereRaw('lower(name) = lower(?)', [name]).first('id');
}

export async function insertPaymentType(db: Db, name: string): Promise<Pick<PaymentType, 'id' | 'name'>> {
  const [row] = await db(PaymentType.tableName).insert({ name }).returning<Pick<PaymentType, 'id' | 'name'>[]>(['id', 'name']);
  return row!;
}

export function listPaymentTypeRows(db: Db): Promise<Pick<PaymentType, 'id' | 'name'>[]> {
  return db(PaymentType.tableName).orderBy('id').select('id', 'name');
}

export async function insertStockItem(db: Db, row: Pick<StockItem, 'name' | 'price'>): Promise<Pick<StockItem, 'id' | 'name' | 'price'>> {
  const [inserted] = await db(StockItem.tableName).insert(row).returning<Pick<StockItem, 'id' | 'name' | 'price'>[]>(['id', 'name', 'price']);
  return inserted!;
}

export function listStockItemRows(db: Db): Promise<Pick<StockItem, 'id' | 'name' | 'price'>[]> {
  return db(StockItem.tableName).orderBy('id').select<Pick<StockItem, 'id' | 'name' | 'price'>[]>('id', 'name', 'price');
}
