import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';

/** Tax types: the only file that names the `tax_types` table. Every function takes the transaction first. */

export class TaxType extends BaseModel {
  static override tableName = 'tax_types';

  declare id: number;
  declare name: string;
  /** Percent, e.g. 20.000 for 20 % (NUMERIC: a string in JS). */
  declare rate: string;
  declare created_on: string;
}

/** The rows a foreign key of another table points at, for the REST engine's existence check (`tax type 7 does not exist`): all the access to the table it gives. */
export const TAX_TYPE_ROWS = { table: TaxType.tableName, label: 'tax type' } as const;

export type TaxTypeRow = Pick<TaxType, 'id' | 'name' | 'rate' | 'created_on'>;

export async function insertTaxType(db: Db, columns: { name: string; rate: number }): Promise<TaxTypeRow> {
  const [row] = (await db(TaxType.tableName).insert(columns).returning('*')) as TaxTypeRow[];
  return row!;
}

/** Tax types by id (a page's batch). */
export function taxTypesByIds(db: Db, ids: readonly number[]): Promise<TaxTypeRow[]> {
  return db(TaxType.tableName).whereIn('id', ids as number[]);
}
