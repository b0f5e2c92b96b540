import type { Db } from '../../platform/db/knex.js';
import {
  PaymentType,
  StockItem,
  Opportunity,
  OpportunityLine,
  Registration,
  Invoice,
  InvoiceLine,
  Payment,
  type OpportunityRow,
  type OpportunityLineRow,
  type RegistrationRow,
  type InvoiceRow,
  type InvoiceLineRow,
  type PaymentRow,
  type StockItemRow,
  type PaymentTypeRow,
} from './orders.data.js';

/**
 * Orders' read model: an order and what the worker made of it, read by batches of ids, so GraphQL's
 * loaders and the ops views (`orders:show`, `orders:list`) read the same rows the same way.
 */

/** Orders by id. */
export function opportunitiesByIds(db: Db, ids: readonly number[]): Promise<OpportunityRow[]> {
  return db(Opportunity.tableName).whereIn('id', ids as number[]);
}

/** The lines of these orders, in line order. */
export function linesOfOpportunities(db: Db, opportunityIds: readonly number[]): Promise<OpportunityLineRow[]> {
  return db(OpportunityLine.tableName)
    .whereIn('opportunity_id', opportunityIds as number[])
    .orderBy('position');
}

/** The registrations of these orders (at most one each). */
export function registrationsOfOpportunities(db: Db, opportunityIds: readonly number[]): Promise<RegistrationRow[]> {
  return db(Registration.tableName)
    .whereIn('opportunity_id', opportunityIds as number[])
    .orderBy('id');
}

/** Invoices by id. */
export function invoicesByIds(db: Db, ids: readonly number[]): Promise<InvoiceRow[]> {
  return db(Invoice.tableName).whereIn('id', ids as number[]);
}

/** The invoices of these orders (at most one each). */
export function invoicesOfOpportunities(db: Db, opportunityIds: readonly number[]): Promise<InvoiceRow[]> {
  return db(Invoice.tableName)
    .whereIn('opportunity_id', opportunityIds as number[])
    .orderBy('id');
}

/** The lines of these invoices, in line order. */
export function linesOfInvoices(db: Db, invoiceIds: readonly number[]): Promise<InvoiceLineRow[]> {
  return db(InvoiceLine.tableName)
    .whereIn('invoice_id', invoiceIds as number[])
    .orderBy('position');
}

/** The payments of these invoices, oldest first. */
export function paymentsOfInvoices(db: Db, invoiceIds: readonly number[]): Promise<PaymentRow[]> {
  return db(Payment.tableName)
    .whereIn('invoice_id', invoiceIds as number[])
    .orderBy('id');
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
export function listOpportunities(
  db: Db,
  filter: { externalId?: string; state?: string; limit?: number },
): Promise<OpportunitySummaryRow[]> {
  const q = db(Opportunity.tableName)
    .orderBy('id', 'desc')
    .limit(filter.limit ?? 100);
  if (filter.externalId !== undefined) q.where({ external_id: filter.externalId });
  if (filter.state !== undefined) q.where({ state: filter.state });
  return q.select('id', 'state', 'external_id', 'contact_id', 'failure_reason', 'created_on');
}
