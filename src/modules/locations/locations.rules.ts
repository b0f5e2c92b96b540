import { lineProblems, problem, type Problem } from '../../platform/problems.js';
import { canonicalTimeZone } from '../../platform/util/time-zones.js';

/** What a location may hold. */

/** The longest code of a location. */
export const LOCATION_CODE_MAX_LENGTH = 64;

/** A location as a write gives it: undefined = not given (an update keeps it), null = cleared. */
export interface LocationInput {
  /** Required on create; cannot be cleared. */
  name?: string | null;
  code?: string | null;
  addressStreet?: string | null;
  addressTown?: string | null;
  addressPostcode?: string | null;
  addressCountryId?: string | null;
  timeZoneName?: string | null;
  /** The region the write names, as the face found it: null none, false one that does not exist. */
  region?: { id: number } | null | false;
}

/** The columns a write sets (only those given). */
export interface LocationColumnValues {
  name?: string;
  code?: string | null;
  address_street?: string | null;
  address_town?: string | null;
  address_postcode?: string | null;
  address_country_id?: string | null;
  time_zone_name?: string | null;
  region_id?: number | null;
}

/**
 * The problems of a location write, and the columns it sets: a name of one line (required on
 * create, never cleared), a code of one line of at most 64 characters (stored as given), a
 * two-letter country, an IANA time zone (stored in canonical form) and a region that exists.
 */
export function locationChange(input: LocationInput, create: boolean): { problems: Problem[]; columns: LocationColumnValues } {
  const problems: Problem[] = [];
  const columns: LocationColumnValues = {};
  if (create || input.name !== undefined) {
    if (input.name == null || input.name.trim() === '') problems.push(problem('name', input.name ?? null, 'name must not be empty'));
    else columns.name = input.name;
  }
  problems.push(...lineProblems('name', input.name, 200));
  problems.push(...lineProblems('code', input.code, LOCATION_CODE_MAX_LENGTH));
  problems.push(...lineProblems('addressStreet', input.addressStreet, 200));
  problems.push(...lineProblems('addressTown', input.addressTown, 100));
  problems.push(...lineProblems('addressPostcode', input.addressPostcode, 20));
  if (input.addressCountryId != null && !/^[A-Z]{2}$/.test(input.addressCountryId))
    problems.push(problem('addressCountryId', input.addressCountryId, 'addressCountryId must be a two-letter ISO 3166-1 code such as GB'));
  if (input.code !== undefined) columns.code = input.code;
  if (input.addressStreet !== undefined) columns.address_street = input.addressStreet;
  if (input.addressTown !== undefined) columns.address_town = input.addressTown;
  if (input.addressPostcode !== undefined) columns.address_postcode = input.addressPostcode;
  if (input.addressCountryId !== undefined) columns.address_country_id = input.addressCountryId;
  if (input.timeZoneName !== undefined) {
    const zone = input.timeZoneName === null ? null : canonicalTimeZone(input.timeZoneName);
    if (zone === undefined)
      problems.push(problem('timeZoneName', input.timeZoneName, 'timeZoneName must be an IANA time zone name such as Europe/London'));
    else columns.time_zone_name = zone;
  }
  if (input.region === false) problems.push(problem('regionId', null, 'Region not found'));
  else if (input.region !== undefined) columns.region_id = input.region?.id ?? null;
  return { problems, columns };
}
