import type { Db } from '../../platform/db/knex.js';
import type { Problem } from '../../platform/problems.js';
import { insertLocation, type LocationRow } from './locations.data.js';
import { locationProblems, type LocationInput } from './locations.rules.js';

export type { LocationRow } from './locations.data.js';

/** Creates a location, or answers why not (writing nothing). */
export async function createLocation(db: Db, input: LocationInput): Promise<{ location: LocationRow | null; problems: Problem[] }> {
  const { problems, zone } = locationProblems(input);
  if (problems.length) return { location: null, problems };
  const location = await insertLocation(db, {
    name: input.name,
    address_street: input.addressStreet ?? null,
    address_town: input.addressTown ?? null,
    address_postcode: input.addressPostcode ?? null,
    address_country_id: input.addressCountryId ?? null,
    time_zone_name: zone ?? null,
  });
  return { location, problems: [] };
}
