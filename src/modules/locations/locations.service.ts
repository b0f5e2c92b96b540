import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import { insertLocation, lockLocation, updateLocation, type LocationRow } from './locations.data.js';
import { locationChange, type LocationInput } from './locations.rules.js';

export type { LocationRow } from './locations.data.js';

/** Creates a location, or answers why not (writing nothing). */
export async function createLocation(db: Db, input: LocationInput): Promise<{ location: LocationRow | null; problems: Problem[] }> {
  const { problems, columns } = locationChange(input, true);
  if (problems.length || columns.name === undefined) return { location: null, problems };
  return { location: await insertLocation(db, { ...columns, name: columns.name }), problems: [] };
}

/**
 * Changes the fields given of a location (null clears one; its name cannot be cleared), or answers
 * why not (writing nothing). Problems about the location itself name `locationId`.
 */
export async function changeLocation(
  db: Db,
  id: number,
  input: LocationInput,
): Promise<{ location: LocationRow | null; problems: Problem[] }> {
  if (!(await lockLocation(db, id))) return { location: null, problems: [problem('locationId', id, 'Location not found')] };
  const { problems, columns } = locationChange(input, false);
  if (problems.length) return { location: null, problems };
  return { location: (await updateLocation(db, id, columns)) ?? null, problems: [] };
}
