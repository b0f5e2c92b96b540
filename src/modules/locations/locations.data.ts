import type { Db } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import { BaseModel } from '../../platform/db/model.js';

/**
 * Locations: the only file that names the `locations` table. Every function takes the transaction
 * first. A location's region is a region of the pricing module (pricing.data.ts reads them).
 */

export class Location extends BaseModel {
  static override tableName = 'locations';

  declare id: number;
  declare name: string;
  /** A short code of the place (e.g. LON), as integrations look it up; not unique. */
  declare code: string | null;
  declare address_street: string | null;
  declare address_town: string | null;
  declare address_postcode: string | null;
  /** ISO 3166-1 alpha-2, e.g. GB. */
  declare address_country_id: string | null;
  /** IANA zone of the place, e.g. Europe/London. */
  declare time_zone_name: string | null;
  /** The region it is in (the regions of prices); null: none. */
  declare region_id: number | null;
  declare created_on: string;
  declare updated_on: string;
}

export type LocationRow = Pick<
  Location,
  | 'id'
  | 'name'
  | 'code'
  | 'address_street'
  | 'address_town'
  | 'address_postcode'
  | 'address_country_id'
  | 'time_zone_name'
  | 'region_id'
  | 'created_on'
  | 'updated_on'
>;

/** The columns a write sets. */
export type LocationColumns = Partial<Omit<LocationRow, 'id' | 'created_on' | 'updated_on'>>;

/** Inserts a location with the columns given (the others take their defaults). */
export async function insertLocation(db: Db, columns: LocationColumns & Pick<LocationRow, 'name'>): Promise<LocationRow> {
  const [row] = (await db(Location.tableName).insert(columns).returning('*')) as LocationRow[];
  return row!;
}

/** Changes the columns given; undefined when there is no such location. */
export async function updateLocation(db: Db, id: number, columns: LocationColumns): Promise<LocationRow | undefined> {
  const [row] = (await db(Location.tableName)
    .where({ id })
    .update({ ...columns, updated_on: utcNow(db) })
    .returning('*')) as LocationRow[];
  return row;
}

/** One location, locked for a write (undefined when there is none). */
export function lockLocation(db: Db, id: number): Promise<LocationRow | undefined> {
  return db(Location.tableName).where({ id }).forUpdate().first<LocationRow | undefined>();
}

/** Locations by id (a page's batch). */
export function locationRowsByIds(db: Db, ids: readonly number[]): Promise<LocationRow[]> {
  return db(Location.tableName).whereIn('id', ids as number[]);
}
