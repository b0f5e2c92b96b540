import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';

/** Locations: the only file that names the `locations` table. Every function takes the transaction first. */

export class Location extends BaseModel {
  static override tableName = 'locations';

  declare id: number;
  declare name: string;
  declare address_street: string | null;
  declare address_town: string | null;
  declare address_postcode: string | null;
  /** ISO 3166-1 alpha-2, e.g. GB. */
  declare address_country_id: string | null;
  /** IANA zone of the place, e.g. Europe/London. */
  declare time_zone_name: string | null;
  declare created_on: string;
  declare updated_on: string;
}

export type LocationRow = Pick<Location, 'id' | 'name' | 'address_street' | 'address_town' | 'address_postcode' | 'address_country_id' | 'time_zone_name' | 'created_on' | 'updated_on'>;

export async function insertLocation(db: Db, columns: Omit<LocationRow, 'id' | 'created_on' | 'updated_on'>): Promise<LocationRow> {
  const [row] = (await db(Location.tableName).insert(columns).returning('*')) as LocationRow[];
  return row!;
}

/** Locations by id (a page's batch). */
export function locationRowsByIds(db: Db, ids: readonly number[]): Promise<LocationRow[]> {
  return db(Location.tableName).whereIn('id', ids as number[]);
}
