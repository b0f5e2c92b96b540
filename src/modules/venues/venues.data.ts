import type { ModelObject } from 'objection';
import type { Db, Knex } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import { BaseModel } from '../../platform/db/model.js';

/**
 * Venues: where in a location events and sessions meet (a building, a room). The only file that
 * names the `venues` table. Every function takes the transaction first.
 */

export class Venue extends BaseModel {
  static override tableName = 'venues';

  declare id: number;
  declare name: string;
  declare description: string | null;
  /** The location it is in; null: none. */
  declare location_id: number | null;
  declare created_on: string;
  declare updated_on: string;
}

/** The rows a foreign key of another table points at, for the REST engine's existence check (`venue 7 does not exist`): all the access to the table it gives. */
export const VENUE_ROWS = { table: Venue.tableName, label: 'venue' } as const;

export type VenueRow = ModelObject<Venue>;

/** The columns a write sets. */
export type VenueColumns = Partial<Pick<VenueRow, 'name' | 'description' | 'location_id'>>;

export async function insertVenue(db: Db, columns: VenueColumns & Pick<VenueRow, 'name'>): Promise<VenueRow> {
  const [row] = (await db(Venue.tableName).insert(columns).returning('*')) as VenueRow[];
  return row!;
}

/** Changes the columns given and records the time of the change. */
export async function updateVenue(db: Db, id: number, columns: VenueColumns): Promise<VenueRow> {
  const [row] = (await db(Venue.tableName)
    .where({ id })
    .update({ ...columns, updated_on: utcNow(db) })
    .returning('*')) as VenueRow[];
  return row!;
}

/** One venue, locked for a write (undefined when there is none). */
export function lockVenue(db: Db, id: number): Promise<VenueRow | undefined> {
  return db(Venue.tableName).where({ id }).forUpdate().first<VenueRow | undefined>();
}

/** Venues by id (a page's batch). */
export function venueRowsByIds(db: Db, ids: readonly number[]): Promise<VenueRow[]> {
  return db(Venue.tableName).whereIn('id', ids as number[]);
}

/** Conditions on a venue `t` of the `venues` list. */
export const venueListConditions = {
  /** Its name matches every one of `patterns` (PostgreSQL regular expressions, any case); none: nothing matches. */
  nameMatchesAll(q: Knex.QueryBuilder, patterns: readonly string[]): void {
    if (!patterns.length) q.whereRaw('false');
    for (const pattern of patterns) q.whereRaw('t.name ~* ?', [pattern]);
  },
};
