import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { lineProblems, oneOfProblems, problem, type Problem } from '../../platform/problems.js';
import { isCalendarDate, isDateTime } from '../../platform/util/dates.js';
import { isSingleLine } from '../../platform/util/text.js';
import { canonicalTimeZone, type KnownZones } from '../../platform/util/time-zones.js';
import { CODE_MAX_LENGTH } from '../course-templates/index.js';

/**
 * What an event may hold, and what it takes from its course template (contract rules 6 and 7),
 * as pure functions: one rule for every face (GraphQL createClassroom, REST public events).
 */

/** Event types: public events are open to anyone, private ones are run for one customer. */
export const EVENT_TYPES = ['public', 'private'] as const;

/** The longest title of an event. */
export const EVENT_TITLE_MAX_LENGTH = 255;

/** The most places an event can have (maxPlaces, minPlaces). */
const MAX_PLACES = 100000;

/** What a template passes on to its events, read once for any number of them. */
export interface Inheritance {
  template: { id: number; title: string; locale_id: number | null; default_delivery_locale_id: number | null };
  /** Translated titles by locale (only where the translation has one). */
  titles: Map<number, string>;
  /** The template's custom field values: base values, and translations by locale. */
  values: { definition_id: number; locale_id: number | null; value: string }[];
  /** The locales the instance supports now. */
  supported: Set<number>;
}

/**
 * Contract rule 6, when the caller chose no locale: (b) the template's default delivery locale,
 * else (c) the template's own locale. A locale the instance has stopped supporting is passed over
 * (no new content goes into it), so the chain goes on to the next, and ends with no locale.
 */
export function cascadedLocale(from: Inheritance | undefined): number | null {
  if (!from) return null;
  const { default_delivery_locale_id: delivery, locale_id: own } = from.template;
  return [delivery, own].find((id): id is number => id != null && from.supported.has(id)) ?? null;
}

/**
 * A locale as the caller gave it: undefined when not given (the template's chain decides); null
 * when explicitly none; `false` when it named a locale the tenant does not support.
 */
export type LocaleChoice = { id: number } | null | false | undefined;

/**
 * Contract rule 6: the event's locale is (a) the one the caller chose, explicit null included,
 * else the template's chain ({@link cascadedLocale}). A chosen locale must be one of the
 * template's delivery locales, when it has any (none: no restriction). The contract's two messages
 * carry the label `localeId` (and the locale's id, or null when it named none: a face shows the id as its caller wrote it).
 */
export function eventLocale(choice: LocaleChoice, from: Inheritance | undefined, delivery: readonly number[]): { localeId: number | null; problems: Problem[] } {
  if (choice === false) return { localeId: null, problems: [problem('localeId', null, 'Provided locale is not supported')] };
  if (choice === undefined) return { localeId: cascadedLocale(from), problems: [] };
  if (choice === null) return { localeId: null, problems: [] };
  const problems = delivery.length && !delivery.includes(choice.id) ? [problem('localeId', choice.id, "Locale is not one of the Course Template's delivery languages")] : [];
  return { localeId: choice.id, problems };
}

/**
 * Contract rule 7: the title and custom field values an event in `localeId` takes from its
 * template: the translation in that locale, per field, else the template's own. A title
 * translated as a deliberate blank falls back too: an event needs a title.
 */
export function inherit(from: Inheritance, localeId: number | null): { title: string; values: { definition_id: number; value: string }[] } {
  const inLocale = localeId !== null && localeId !== from.template.locale_id;
  const translated = new Map(from.values.filter((v) => inLocale && v.locale_id === localeId).map((v) => [v.definition_id, v.value]));
  return {
    title: (inLocale ? from.titles.get(localeId) : undefined) ?? from.template.title,
    values: from.values.filter((v) => v.locale_id === null).map((v) => ({ definition_id: v.definition_id, value: translated.get(v.definition_id) ?? v.value })),
  };
}

