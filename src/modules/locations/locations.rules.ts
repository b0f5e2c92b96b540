import { lineProblems, problem, type Problem } from '../../platform/problems.js';
import { canonicalTimeZone } from '../../platform/util/time-zones.js';

/** What a location may hold. */

export interface LocationInput {
  name: string;
  addressStreet?: string | null;
  addressTown?: string | null;
  addressPostcode?: string | null;
  addressCountryId?: string | null;
  timeZoneName?: string | null;
}

/** The problems of a new location, and its time zone in canonical form (null when none is given). */
export function locationProblems(input: LocationInput): { problems: Problem[]; zone: string | null | undefined } {
  const problems: Problem[] = [];
  if (input.name.trim() === '') problems.push(problem('name', input.name, 'name must not be empty'));
  problems.push(...lineProblems('name', input.name, 200));
  problems.push(...lineProblems('addressStreet', input.addressStreet, 200));
  problems.push(...lineProblems('addressTown', input.addressTown, 100));
  problems.push(...lineProblems('addressPostcode', input.addressPostcode, 20));
  if (input.addressCountryId != null && !/^[A-Z]{2}$/.test(input.addressCountryId)) problems.push(problem('addressCountryId', input.addressCountryId, 'addressCountryId must be a two-letter ISO 3166-1 code such as GB'));
  const zone = input.timeZoneName == null ? null : canonicalTimeZone(input.timeZoneName);
  if (zone === undefined) problems.push(problem('timeZoneName', input.timeZoneName, 'timeZoneName must be an IANA time zone name such as Europe/London'));
  return { problems, zone };
}
