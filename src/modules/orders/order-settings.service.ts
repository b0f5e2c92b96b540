import type { Db } from '../../platform/db/knex.js';
import { ConflictError, ValidationError } from '../../platform/errors.js';
import type { Problem } from '../../platform/problems.js';
import { orderSettingsRow, updateSettings, type SettingsChange } from '../../platform/tenancy/settings.data.js';
import { centsToDecimal, toCents } from './money.js';
import { insertPaymentType, insertStockItem, listPaymentTypeRows, listStockItemRows, paymentTypeNamed } from './order-settings.data.js';
import { orderWorkflowProblems, paymentTypeProblems, stockItemProblems, type OrderWorkflow } from './orders.rules.js';

/**
 * A tenant's order setup: the workflow REST orders follow from their initial state, the opt-in
 * capacity check, the payment types it accepts and the stock items orders can add to places.
 */
export type { OrderWorkflow };

export interface OrderSettings {
  orderWorkflow: OrderWorkflow;
  preventOverbooking: boolean;
}

/** The problems as `details.fields` of a ValidationError: the field, and the message without its name. */
function fieldsOf(problems: readonly Problem[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const p of problems) fields[p.field] ??= p.message.startsWith(`${p.field} `) ? p.message.slice(p.field.length + 1) : p.message;
  return fields;
}

export async function getOrderSettings(db: Db): Promise<OrderSettings> {
  const row = await orderSettingsRow(db);
  return { orderWorkflow: row.order_workflow, preventOverbooking: row.prevent_overbooking };
}

/** Changes the given settings; the others stay as they are. */
export async function configureOrders(db: Db, change: Partial<OrderSettings>): Promise<OrderSettings> {
  const update: SettingsChange = {};
  if (change.orderWorkflow !== undefined) {
    const problems = orderWorkflowProblems(change.orderWorkflow);
    if (problems.length) throw new ValidationError('order workflow must be automatic or manual', { fields: fieldsOf(problems) });
    update.order_workflow = change.orderWorkflow;
  }
  if (change.preventOverbooking !== undefined) update.prevent_overbooking = change.preventOverbooking;
  await updateSettings(db, update);
  return getOrderSettings(db);
}

export interface PaymentType {
  id: number;
  name: string;
}

/** Adds a payment type; orders whose `payment.type` matches it (case-insensitively) get a payment method. */
export async function createPaymentType(db: Db, name: string): Promise<PaymentType> {
  const clean = name.trim();
  const problems = paymentTypeProblems(clean);
  if (problems.length) throw new ValidationError('payment type name must be 1 to 100 characters', { fields: fieldsOf(problems) });
  const existing = await paymentTypeNamed(db, clean);
  if (existing) throw new ConflictError(`Payment type '${clean}' already exists`, 'payment_type_exists');
  return insertPaymentType(db, clean);
}

export const listPaymentTypes = (db: Db): Promise<PaymentType[]> => listPaymentTypeRows(db);

export interface StockItem {
  id: number;
  name: string;
  price: number;
}

/** Adds a stock item (a course book, a lunch) that order items can carry as `children`. */
export async function createStockItem(db: Db, input: { name: string; price: number }): Promise<StockItem> {
  const name = input.name.trim();
  const problems = stockItemProblems({ name, price: input.price });
  if (problems.length) throw new ValidationError('stock item is not valid', { fields: fieldsOf(problems) });
  const row = await insertStockItem(db, { name, price: centsToDecimal(toCents(input.price)) });
  return { id: row.id, name: row.name, price: Number(row.price) };
}

export async function listStockItems(db: Db): Promise<StockItem[]> {
  const rows = await listStockItemRows(db);
  return rows.map((r) => ({ id: r.id, name: r.name, price: Number(r.price) }));
}
