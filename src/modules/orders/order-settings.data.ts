import type { Db } from '../../platform/db/knex.js';
import { PaymentType, StockItem } from './orders.data.js';

/** The tenant's payment types and stock items (ops CLI, demo). */

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
  const [inserted] = await db(StockItem.tableName)
    .insert(row)
    .returning<Pick<StockItem, 'id' | 'name' | 'price'>[]>(['id', 'name', 'price']);
  return inserted!;
}

export function listStockItemRows(db: Db): Promise<Pick<StockItem, 'id' | 'name' | 'price'>[]> {
  return db(StockItem.tableName).orderBy('id').select<Pick<StockItem, 'id' | 'name' | 'price'>[]>('id', 'name', 'price');
}
