import type { Db } from '../../platform/db/knex.js';
import { NotFoundError } from '../../platform/errors.js';

/**
 * How an order stands, for ops (`orders:show`, `orders:list`) and, later, GraphQL: its state,
 * lines, registration with delegates, invoice with lines and payments, and any failure.
 */
export interface OrderView {
  id: number;
  state: string;
  externalId: string | null;
  contactId: number;
  companyId: number | null;
  regionId: string | null;
  currencyId: string | null;
  sourceTypeId: number | null;
  payment: { type: string; paymentTypeId: number | null; amount: number; currency: string | null; transactionCode: string | null } | null;
  lines: { id: number; kind: string; eventId: number | null; stockItemId: number | null; parentLineId: number | null; contactId: number | null; studentIds: number[]; quantity: number; unitPrice: number }[];
  discarded: { path: string; id: number | null; reason: string }[];
  registration: { id: number; delegates: { id: number; eventId: number; contactId: number | null; numPlaces: number | null }[] } | null;
  invoice: {
    id: number;
    currency: string | null;
    total: number;
    amountPaid: number;
    status: string;
    lines: { position: number; description: string; eventId: number | null; stockItemId: number | null; quantity: number; unitPrice: number; amount: number }[];
    payments: { id: number; paymentTypeId: number; amount: number; currency: string | null; transactionCode: string | null; receivedOn: string }[];
  } | null;
  failure: { code: string | null; reason: string; failedOn: string | null } | null;
  retries: number;
  createdOn: string;
  releasedOn: string | null;
  completedOn: string | null;
}

type Row = Record<string, unknown>;

export async function showOrder(db: Db, orderId: number): Promise<OrderView> {
  const o = await db('opportunities').where({ id: orderId }).first<Row | undefined>();
  if (!o) throw new NotFoundError(`Order ${orderId} does not exist`, 'order_not_found');
  const lines = await db('opportunity_lines').where({ opportunity_id: orderId }).orderBy('position');
  const registration = await db('registrations').where({ opportunity_id: orderId }).first<Row | undefined>();
  const delegates = registration ? await db('delegates').where({ registration_id: registration.id }).orderBy('id') : [];
  const invoice = await db('invoices').where({ opportunity_id: orderId }).first<Row | undefined>();
  const invoiceLines = invoice ? await db('invoice_lines').where({ invoice_id: invoice.id }).orderBy('position') : [];
  const payments = invoice ? await db('payments').where({ invoice_id: invoice.id }).orderBy('id') : [];
  return {
    id: o.id as number,
    state: o.state as string,
    externalId: o.external_id as string | null,
    contactId: o.contact_id as number,
    companyId: o.company_id as number | null,
    regionId: o.region_id as string | null,
    currencyId: o.currency_id as string | null,
    sourceTypeId: o.source_type_id as number | null,
    payment: o.payment_type_name === null
      ? null
      : {
          type: o.payment_type_name as string,
          paymentTypeId: o.payment_type_id as number | null,
          amount: Number(o.payment_amount),
          currency: o.payment_currency as string | null,
          transactionCode: o.payment_transaction_code as string | null,
        },
    lines: lines.map((l: Row) => ({
      id: l.id as number,
      kind: l.kind as string,
      eventId: l.event_id as number | null,
      stockItemId: l.stock_item_id as number | null,
      parentLineId: l.parent_line_id as number | null,
      contactId: l.contact_id as number | null,
      studentIds: l.student_ids as number[],
      quantity: l.quantity as number,
      unitPrice: Number(l.unit_price),
    })),
    discarded: o.discarded as OrderView['discarded'],
    registration: registration
      ? {
          id: registration.id as number,
          delegates: delegates.map((d: Row) => ({ id: d.id as number, eventId: d.event_id as number, contactId: d.contact_id as number | null, numPlaces: d.num_places as number | null })),
        }
      : null,
    invoice: invoice
      ? {
          id: invoice.id as number,
          currency: invoice.currency as string | null,
          total: Number(invoice.total),
          amountPaid: Number(invoice.amount_paid),
          status: invoice.status as string,
          lines: invoiceLines.map((l: Row) => ({
            position: l.position as number,
            description: l.description as string,
            eventId: l.event_id as number | null,
            stockItemId: l.stock_item_id as number | null,
            quantity: l.quantity as number,
            unitPrice: Number(l.unit_price),
            amount: Number(l.amount),
          })),
          payments: payments.map((p: Row) => ({
            id: p.id as number,
            paymentTypeId: p.payment_type_id as number,
            amount: Number(p.amount),
            currency: p.currency as string | null,
            transactionCode: p.transaction_code as string | null,
            receivedOn: p.received_on as string,
          })),
        }
      : null,
    failure: o.state === 'failed' ? { code: o.failure_code as string | null, reason: o.failure_reason as string, failedOn: o.failed_on as string | null } : null,
    retries: o.retries as number,
    createdOn: o.created_on as string,
    releasedOn: o.released_on as string | null,
    completedOn: o.completed_on as string | null,
  };
}

export interface OrderSummary {
  id: number;
  state: string;
  externalId: string | null;
  contactId: number;
  failureReason: string | null;
  createdOn: string;
}

/** Orders, newest first, optionally by external id or state. */
export async function listOrders(db: Db, filter: { externalId?: string; state?: string; limit?: number }): Promise<OrderSummary[]> {
  const q = db('opportunities').orderBy('id', 'desc').limit(filter.limit ?? 100);
  if (filter.externalId !== undefined) q.where({ external_id: filter.externalId });
  if (filter.state !== undefined) q.where({ state: filter.state });
  const rows = await q.select('id', 'state', 'external_id', 'contact_id', 'failure_reason', 'created_on');
  return rows.map((r: Row) => ({
    id: r.id as number,
    state: r.state as string,
    externalId: r.external_id as string | null,
    contactId: r.contact_id as number,
    failureReason: r.failure_reason as string | null,
    createdOn: r.created_on as string,
  }));
}
