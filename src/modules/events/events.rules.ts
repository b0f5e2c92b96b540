import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { lineProblems, oneOfProblems, problem, type Problem } from '../../platform/problems.js';
import { isDateTime } from '../../platform/util/dates.js';
import { canonicalTimeZone } from '../../platform/util/time-zones.js';
import { CODE_MAX_LENGTH } from '../course-templates/course-templates.rules.js';

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
  timeZoneName: string;
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
 */
export function classroomProblems(
  input: ClassroomFields,
  templateNamed: boolean,
): { problems: Problem[]; zone: string | undefined; start: string | null; end: string | null } {
  const problems: Problem[] = [...oneOfProblems('eventType', input.eventType, EVENT_TYPES)];
  const zone = canonicalTimeZone(input.timeZoneName);
  if (!zone) problems.push(problem('timeZoneName', input.timeZoneName, 'timeZoneName must be an IANA time zone name such as Europe/London'));
  if (input.location === false) problems.push(problem('locationId', null, 'Location not found'));
  if (input.taxType === false) problems.push(problem('taxTypeId', null, 'Tax Type not found'));
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