/** An event's title (one line, not blank) and code (one line of at most 64 characters), as written; absent ones pass. */
export function eventTextProblems(input: { title?: string | null; code?: string | null }): Problem[] {
  return [...lineProblems('title', input.title, EVENT_TITLE_MAX_LENGTH, true), ...lineProblems('code', input.code, CODE_MAX_LENGTH)];
}

/** A classroom event's fields as the caller gave them (its template and locale checked apart). */
export interface ClassroomFields {
  eventType: string;
  /** `false`: an id that named no location (or tax type). */
  location?: { id: number } | null | false;
  taxType?: { id: number } | null | false;
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

const LOCAL_DATE_TIME = 'a local date-time without a zone, such as 2027-03-10T09:00';

/** A valid local date-time spelled one way (`YYYY-MM-DDTHH:MM:SS.ffffff`), so two can be compared as text. */
function comparableLocal(value: string): string {
  const [date, time] = value.split('T') as [string, string];
  const [hm, fraction = ''] = time.split('.');
  return `${date}T${hm!.length === 5 ? `${hm}:00` : hm}.${fraction.padEnd(6, '0')}`;
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
  for (const [label, value] of [['classroomStartDateTime', input.classroomStartDateTime], ['classroomEndDateTime', input.classroomEndDateTime]] as const) {
    if (value != null && !isDateTime(value)) problems.push(problem(label, value, `${label} must be ${LOCAL_DATE_TIME}`));
  }
  const start = input.classroomStartDateTime != null && isDateTime(input.classroomStartDateTime) ? input.classroomStartDateTime.replace(' ', 'T') : null;
  const end = input.classroomEndDateTime != null && isDateTime(input.classroomEndDateTime) ? input.classroomEndDateTime.replace(' ', 'T') : null;
  if (end && !start) problems.push(problem('classroomEndDateTime', end, 'classroomEndDateTime needs classroomStartDateTime'));
  if (start && end && comparableLocal(end) <= comparableLocal(start)) problems.push(problem('classroomEndDateTime', end, 'classroomEndDateTime must be after classroomStartDateTime'));
  // The required title first: it is the title's problem when there is no title to check.
  if (input.title == null && !templateNamed) problems.push(problem('title', null, 'title is required for an event without a course template'));
  problems.push(...eventTextProblems(input));
  for (const [label, value] of [['maxPlaces', input.maxPlaces], ['minPlaces', input.minPlaces]] as const) {
    if (value != null && (value < 0 || value > MAX_PLACES)) problems.push(problem(label, String(value), `${label} must be from 0 to ${MAX_PLACES}`));
  }
  if (input.maxPlaces != null && input.minPlaces != null && input.minPlaces > input.maxPlaces) problems.push(problem('minPlaces', String(input.minPlaces), 'minPlaces must not exceed maxPlaces'));
  problems.push(...oneOfProblems('lifecycleState', input.lifecycleState, LIFECYCLE_STATES));
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
 * (timeZone), and the venue the REST API also records.
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
  /** `false`: an id that named no venue. */
  venue?: { id: number } | null | false;
}

const ZONED = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * A date-time as the `timeZoned*` keys take it, on `zone`'s clock (a local date-time, to the
 * second): with an offset (`2024-04-01T00:00:00Z`, `+01:00`) it is an instant, shown as the
 * clock in `zone` read then; without one it is on that clock already. Undefined when it is no
 * real date-time (or `zone` no zone).
 */
export function onZoneClock(value: string, zone: string): string | undefined {
  const m = ZONED.exec(value.trim());
  if (!m || !isDateTime(m[1]!)) return undefined;
  const local = m[1]!.replace(' ', 'T');
  if (!m[2]) return local;
  const offset = m[2].toUpperCase() === 'Z' ? 0 : (m[2][0] === '-' ? -1 : 1) * (Number(m[2].slice(1, 3)) * 60 + Number(m[2].replace(':', '').slice(3, 5) || 0));
  if (Math.abs(offset) > 18 * 60) return undefined;
  const [date, time] = local.split('T') as [string, string];
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi, sec = '0'] = time.split(':');
  const wall = new Date(0);
  wall.setUTCFullYear(y, mo - 1, d);
  wall.setUTCHours(Number(h), Number(mi), Math.floor(Number(sec)), 0);
  const utcMs = wall.getTime() - offset * 60000;
  try {
    return new Date(utcMs + offsetMinutes(utcMs, zone) * 60000).toISOString().slice(0, 19);
  } catch {
    return undefined;
  }
}

