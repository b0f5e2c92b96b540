import type { Db } from '../../platform/db/knex.js';
import { NotFoundError } from '../../platform/errors.js';
import { delegatesOfRegistrations } from '../delegates/index.js';
import {
  invoicesOfOpportunities,
  linesOfInvoices,
  linesOfOpportunities,
  listOpportunities,
  opportunitiesByIds,
  paymentsOfInvoices,
  registrationsOfOpportunities,
} from './order-views.data.js';

/**
 * How an order stands, for ops (`orders:show`, `orders:list`): its state, lines, registration
 * with delegates, invoice with lines and payments, and any failure. Read through the same read
 * model (orders.data.ts) as GraphQL's Opportunity, shaped for ops.
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
  lines: {
    id: number;
    kind: string;
    eventId: number | null;
    stockItemId: number | null;
    parentLineId: number | null;
    contactId: number | null;
    studentIds: number[];
    quantity: number;
    unitPrice: number;
  }[];
  discarded: { path: string; id: number | null; reason: string }[];
  registration: { id: number; delegates: { id: number; eventId: number; contactId: number | null; numPlaces: number | null }[] } | null;
  invoice: {
    id: number;
    currency: string | null;
    total: number;
    amountPaid: number;
    status: string;
    lines: {
      position: number;
      description: string;
      eventId: number | null;
      stockItemId: number | null;
      quantity: number;
      unitPrice: number;
      amount: number;
    }[];
    payments: {
      id: number;
      paymentTypeId: number;
      amount: number;
      currency: string | null;
      transactionCode: string | null;
      receivedOn: string;
    }[];
  } | null;
  failure: { code: string | null; reason: string; failedOn: string | null } | null;
  retries: number;
  createdOn: string;
  releasedOn: string | null;
  completedOn: string | null;
}

export async function showOrder(db: Db, orderId: number): Promise<OrderView> {
  const [o] = await opportunitiesByIds(db, [orderId]);
  if (!o) throw new NotFoundError(`Order ${orderId} does not exist`, 'order_not_found');
  const lines = await linesOfOpportunities(db, [orderId]);
  const [registration] = await registrationsOfOpportunities(db, [orderId]);
  const delegates = registration ? await delegatesOfRegistrations(db, [registration.id]) : [];
  const [invoice] = await invoicesOfOpportunities(db, [orderId]);
  const invoiceLines = invoice ? await linesOfInvoices(db, [invoice.id]) : [];
  const payments = invoice ? await paymentsOfInvoices(db, [invoice.id]) : [];
  return {
    id: o.id,
    state: o.state,
    externalId: o.external_id,
    contactId: o.contact_id,
    companyId: o.company_id,
    regionId: o.region_id,
    currencyId: o.currency_id,
    sourceTypeId: o.source_type_id,
    payment:
      o.payment_type_name === null
        ? null
        : {
            type: o.payment_type_name,
            paymentTypeId: o.payment_type_id,
            amount: Number(o.payment_amount),
            currency: o.payment_currency,
            transactionCode: o.payment_transaction_code,
          },
    lines: lines.map((l) => ({
      id: l.id,
      kind: l.kind,
      eventId: l.event_id,
      stockItemId: l.stock_item_id,
      parentLineId: l.parent_line_id,
      contactId: l.contact_id,
      studentIds: l.student_ids,
      quantity: l.quantity,
      unitPrice: Number(l.unit_price),
    })),
    discarded: o.discarded,
    registration: registration
      ? {
          id: registration.id,
          delegates: delegates.map((d) => ({ id: d.id, eventId: d.event_id, contactId: d.contact_id, numPlaces: d.num_places })),
        }
      : null,
    invoice: invoice
      ? {
          id: invoice.id,
          currency: invoice.currency,
          total: Number(invoice.total),
          amountPaid: Number(invoice.amount_paid),
          status: invoice.status,
          lines: invoiceLines.map((l) => ({
            position: l.position,
            description: l.description,
            eventId: l.event_id,
            stockItemId: l.stock_item_id,
            quantity: l.quantity,
            unitPrice: Number(l.unit_price),
            amount: Number(l.amount),
          })),
          payments: payments.map((p) => ({
            id: p.id,
            paymentTypeId: p.payment_type_id,
            amount: Number(p.amount),
            currency: p.currency,
            transactionCode: p.transaction_code,
            receivedOn: p.received_on,
          })),
        }
      : null,
    failure: o.state === 'failed' ? { code: o.failure_code, reason: o.failure_reason!, failedOn: o.failed_on } : null,
    retries: o.retries,
    createdOn: o.created_on,
    releasedOn: o.released_on,
    completedOn: o.completed_on,
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
  const rows = await listOpportunities(db, filter);
  return rows.map((r) => ({
    id: r.id,
    state: r.state,
    externalId: r.external_id,
    contactId: r.contact_id,
    failureReason: r.failure_reason,
    createdOn: r.created_on,
  }));
}
