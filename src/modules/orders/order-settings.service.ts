import type { Db } from '../../platform/db/knex.js';
import { ConflictError, ValidationError } from '../../platform/errors.js';
import { centsToDecimal, toCents } from './money.js';

/**
 * A tenant's order setup: the workflow REST orders follow from their initial state, the opt-in
 * capacity check, the payment types it accepts and the stock items orders can add to places.
 */
export type OrderWorkflow = 'automatic' | 'manual';

export interface OrderSettings {
  orderWorkflow: OrderWorkflow;
  preventOverbooking: boolean;
}

export async function getOrderSettings(db: Db): Promise<OrderSettings> {
  const row = await db('settings').first<{ order_workflow: OrderWorkflow; prevent_overbooking: boolean }>('order_workflow', 'prevent_overbooking');
  return { orderWorkflow: row.order_workflow, preventOverbooking: row.prevent_overbooking };
}

/** Changes the given settings; the others stay as they are. */
export async function configureOrders(db: Db, change: Partial<OrderSettings>): Promise<OrderSettings> {
  const update: Record<string, unknown> = {};
  if (change.orderWorkflow !== undefined) {
    if (change.orderWorkflow !== 'automatic' && change.orderWorkflow !== 'manual') {
      throw new ValidationError('order workflow must be automatic or manual', { fields: { orderWorkflow: 'must be automatic or manual' } });
    }
    update.order_workflow = change.orderWorkflow;
  }
  if (change.preventOverbooking !== undefined) update.prevent_overbooking = change.preventOverbooking;
  if (Object.keys(update).length) await db('settings').update(update);
  return getOrderSettings(db);
}

export interface PaymentType {
  id: number;
  name: string;
}

/** Adds a payment type; orders whose `payment.type` matches it (case-insensitively) get a payment method. */
export async function createPaymentType(db: Db, name: string): Promise<PaymentType> {
  const clean = name.trim();
  if (!clean || clean.length > 100 || clean.includes('\u0000')) {
    throw new ValidationError('payment type name must be 1 to 100 characters', { fields: { name: 'must be 1 to 100 characters' } });
  }
  const existing = await db('payment_types').whereRaw('lower(name) = lower(?)', [clean]).first('id');
  if (existing) throw new ConflictError(`Payment type '${clean}' already exists`, 'payment_type_exists');
  const [row] = await db('payment_types').insert({ name: clean }).returning<PaymentType[]>(['id', 'name']);
  return row!;
}

export const listPaymentTypes = (db: Db): Promise<PaymentType[]> => db('payment_types').orderBy('id').select('id', 'name');

export interface StockItem {
  id: number;
  name: string;
  price: number;
}

/** Adds a stock item (a course book, a lunch) that order items can carry as `children`. */
export async function createStockItem(db: Db, input: { name: string; price: number }): Promise<StockItem> {
  const name = input.name.trim();
  const fields: Record<string, string> = {};
  if (!name || name.length > 255 || name.includes('\u0000')) fields.name = 'must be 1 to 255 characters';
  if (!Number.isFinite(input.price) || input.price < 0 || input.price > 999999999999.99) fields.price = 'must be a number from 0 to 999999999999.99';
  if (Object.keys(fields).length) throw new ValidationError('stock item is not valid', { fields });
  const [row] = await db('stock_items').insert({ name, price: centsToDecimal(toCents(input.price)) }).returning<{ id: number; name: string; price: string }[]>(['id', 'name', 'price']);
  return { id: row!.id, name: row!.name, price: Number(row!.price) };
}

export async function listStockItems(db: Db): Promise<StockItem[]> {
  const rows = await db('stock_items').orderBy('id').select<{ id: number; name: string; price: string }[]>('id', 'name', 'price');
  return rows.map((r) => ({ id: r.id, name: r.name, price: Number(r.price) }));
}
