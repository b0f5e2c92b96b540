import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { oneOfProblems, problem, type Problem } from '../../platform/problems.js';
import { isDateTime } from '../../platform/util/dates.js';
import { comparableLocal, onZoneClock, splitLocal } from '../../platform/util/local-time.js';
import { canonicalTimeZone, type KnownZones } from '../../platform/util/time-zones.js';
import { EVENT_TYPES, eventTextProblems, LOCAL_DATE_TIME, localPeriod, MAX_PLACES } from './events.rules.js';

/**
 * The rules of a new event's delivery and times, pure: a classroom event's fields
 * (`event.createClassroom`, REST public events), an online or blended one's periods
 * (`event.createLMS`, `event.createBlended`), and the time columns they are stored as. The rest of
 * what an event may hold, and what it takes from its template: events.rules.ts.
 */

/** A classroom event's fields as the caller gave them (its template and locale checked apart). */
export interface ClassroomFields {
  eventType: string;
  /** `false`: an id that named no location (or tax type). */
  location?: { id: number } | null | false;
  taxType?: { id: number } | null | false;
  /** The venue it meets in; `false`: an id that named no venue of this instance. */
  venue?: { id: number } | null | false;
  /** Required: null (or left out by a face whose key is optional) is refused. */
  timeZoneName: string | null;
  classroomStartDateTime?: string | null;
  classroomEndDateTime?: string | null;
  title?: string | null;
  code?: string | null;
  maxPlaces?: number | null;
  minPlaces?: number | null;
  lifecycleState?: string | null;
}

/**
 * The problems of a classroom event's fields, and their stored form when there are none: the
 * canonical time zone, and the start and end as local date-times (`T`-separated). `templateNamed`:
 * the input named a course template (found or not); without one, the event needs a title of its own.
 * `labels`: the keys a face names the time zone and tax type with (timeZoneName, taxTypeId).
 * `zones`: the zones the database knows (the service always gives them): the stored zone is one
 * of them (see canonicalTimeZone), so the lists' SQL can read the event's times.
 */
export function classroomProblems(
  input: ClassroomFields,
  templateNamed: boolean,
  labels: { timeZoneName?: string; taxType?: string } = {},
  zones?: KnownZones,
): { problems: Problem[]; zone: string | undefined; start: string | null; end: string | null } {
  const problems: Problem[] = [...oneOfProblems('eventType', input.eventType, EVENT_TYPES)];
  const zone = input.timeZoneName == null ? undefined : canonicalTimeZone(input.timeZoneName, zones);
  const zoneLabel = labels.timeZoneName ?? 'timeZoneName';
  if (!zone) problems.push(problem(zoneLabel, input.timeZoneName, `${zoneLabel} must be an IANA time zone name such as Europe/London`));
  if (input.location === false) problems.push(problem('locationId', null, 'Location not found'));
  if (input.taxType === false) problems.push(problem(labels.taxType ?? 'taxTypeId', null, 'Tax Type not found'));
  for (const [label, value] of [
    ['classroomStartDateTime', input.classroomStartDateTime],
    ['classroomEndDateTime', input.classroomEndDateTime],
  ] as const) {
    if (value != null && !isDateTime(value)) problems.push(problem(label, value, `${label} must be ${LOCAL_DATE_TIME}`));
  }
  const start =
    input.classroomStartDateTime != null && isDateTime(input.classroomStartDateTime)
      ? input.classroomStartDateTime.replace(' ', 'T')
      : null;
  const end =
    input.classroomEndDateTime != null && isDateTime(input.classroomEndDateTime) ? input.classroomEndDateTime.replace(' ', 'T') : null;
  if (end && !start) problems.push(problem('classroomEndDateTime', end, 'classroomEndDateTime needs classroomStartDateTime'));
  if (start && end && comparableLocal(end) <= comparableLocal(start))
    problems.push(problem('classroomEndDateTime', end, 'classroomEndDateTime must be after classroomStartDateTime'));
  // The required title first: it is the title's problem when there is no title to check.
  if (input.title == null && !templateNamed)
    problems.push(problem('title', null, 'title is required for an event without a course template'));
  problems.push(...eventTextProblems(input));
  for (const [label, value] of [
    ['maxPlaces', input.maxPlaces],
    ['minPlaces', input.minPlaces],
  ] as const) {
    if (value != null && (value < 0 || value > MAX_PLACES))
      problems.push(problem(label, String(value), `${label} must be from 0 to ${MAX_PLACES}`));
  }
  if (input.maxPlaces != null && input.minPlaces != null && input.minPlaces > input.maxPlaces)
    problems.push(problem('minPlaces', String(input.minPlaces), 'minPlaces must not exceed maxPlaces'));
  problems.push(...oneOfProblems('lifecycleState', input.lifecycleState, LIFECYCLE_STATES));
  if (input.venue === false) problems.push(problem('venueId', null, 'Venue not found'));
  return { problems, zone, start, end };
}

