import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { lineProblems, oneOfProblems, problem, type Problem } from '../../platform/problems.js';
import { comparableLocal, onZoneClock, splitLocal, utcInstant } from '../../platform/util/local-time.js';
import { canonicalTimeZone, type KnownZones } from '../../platform/util/time-zones.js';
import type { SESSION_LAYOUTS } from '../course-templates/index.js';

/**
 * The rules of sessions, pure: the sessions a new event gets (one a day of its period, or one
 * over it, as its course template's session layout says), and what a change of a session may be.
 */

/** A session's lifecycle states (Core `SessionLifecycleState`): those of events. */
export const SESSION_STATES = LIFECYCLE_STATES;

/** How a course template's events get their sessions (course_templates.session_layout). */
export type SessionLayout = (typeof SESSION_LAYOUTS)[number];

/** A period longer than this many days is not divided into days: its event gets one session over it. */
export const MAX_SESSION_DAYS = 366;

/** The longest session title (as an event's). */
export const SESSION_TITLE_MAX_LENGTH = 255;

/** The state of the sessions a new event gets: draft, whatever the event's (the caller publishes them, `session.update`). */
export const NEW_SESSION_STATE = 'draft';

/** What planning reads of an event: its title, clock, delivery and periods (local date-times). */
export interface PlannedEvent {
  title: string;
  time_zone_name: string | null;
  delivery_method: string;
  classroom_start: string | null;
  classroom_end: string | null;
  lms_start: string | null;
  lms_end: string | null;
}

/** A session to make, its times local date-times on the event's clock. */
export interface PlannedSession {
  title: string;
  start: string;
  end: string;
}

const DAY_MS = 86_400_000;

/** The calendar dates from `first` to `last` (YYYY-MM-DD), both included. */
function datesBetween(first: string, last: string): string[] {
  const at = (d: string) => {
    const [y, m, day] = d.split('-').map(Number) as [number, number, number];
    const date = new Date(0);
    date.setUTCFullYear(y, m - 1, day);
    return date.getTime();
  };
  const dates: string[] = [];
  for (let t = at(first); t <= at(last) && dates.length <= MAX_SESSION_DAYS; t += DAY_MS) {
    dates.push(new Date(t).toISOString().slice(0, 10));
  }
  return dates;
}

/**
 * The sessions a new event gets, in start order:
 * - the period divided is its classroom part (a classroom or blended event: the days learners
 *   meet); an online (LMS) event has no days that meet, and gets one session over its online period;
 * - `per_day` (the default): one session a day of the period, each from the start's time of day to
 *   the end's, titled "<event title> – Day N". A period of one day, one that ends earlier in the
 *   day than it starts (overnight), or one longer than MAX_SESSION_DAYS days is one session;
 * - `single`: one session over the whole period, titled as the event;
 * - an event with a start and no end gets one session at its start (ending then); one with no
 *   period gets none.
 */
export function planSessions(event: PlannedEvent, layout: SessionLayout): PlannedSession[] {
  const online = event.delivery_method === 'lms';
  const start = online ? event.lms_start : event.classroom_start;
  const end = (online ? event.lms_end : event.classroom_end) ?? start;
  if (!start || !end) return [];
  const whole = [{ title: event.title, start, end }];
  if (layout === 'single' || online) return whole;
  const from = splitLocal(start);
  const to = splitLocal(end);
  const days = datesBetween(from.date, to.date);
  if (days.length <= 1 || days.length > MAX_SESSION_DAYS || comparableLocal(`${from.date}T${to.time}`) <= comparableLocal(start))
    return whole;
  return days.map((date, i) => ({ title: `${event.title} – Day ${i + 1}`, start: `${date}T${from.time}`, end: `${date}T${to.time}` }));
}

/** A planned session's instants on the event's clock (UTC when it has none). */
export function plannedInstants(p: PlannedSession, zone: string | null): { starts_at: string; ends_at: string } {
  return { starts_at: utcInstant(p.start, zone)!, ends_at: utcInstant(p.end, zone)! };
}

// --- session.update ------------------------------------------------------------------------------

