import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { lineProblems, oneOfProblems, problem, type Problem } from '../../platform/problems.js';
import { isCalendarDate, isDateTime } from '../../platform/util/dates.js';
import { isSingleLine } from '../../platform/util/text.js';
import { canonicalTimeZone, type KnownZones } from '../../platform/util/time-zones.js';
import { comparableLocal, utcStamp } from '../../platform/util/local-time.js';
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
export const MAX_PLACES = 100000;

/** How messages describe the form of a local date-time. */
export const LOCAL_DATE_TIME = 'a local date-time without a zone, such as 2027-03-10T09:00';

/** What a template passes on to its events, read once for any number of them. */
export interface Inheritance {
  template: {
    id: number;
    title: string;
    locale_id: number | null;
    default_delivery_locale_id: number | null;
    /** How its new events get their sessions (per_day when not read). */
    session_layout?: string;
  };
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
export function eventLocale(
  choice: LocaleChoice,
  from: Inheritance | undefined,
  delivery: readonly number[],
): { localeId: number | null; problems: Problem[] } {
  if (choice === false) return { localeId: null, problems: [problem('localeId', null, 'Provided locale is not supported')] };
  if (choice === undefined) return { localeId: cascadedLocale(from), problems: [] };
  if (choice === null) return { localeId: null, problems: [] };
  const problems =
    delivery.length && !delivery.includes(choice.id)
      ? [problem('localeId', choice.id, "Locale is not one of the Course Template's delivery languages")]
      : [];
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
    values: from.values
      .filter((v) => v.locale_id === null)
      .map((v) => ({ definition_id: v.definition_id, value: translated.get(v.definition_id) ?? v.value })),
  };
}

/** An event's title (one line, not blank) and code (one line of at most 64 characters), as written; absent ones pass. */
export function eventTextProblems(input: { title?: string | null; code?: string | null }): Problem[] {
  return [...lineProblems('title', input.title, EVENT_TITLE_MAX_LENGTH, true), ...lineProblems('code', input.code, CODE_MAX_LENGTH)];
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
  const pick = (a: string | null, b: string | null, later: boolean) =>
    a && b ? (comparable(b) < comparable(a) !== later ? b : a) : (a ?? b);
  const withTime = (date: string | null, time: string | null) => (date ? `${date}T${time ?? '00:00:00'}` : null);
  return {
    start: pick(e.classroom_start, e.lms_start, false) ?? withTime(e.start_date, e.start_time),
    end: pick(e.classroom_end, e.lms_end, true) ?? withTime(e.end_date, e.end_time),
  };
}

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
export function eventCancelledAt(e: {
  lifecycle_state: string;
  is_cancelled: boolean;
  cancelled_at: string | null;
  updated_on: string;
}): string | null {
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
  value != null && (value.length > EVENT_NOTES_MAX_LENGTH || value.includes('\u0000'))
    ? [problem(field, value, `${field} must be at most ${EVENT_NOTES_MAX_LENGTH} characters (and no NUL)`)]
    : [];

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
  return ok
    ? []
    : [
        problem(
          'remoteMeetingUrl',
          value,
          `remoteMeetingUrl must be an http or https address of at most ${MEETING_URL_MAX_LENGTH} characters`,
        ),
      ];
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
    if (input.lifecycleState === null)
      problems.push(problem('lifecycleState', null, `lifecycleState must be one of ${LIFECYCLE_STATES.join(', ')}`));
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
  for (const [label, key, column] of [
    ['internalNotes', 'internalNotes', 'internal_notes'],
    ['externalNotes', 'externalNotes', 'external_notes'],
  ] as const) {
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
    if (!zone)
      problems.push(problem('timeZoneName', input.timeZoneName, 'timeZoneName must be an IANA time zone name such as Europe/London'));
    else columns.time_zone_name = zone;
  }
  let placesInRange = true;
  for (const [label, column] of [
    ['maxPlaces', 'delegates_max'],
    ['minPlaces', 'min_places'],
  ] as const) {
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
    problems.push(
      input.minPlaces != null
        ? problem('minPlaces', String(min), 'minPlaces must not exceed maxPlaces')
        : problem('maxPlaces', String(max), 'maxPlaces must not be less than minPlaces'),
    );
  }
  if (input.targetFillRate !== undefined) {
    if (input.targetFillRate !== null && (input.targetFillRate < 0 || input.targetFillRate > 100))
      problems.push(problem('targetFillRate', String(input.targetFillRate), 'targetFillRate must be a percent from 0 to 100'));
    columns.target_fill_rate = input.targetFillRate;
  }
  if (input.registrationDeadline !== undefined) {
    const v = input.registrationDeadline;
    if (v !== null && !isCalendarDate(v) && !isDateTime(v))
      problems.push(
        problem(
          'registrationDeadline',
          v,
          'registrationDeadline must be a date such as 2027-03-01 (or a local date-time without a zone, of which the date is kept)',
        ),
      );
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
  if (requested.length > MAX_DELETED_EVENTS)
    return [problem('eventIds', null, `eventIds: at most ${MAX_DELETED_EVENTS} events at once (${requested.length} given)`)];
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