// --- Online (LMS) and blended events: event.createLMS, event.createBlended ---------------------

/** How an event is delivered, as the table keeps it: in a classroom, online (lms), or both (blended). */
export const DELIVERY_METHODS = ['classroom', 'lms', 'blended'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

/** A local period (`T`-separated local date-times); null ends when there is none. */
export interface LocalPeriod {
  start: string | null;
  end: string | null;
}

/**
 * The fields of an online (lms) or blended event as the caller gave them. Beside a classroom
 * event's fields: the online period, as local date-times (lmsStartDateTime) or as ISO 8601
 * date-times of the older clients (timeZonedLmsStart), the older name of the time zone
 * (timeZone).
 */
export interface DeliveredFields extends Omit<ClassroomFields, 'timeZoneName'> {
  deliveryMethod: 'lms' | 'blended';
  timeZoneName?: string | null;
  /** An older name of timeZoneName, sent by older clients (alone, or beside it). */
  timeZone?: string | null;
  lmsStartDateTime?: string | null;
  lmsEndDateTime?: string | null;
  /** ISO 8601: with an offset (`Z`), an instant, shown on the event's clock; without one, already on it. */
  timeZonedLmsStart?: string | null;
  timeZonedLmsEnd?: string | null;
}

const A_KIND = { lms: 'an LMS event', blended: 'a blended event' } as const;

/**
 * One end of the online period: given as a local date-time (`localKey`) or as an ISO 8601
 * date-time (`zonedKey`), not both. Answers the local date-time and the key it came by.
 */
function onlineEnd(
  problems: Problem[],
  zone: string | undefined,
  localKey: string,
  local: string | null | undefined,
  zonedKey: string,
  zoned: string | null | undefined,
): { value: string | null; key: string } {
  if (local != null && zoned != null) {
    problems.push(problem(zonedKey, zoned, `Give ${localKey} or ${zonedKey}, not both`));
    return { value: null, key: zonedKey };
  }
  if (local != null) {
    if (isDateTime(local)) return { value: local.replace(' ', 'T'), key: localKey };
    problems.push(problem(localKey, local, `${localKey} must be ${LOCAL_DATE_TIME}`));
    return { value: null, key: localKey };
  }
  if (zoned != null) {
    const value = zone ? onZoneClock(zoned, zone) : undefined;
    // Without a valid zone there is nothing to read the instant on: the zone's problem says so.
    if (value === undefined && zone)
      problems.push(
        problem(
          zonedKey,
          zoned,
          `${zonedKey} must be an ISO 8601 date-time such as 2025-04-01T00:00:00Z (with an offset: the instant; without one: on the event's clock)`,
        ),
      );
    return { value: value ?? null, key: zonedKey };
  }
  return { value: null, key: localKey };
}

/**
 * The problems of an online (lms) or blended event's fields, and their stored form when there
 * are none. Beside a classroom event's rules ({@link classroomProblems}):
 * - its time zone is timeZoneName, or its older name timeZone; both may be given when they name
 *   the same zone;
 * - it has an online period: a start and an end after it (required);
 * - a blended event also has a classroom part, a start and an end after it (required); an LMS
 *   event has none (classroom times are refused).
 * Problems are labelled with the keys the caller used. `zones`: as for {@link classroomProblems}.
 */
export function deliveredProblems(
  input: DeliveredFields,
  templateNamed: boolean,
  zones?: KnownZones,
): { problems: Problem[]; zone: string | undefined; classroom: LocalPeriod; lms: LocalPeriod } {
  const problems: Problem[] = [];
  const named = input.timeZoneName ?? input.timeZone ?? null;
  const zoneLabel = input.timeZoneName == null && input.timeZone != null ? 'timeZone' : 'timeZoneName';
  const base = classroomProblems({ ...input, timeZoneName: named }, templateNamed, { timeZoneName: zoneLabel, taxType: 'taxType' }, zones);
  problems.push(...base.problems);
  if (
    input.timeZoneName != null &&
    input.timeZone != null &&
    canonicalTimeZone(input.timeZoneName, zones) !== canonicalTimeZone(input.timeZone, zones)
  ) {
    problems.push(
      problem('timeZone', input.timeZone, 'timeZone is the older name of timeZoneName: give one of them, or the same zone in both'),
    );
  }
  const kind = A_KIND[input.deliveryMethod];
  if (input.deliveryMethod === 'lms') {
    for (const [key, value] of [
      ['classroomStartDateTime', input.classroomStartDateTime],
      ['classroomEndDateTime', input.classroomEndDateTime],
    ] as const) {
      if (value != null) problems.push(problem(key, value, `${kind} has no classroom part: leave ${key} out (a blended event has both)`));
    }
  } else {
    for (const [key, value, given] of [
      ['classroomStartDateTime', base.start, input.classroomStartDateTime],
      ['classroomEndDateTime', base.end, input.classroomEndDateTime],
    ] as const) {
      if (value === null && given == null) problems.push(problem(key, null, `${key} is required for ${kind}`));
    }
  }
  const zone = problems.some((p) => p.field === zoneLabel || p.field === 'timeZone') ? undefined : base.zone;
  const start = onlineEnd(problems, zone, 'lmsStartDateTime', input.lmsStartDateTime, 'timeZonedLmsStart', input.timeZonedLmsStart);
  const end = onlineEnd(problems, zone, 'lmsEndDateTime', input.lmsEndDateTime, 'timeZonedLmsEnd', input.timeZonedLmsEnd);
  const given = (key: string) => problems.some((p) => p.field === key);
  if (start.value === null && !given(start.key) && !(zone === undefined && input.timeZonedLmsStart != null))
    problems.push(problem('lmsStartDateTime', null, `lmsStartDateTime is required for ${kind}`));
  if (end.value === null && !given(end.key) && !(zone === undefined && input.timeZonedLmsEnd != null))
    problems.push(problem('lmsEndDateTime', null, `lmsEndDateTime is required for ${kind}`));
  if (start.value && end.value && comparableLocal(end.value) <= comparableLocal(start.value))
    problems.push(
      problem(end.key, end.key === 'lmsEndDateTime' ? end.value : input.timeZonedLmsEnd, `${end.key} must be after ${start.key}`),
    );
  return {
    problems,
    zone: base.zone,
    classroom: input.deliveryMethod === 'lms' ? { start: null, end: null } : { start: base.start, end: base.end },
    lms: { start: start.value, end: end.value },
  };
}

/** The columns of an event's times: its zone, its classroom and online periods, and the dates (and times) of its whole period, as the REST API shows them. */
export interface TimeColumns {
  time_zone_name: string;
  classroom_start: string | null;
  classroom_end: string | null;
  lms_start: string | null;
  lms_end: string | null;
  start_date: string | null;
  start_time: string | null;
  end_date: string | null;
  end_time: string | null;
}

/**
 * An event's time columns: its start date and time are those of its period (the earlier of its
 * classroom and online starts, {@link localPeriod}), its end those of the later end; an event
 * with a start and no end ends on its start date (no end time).
 */
export function timeColumns(zone: string, classroom: LocalPeriod, lms: LocalPeriod): TimeColumns {
  const none = { start_date: null, end_date: null, start_time: null, end_time: null };
  const period = localPeriod({
    classroom_start: classroom.start,
    classroom_end: classroom.end,
    lms_start: lms.start,
    lms_end: lms.end,
    ...none,
  });
  const start = period.start ? splitLocal(period.start) : undefined;
  const end = period.end ? splitLocal(period.end) : start;
  return {
    time_zone_name: zone,
    classroom_start: classroom.start,
    classroom_end: classroom.end,
    lms_start: lms.start,
    lms_end: lms.end,
    start_date: start?.date ?? null,
    start_time: start?.time ?? null,
    end_date: end?.date ?? null,
    end_time: period.end ? end!.time : null,
  };
}