const A_KIND = { lms: 'an LMS event', blended: 'a blended event' } as const;

/**
 * One end of the online period: given as a local date-time (`localKey`) or as an ISO 8601
 * date-time (`zonedKey`), not both. Answers the local date-time and the key it came by.
 */
function onlineEnd(problems: Problem[], zone: string | undefined, localKey: string, local: string | null | undefined, zonedKey: string, zoned: string | null | undefined): { value: string | null; key: string } {
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
    if (value === undefined && zone) problems.push(problem(zonedKey, zoned, `${zonedKey} must be an ISO 8601 date-time such as 2025-04-01T00:00:00Z (with an offset: the instant; without one: on the event's clock)`));
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
 *   event has none (classroom times are refused);
 * - a venue id must name a venue (the face checks what it can of it).
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
  if (input.timeZoneName != null && input.timeZone != null && canonicalTimeZone(input.timeZoneName, zones) !== canonicalTimeZone(input.timeZone, zones)) {
    problems.push(problem('timeZone', input.timeZone, 'timeZone is the older name of timeZoneName: give one of them, or the same zone in both'));
  }
  if (input.venue === false) problems.push(problem('venueId', null, 'Venue not found'));
  const kind = A_KIND[input.deliveryMethod];
  if (input.deliveryMethod === 'lms') {
    for (const [key, value] of [['classroomStartDateTime', input.classroomStartDateTime], ['classroomEndDateTime', input.classroomEndDateTime]] as const) {
      if (value != null) problems.push(problem(key, value, `${kind} has no classroom part: leave ${key} out (a blended event has both)`));
    }
  } else {
    for (const [key, value, given] of [['classroomStartDateTime', base.start, input.classroomStartDateTime], ['classroomEndDateTime', base.end, input.classroomEndDateTime]] as const) {
      if (value === null && given == null) problems.push(problem(key, null, `${key} is required for ${kind}`));
    }
  }
  const zone = problems.some((p) => p.field === zoneLabel || p.field === 'timeZone') ? undefined : base.zone;
  const start = onlineEnd(problems, zone, 'lmsStartDateTime', input.lmsStartDateTime, 'timeZonedLmsStart', input.timeZonedLmsStart);
  const end = onlineEnd(problems, zone, 'lmsEndDateTime', input.lmsEndDateTime, 'timeZonedLmsEnd', input.timeZonedLmsEnd);
  const given = (key: string) => problems.some((p) => p.field === key);
  if (start.value === null && !given(start.key) && !(zone === undefined && input.timeZonedLmsStart != null)) problems.push(problem('lmsStartDateTime', null, `lmsStartDateTime is required for ${kind}`));
  if (end.value === null && !given(end.key) && !(zone === undefined && input.timeZonedLmsEnd != null)) problems.push(problem('lmsEndDateTime', null, `lmsEndDateTime is required for ${kind}`));
  if (start.value && end.value && comparableLocal(end.value) <= comparableLocal(start.value)) problems.push(problem(end.key, end.key === 'lmsEndDateTime' ? end.value : input.timeZonedLmsEnd, `${end.key} must be after ${start.key}`));
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

function splitLocal(value: string): { date: string; time: string } {
  const [date, time] = value.replace(' ', 'T').split('T');
  return { date: date!, time: time!.slice(0, 8) };
}

/**
 * An event's time columns: its start date and time are those of its period (the earlier of its
 * classroom and online starts, {@link localPeriod}), its end those of the later end; an event
 * with a start and no end ends on its start date (no end time).
 */
export function timeColumns(zone: string, classroom: LocalPeriod, lms: LocalPeriod): TimeColumns {
  const none = { start_date: null, end_date: null, start_time: null, end_time: null };
  const period = localPeriod({ classroom_start: classroom.start, classroom_end: classroom.end, lms_start: lms.start, lms_end: lms.end, ...none });
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

// --- Events as the Core API's integrations read and change them ---------------------------------

/**
 * `status` as clients filter on it (`status eq "Active"`): Cancelled when the event is cancelled
 * (its lifecycle state, or the REST API's is_cancelled), Draft while it is a draft, else Active.
 */
export const EVENT_STATUSES = ['Active', 'Draft', 'Cancelled'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export function eventStatus(e: { lifecycle_state: string; is_cancelled: boolean }): EventStatus {
  if (e.lifecycle_state === 'cancelled' || e.is_cancelled) return 'Cancelled';
  return e.lifecycle_state === 'draft' ? 'Draft' : 'Active';
}

/** How an event is delivered (its delivery method), as clients name it: `learningMode` (the LearningMode enum). */
export const LEARNING_MODES = ['CLASSROOM', 'LMS', 'BLENDED'] as const;

/** The days of the week as the `dayOfWeek` filter takes them (ISO order: Monday is 1). */
export const DAYS_OF_WEEK = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

const FULL_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** A day as a client may write it (`Monday`, `mon`, `MON`, ISO `1`), as DAYS_OF_WEEK has it; anything else as given (and refused). */
export function dayOfWeekName(raw: string): string {
  const v = raw.trim().toLowerCase();
  if (/^[1-7]$/.test(v)) return DAYS_OF_WEEK[Number(v) - 1]!;
  const i = FULL_DAYS.findIndex((d) => v.length >= 3 && d.startsWith(v));
  return i >= 0 ? DAYS_OF_WEEK[i]! : raw;
}

/** An event's period as local date-times: the earliest of its classroom and online periods, else its dates (and times). */
export function localPeriod(e: {
  classroom_start: string | null;
  classroom_end: string | null;
  lms_start: string | null;
  lms_end: string | null;
  start_date: string | null;
  end_date: string | null;
  start_time: string | null;
  end_time: string | null;
}): { start: string | null; end: string | null } {
  const comparable = (v: string) => comparableLocal(v.replace(' ', 'T'));
  const pick = (a: string | null, b: string | null, later: boolean) => (a && b ? ((comparable(b) < comparable(a)) !== later ? b : a) : (a ?? b));
  const withTime = (date: string | null, time: string | null) => (date ? `${date}T${time ?? '00:00:00'}` : null);
  return {
    start: pick(e.classroom_start, e.lms_start, false) ?? withTime(e.start_date, e.start_time),
    end: pick(e.classroom_end, e.lms_end, true) ?? withTime(e.end_date, e.end_time),
  };
}

/** Minutes `zone` is ahead of UTC at the instant `utcMs`. */
function offsetMinutes(utcMs: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Math.round((Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - utcMs) / 60000);
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/;

/**
 * The local date-time (or a date: its midnight) `local` in `zone` (UTC when none or unknown) as
 * the Core API answers instants: ISO 8601 in UTC, to the second (`2027-03-10T08:00:00Z`).
 */
export function utcInstant(local: string | null, zone: string | null): string | null {
  const m = local ? LOCAL.exec(local) : null;
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '00', m[5] ?? '00', m[6] ?? '00'].map(Number) as [number, number, number, number, number, number];
  const wall = new Date(0);
  wall.setUTCFullYear(y, mo - 1, d);
  wall.setUTCHours(h, mi, s, 0);
  let offset = 0;
  try {
    if (zone) {
      offset = offsetMinutes(wall.getTime(), zone);
      offset = offsetMinutes(wall.getTime() - offset * 60000, zone);
    }
  } catch {
    offset = 0;
  }
  return new Date(wall.getTime() - offset * 60000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A time the tables keep in UTC without a zone (`updated_on`) as an instant: `2027-03-10T08:00:00Z`. */
export const utcStamp = (value: string | null): string | null => (value ? `${value.replace(' ', 'T').slice(0, 19)}Z` : null);

/**
 * Places left on an event with `booked` places taken: null when it has no maximum, never below
 * 0 (an event booked past its maximum has none left). The events list's SQL (EVENT_LIST_SQL
 * remainingPlaces) says the same.
 */
export function placesLeft(e: { delegates_max: number | null }, booked: number): number | null {
  return e.delegates_max === null ? null : Math.max(0, e.delegates_max - booked);
}

/**
 * Whether an event takes no more bookings: closed by hand (isSoldOut written, the REST API's
 * is_sold_out), or every place taken. One rule for GraphQL, the REST API and the list's SQL
 * (EVENT_LIST_SQL isSoldOut, hasPlacesRemaining).
 */
export function eventSoldOut(e: { is_sold_out: boolean; delegates_max: number | null }, booked: number): boolean {
  return e.is_sold_out || (e.delegates_max !== null && booked >= e.delegates_max);
}

/**
 * When an event was cancelled, as an instant: null unless its status is Cancelled; one
 * cancelled before the time was recorded (through the REST API) shows its last change. As
 * EVENT_LIST_SQL cancelledAt.
 */
export function eventCancelledAt(e: { lifecycle_state: string; is_cancelled: boolean; cancelled_at: string | null; updated_on: string }): string | null {
  return eventStatus(e) === 'Cancelled' ? utcStamp(e.cancelled_at ?? e.updated_on) : null;
}

/**
 * The most different words one events list searches for (textSearch, over all its filters and
 * values): each is a condition on every event, so a long value of many words would make one
 * statement run for minutes.
 */
export const MAX_SEARCH_WORDS = 10;

/**
 * The words a text search looks for in `texts`: split on white space and on `%` (a `like`
 * value's wildcard), each once whatever its case, in the order first given. Other characters,
 * `_` included, are searched for as written.
 */
export function searchWords(texts: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const word of texts.flatMap((text) => text.split(/[\s%]+/))) {
    if (word && !seen.has(word.toLowerCase())) seen.set(word.toLowerCase(), word);
  }
  return [...seen.values()];
}

/** The longest notes (internal, external) an event keeps. */
export const EVENT_NOTES_MAX_LENGTH = 10000;
/** The longest address of a remote meeting. */
export const MEETING_URL_MAX_LENGTH = 2000;

/** What `event.update` may change, as the domain takes it (ids resolved by the face). */
export interface EventChanges {
  lifecycleState?: string | null;
  isSoldOut?: boolean | null;
  internalNotes?: string | null;
  externalNotes?: string | null;
  title?: string | null;
  code?: string | null;
  /** `false`: an id that named no location (or course template). */
  location?: { id: number } | null | false;
  courseTemplate?: { id: number } | null | false;
  timeZoneName?: string | null;
  minPlaces?: number | null;
  maxPlaces?: number | null;
  targetFillRate?: number | null;
  registrationDeadline?: string | null;
  registrationOpensAt?: string | null;
  remoteMeetingUrl?: string | null;
}

/** What the rules read of the event being changed. */
export interface ChangedEvent {
  lifecycle_state: string;
  is_cancelled: boolean;
  cancelled_at: string | null;
  delegates_max: number | null;
  min_places: number | null;
}

/** The columns of a change (EventRow's names), and whether it cancels the event now. */
export interface EventColumns {
  columns: Record<string, string | number | boolean | null>;
  stampCancelled: boolean;
}

/**
 * The lifecycle state as the event keeps it. `cancelled` also sets the REST API's is_cancelled
 * and, when the event was not cancelled yet, the time it was cancelled (a cancelled event keeps
 * its first one); `draft` or `published` takes a cancelled event back (is_cancelled false, no
 * cancellation time).
 */
export function lifecycleColumns(state: string, existing: ChangedEvent): EventColumns {
  if (state === 'cancelled') {
    const already = eventStatus(existing) === 'Cancelled' && existing.cancelled_at !== null;
    return { columns: { lifecycle_state: 'cancelled', is_cancelled: true }, stampCancelled: !already };
  }
  return { columns: { lifecycle_state: state, is_cancelled: false, cancelled_at: null }, stampCancelled: false };
}

const notesProblems = (field: string, value: string | null | undefined): Problem[] =>
  value != null && (value.length > EVENT_NOTES_MAX_LENGTH || value.includes('\u0000')) ? [problem(field, value, `${field} must be at most ${EVENT_NOTES_MAX_LENGTH} characters (and no NUL)`)] : [];

function meetingUrlProblems(value: string | null | undefined): Problem[] {
  if (value == null) return [];
  let ok = value.length <= MEETING_URL_MAX_LENGTH && isSingleLine(value);
  if (ok) {
    try {
      const url = new URL(value);
      ok = (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
    } catch {
      ok = false;
    }
  }
  return ok ? [] : [problem('remoteMeetingUrl', value, `remoteMeetingUrl must be an http or https address of at most ${MEETING_URL_MAX_LENGTH} characters`)];
}

/**
 * The problems of a change to an event, and its columns when there are none. Only what is given
 * changes; null clears what may be empty (code, location, course template, notes, places, target
 * fill rate, registration times, meeting address). Places are checked against what the event
 * keeps: minPlaces must not exceed maxPlaces once both are applied. A new time zone keeps the
 * local times (the instants move with it). A title written here no longer follows the template.
 * `zones`: the zones the database knows, as for {@link classroomProblems}.
 */
export function eventChanges(input: EventChanges, existing: ChangedEvent, zones?: KnownZones): EventColumns & { problems: Problem[] } {
  const problems: Problem[] = [];
  const columns: EventColumns['columns'] = {};
  let stampCancelled = false;
  if (input.lifecycleState !== undefined) {
    if (input.lifecycleState === null) problems.push(problem('lifecycleState', null, `lifecycleState must be one of ${LIFECYCLE_STATES.join(', ')}`));
    else {
      problems.push(...oneOfProblems('lifecycleState', input.lifecycleState, LIFECYCLE_STATES));
      const lifecycle = lifecycleColumns(input.lifecycleState, existing);
      Object.assign(columns, lifecycle.columns);
      stampCancelled = lifecycle.stampCancelled;
    }
  }
  if (input.isSoldOut !== undefined) {
    if (input.isSoldOut === null) problems.push(problem('isSoldOut', null, 'isSoldOut must be true or false'));
    else columns.is_sold_out = input.isSoldOut;
  }
  if (input.title !== undefined) {
    if (input.title === null) problems.push(problem('title', null, `title must be one line of 1 to ${EVENT_TITLE_MAX_LENGTH} characters`));
    else Object.assign(columns, { title: input.title, title_cascades: false });
  }
  problems.push(...eventTextProblems({ title: input.title, code: input.code }));
  if (input.code !== undefined) columns.code = input.code;
  for (const [label, key, column] of [['internalNotes', 'internalNotes', 'internal_notes'], ['externalNotes', 'externalNotes', 'external_notes']] as const) {
    if (input[key] === undefined) continue;
    problems.push(...notesProblems(label, input[key]));
    columns[column] = input[key];
  }
  if (input.location === false) problems.push(problem('locationId', null, 'Location not found'));
  else if (input.location !== undefined) columns.location_id = input.location?.id ?? null;
  if (input.courseTemplate === false) problems.push(problem('courseTemplateId', null, 'Course Template not found'));
  else if (input.courseTemplate !== undefined) {
    columns.course_template_id = input.courseTemplate?.id ?? null;
    // Without a template, the title has nothing to follow.
    if (input.courseTemplate === null) columns.title_cascades = false;
  }
  if (input.timeZoneName !== undefined) {
    const zone = input.timeZoneName === null ? undefined : canonicalTimeZone(input.timeZoneName, zones);
    if (!zone) problems.push(problem('timeZoneName', input.timeZoneName, 'timeZoneName must be an IANA time zone name such as Europe/London'));
    else columns.time_zone_name = zone;
  }
  let placesInRange = true;
  for (const [label, column] of [['maxPlaces', 'delegates_max'], ['minPlaces', 'min_places']] as const) {
    const value = input[label];
    if (value === undefined) continue;
    if (value !== null && (value < 0 || value > MAX_PLACES)) {
      problems.push(problem(label, String(value), `${label} must be from 0 to ${MAX_PLACES}`));
      placesInRange = false;
    }
    columns[column] = value;
  }
  const max = input.maxPlaces !== undefined ? input.maxPlaces : existing.delegates_max;
  const min = input.minPlaces !== undefined ? input.minPlaces : existing.min_places;
  if (placesInRange && (input.maxPlaces != null || input.minPlaces != null) && max != null && min != null && min > max) {
    problems.push(input.minPlaces != null ? problem('minPlaces', String(min), 'minPlaces must not exceed maxPlaces') : problem('maxPlaces', String(max), 'maxPlaces must not be less than minPlaces'));
  }
  if (input.targetFillRate !== undefined) {
    if (input.targetFillRate !== null && (input.targetFillRate < 0 || input.targetFillRate > 100)) problems.push(problem('targetFillRate', String(input.targetFillRate), 'targetFillRate must be a percent from 0 to 100'));
    columns.target_fill_rate = input.targetFillRate;
  }
  if (input.registrationDeadline !== undefined) {
    const v = input.registrationDeadline;
    if (v !== null && !isCalendarDate(v) && !isDateTime(v)) problems.push(problem('registrationDeadline', v, 'registrationDeadline must be a date such as 2027-03-01 (or a local date-time without a zone, of which the date is kept)'));
    else columns.registration_deadline = v === null ? null : v.slice(0, 10);
  }
  if (input.registrationOpensAt !== undefined) {
    const v = input.registrationOpensAt;
    if (v !== null && !isDateTime(v)) problems.push(problem('registrationOpensAt', v, `registrationOpensAt must be ${LOCAL_DATE_TIME}`));
    else columns.registration_opens_at = v === null ? null : v.replace(' ', 'T');
  }
  if (input.remoteMeetingUrl !== undefined) {
    problems.push(...meetingUrlProblems(input.remoteMeetingUrl));
    columns.remote_meeting_url = input.remoteMeetingUrl;
  }
  return { problems, columns, stampCancelled };
}

/** The most events one `event.delete` takes. */
export const MAX_DELETED_EVENTS = 100;

/** What still holds an event, as the data file reads it. */
export interface EventHolds {
  id: number;
  has_delegates: boolean;
  has_orders: boolean;
}

/**
 * The problems of deleting events, each labelled `eventIds[i]` as the caller listed them: an id
 * that names no event (`false`, or an event that is not there), and, as the REST API refuses
 * them (409 in_use), an event that delegates or order lines still hold: it is cancelled instead.
 * A delete with problems deletes nothing.
 */
export function deleteProblems(requested: readonly (number | false | null)[], holds: readonly EventHolds[]): Problem[] {
  if (requested.length > MAX_DELETED_EVENTS) return [problem('eventIds', null, `eventIds: at most ${MAX_DELETED_EVENTS} events at once (${requested.length} given)`)];
  const found = new Map(holds.map((h) => [h.id, h]));
  const problems: Problem[] = [];
  requested.forEach((id, i) => {
    const label = `eventIds[${i}]`;
    if (id === null) return problems.push(problem(label, null, 'An event id is required'));
    const held = id === false ? undefined : found.get(id);
    if (!held) return problems.push(problem(label, id === false ? null : id, 'Event not found'));
    if (held.has_delegates) return problems.push(problem(label, id, 'Event has delegates and cannot be deleted (cancel it instead)'));
    if (held.has_orders) return problems.push(problem(label, id, 'Event is on orders and cannot be deleted (cancel it instead)'));
    return undefined;
  });
  return problems;
}