/** A change of a session as the caller gave it: undefined = not given; null = cleared (venue). */
export interface SessionChange {
  lifecycleState?: string | null;
  title?: string | null;
  /** `false`: an id that names no location (or venue) of this instance. */
  location?: { id: number } | null | false;
  venue?: { id: number } | null | false;
  timeZoneName?: string | null;
  /** Local date-times (no zone) on the session's clock (timeZoneName, else the session's). */
  start?: string | null;
  end?: string | null;
}

/** What a change reads of the session before it. */
export interface SessionBefore {
  starts_at: Date;
  ends_at: Date;
  time_zone_name: string;
}

export interface SessionColumnValues {
  title?: string;
  lifecycle_state?: string;
  location_id?: number | null;
  venue_id?: number | null;
  time_zone_name?: string;
  starts_at?: string;
  ends_at?: string;
}

/**
 * The problems of a change of a session, and the columns it sets when there are none:
 * - a title of one line, not blank (it cannot be cleared); a lifecycle state among SESSION_STATES;
 * - a location and a venue that exist (null clears either);
 * - an IANA time zone (`zones`: those the database knows; stored in canonical form);
 * - start and end are local date-times on the session's clock (the zone given, else its own).
 *   Changing only the zone keeps the local times (the instants move with the zone, as an
 *   event's do); the end must not be before the start.
 */
export function sessionChanges(
  input: SessionChange,
  before: SessionBefore,
  zones?: KnownZones,
): { problems: Problem[]; columns: SessionColumnValues } {
  const problems: Problem[] = [];
  const columns: SessionColumnValues = {};
  if (input.title !== undefined) {
    if (input.title === null || input.title.trim() === '') problems.push(problem('title', input.title, 'title must not be empty'));
    else {
      problems.push(...lineProblems('title', input.title, SESSION_TITLE_MAX_LENGTH));
      columns.title = input.title;
    }
  }
  if (input.lifecycleState != null) {
    const wrong = oneOfProblems('lifecycleState', input.lifecycleState, SESSION_STATES);
    problems.push(...wrong);
    if (!wrong.length) columns.lifecycle_state = input.lifecycleState;
  }
  if (input.location === false) problems.push(problem('locationId', null, 'Location not found'));
  else if (input.location !== undefined) columns.location_id = input.location?.id ?? null;
  if (input.venue === false) problems.push(problem('venueId', null, 'Venue not found'));
  else if (input.venue !== undefined) columns.venue_id = input.venue?.id ?? null;

  let zone = before.time_zone_name;
  if (input.timeZoneName != null) {
    const canonical = canonicalTimeZone(input.timeZoneName, zones);
    if (!canonical) {
      problems.push(problem('timeZoneName', input.timeZoneName, 'timeZoneName must be an IANA time zone name such as Europe/London'));
      return { problems, columns };
    }
    zone = canonical;
    if (canonical !== before.time_zone_name) columns.time_zone_name = canonical;
  }
  // The local times: as given, else as the session's clock read them.
  const localOf = (instant: Date) => onZoneClock(instant.toISOString(), before.time_zone_name)!;
  const start = input.start ?? (columns.time_zone_name ? localOf(before.starts_at) : undefined);
  const end = input.end ?? (columns.time_zone_name ? localOf(before.ends_at) : undefined);
  const startsAt = start === undefined ? before.starts_at.toISOString() : utcInstant(start, zone);
  const endsAt = end === undefined ? before.ends_at.toISOString() : utcInstant(end, zone);
  if (!startsAt) problems.push(problem('start', input.start, 'start must be a local date-time such as 2026-09-01T09:00:00'));
  if (!endsAt) problems.push(problem('end', input.end, 'end must be a local date-time such as 2026-09-01T17:00:00'));
  if (startsAt && endsAt && new Date(endsAt).getTime() < new Date(startsAt).getTime())
    problems.push(problem(input.end != null ? 'end' : 'start', input.end ?? input.start ?? null, 'end must not be before start'));
  if (start !== undefined && startsAt) columns.starts_at = startsAt;
  if (end !== undefined && endsAt) columns.ends_at = endsAt;
  return { problems, columns };
}
