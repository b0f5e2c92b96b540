import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import { insertVenue, lockVenue, updateVenue, type VenueRow } from './venues.data.js';
import { venueChange, type VenueInput } from './venues.rules.js';

export type { VenueRow } from './venues.data.js';

/** Creates a venue, or answers why not (writing nothing). */
export async function createVenue(db: Db, input: VenueInput): Promise<{ venue: VenueRow | null; problems: Problem[] }> {
  const { problems, columns } = venueChange(input, true);
  if (problems.length || columns.name === undefined) return { venue: null, problems };
  return { venue: await insertVenue(db, { ...columns, name: columns.name }), problems: [] };
}

/**
 * Changes the fields given of a venue (null clears one; its name cannot be cleared), or answers
 * why not (writing nothing). Problems about the venue itself name `venueId`.
 */
export async function changeVenue(db: Db, id: number, input: VenueInput): Promise<{ venue: VenueRow | null; problems: Problem[] }> {
  if (!(await lockVenue(db, id))) return { venue: null, problems: [problem('venueId', id, 'Venue not found')] };
  const { problems, columns } = venueChange(input, false);
  if (problems.length) return { venue: null, problems };
  return { venue: await updateVenue(db, id, columns), problems: [] };
}
