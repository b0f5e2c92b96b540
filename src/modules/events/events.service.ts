import type { Db } from '../../platform/db/knex.js';
import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { fieldError, lineErrors, type FieldError } from '../../kit/graphql/errors.js';
import { isDateTime } from '../../platform/util/dates.js';
import { canonicalTimeZone } from '../../platform/util/time-zones.js';
import type { CourseTemplateRow } from '../course-templates/course-templates.service.js';
import type { LocaleRow } from '../locales/locales.service.js';
import { EVENT_TYPES } from './public-events.rest.js';

/**
 * Events as the GraphQL API makes them (the REST API's public events are the same rows): a
 * classroom event created from a course template in a delivery locale, its title and custom
 * field values snapshotted from the template in that locale (contract rules 6 and 7), and the
 * re-inheriting that re-applying the template does (rule 8).
 */

export interface EventRow {
  id: number;
  course_template_id: number | null;
  code: string | null;
  title: string;
  type: string;
  lifecycle_state: string;
  locale_id: number | null;
  locale_cascades: boolean;
  title_cascades: boolean;
  time_zone_name: string | null;
  location_id: number | null;
  tax_type_id: number | null;
  classroom_start: string | null;
  classroom_end: string | null;
  start_date: string | null;
  end_date: string | null;
  delegates_max: number | null;
  min_places: number | null;
  price: string | null;
  currency_code: string | null;
  is_cancelled: boolean;
  created_on: string;
  updated_on: string;
  [key: string]: unknown;
}

/** What a template passes on to its events, read once for any number of them. */
export interface Inheritance {
  template: Pick<CourseTemplateRow, 'id' | 'title' | 'locale_id' | 'default_delivery_locale_id'>;
  /** Translated titles by locale (only where the translation has one). */
  titles: Map<number, string>;
  /** The template's custom field values: base values, and translations by locale. */
  values: { definition_id: number; locale_id: number | null; value: string }[];
  /** The locales the instance supports now. */
  supported: Set<number>;
}

/** Reads what {@link inherit} needs of a template: its row, its translated titles, its (non-built-in) custom field values. */
export async function readInheritance(db: Db, templateId: number): Promise<Inheritance | undefined> {
  const template = await db('course_templates').where({ id: templateId }).first<Inheritance['template'] | undefined>('id', 'title', 'locale_id', 'default_delivery_locale_id');
  if (!template) return undefined;
  const titles = await db('course_template_translations').where({ course_template_id: templateId }).whereNotNull('title').whereNot('title', '').select<{ locale_id: number; title: string }[]>('locale_id', 'title');
  const values = await db('course_template_field_values as v')
    .join('custom_field_definitions as d', 'd.id', 'v.definition_id')
    .where({ 'v.course_template_id': templateId, 'd.is_builtin': false })
    .orderBy('v.definition_id')
    .select<Inheritance['values']>('v.definition_id', 'v.locale_id', 'v.value');
  const supported = new Set(await db('locales').where({ supported: true }).pluck<number[]>('id'));
  return { template, titles: new Map(titles.map((t) => [t.locale_id, t.title])), values, supported };
}

/**
 * Contract rule 6: the event's locale is (a) the one the caller chose, explicit null included,
 * else (b) the template's default delivery locale, else (c) the template's own locale. A locale
 * the instance has stopped supporting is passed over (no new content goes into it), so the
 * chain goes on to the next, and ends with no locale.
 */
export function cascadedLocale(from: Inheritance | undefined): number | null {
  if (!from) return null;
  const { default_delivery_locale_id: delivery, locale_id: own } = from.template;
  return [delivery, own].find((id): id is number => id != null && from.supported.has(id)) ?? null;
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

/** Replaces the values an event inherited (those of course template fields) with `values`; its own event fields stay. */
async function writeInheritedValues(db: Db, eventIds: number[], values: { event_id: number; definition_id: number; value: string }[]): Promise<void> {
  if (!eventIds.length) return;
  await db('event_field_values')
    .whereIn('event_id', eventIds)
    .whereIn('definition_id', db('custom_field_definitions').where({ applies_to: 'course_template' }).select('id'))
    .delete();
  // One parameter whatever the number of rows (a statement takes at most 65,535 parameters).
  if (values.length) {
    await db.raw(
      `insert into event_field_values (event_id, definition_id, locale_id, value)
       select x.event_id, x.definition_id, null, x.value from json_to_recordset(?::json) as x(event_id int, definition_id int, value text)`,
      [JSON.stringify(values)],
    );
  }
}

export interface ClassroomInput {
  courseTemplateId?: number | null;
  /** Undefined: not given (the template's chain decides); null: explicitly none; false: a locale the tenant does not support. */
  locale?: LocaleRow | null | false;
  eventType: string;
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

/** The ids as the caller sent them, for FieldError values. */
export interface ClassroomRaw {
  courseTemplateId?: unknown;
  localeId?: unknown;
  locationId?: unknown;
  taxTypeId?: unknown;
}

const LOCAL_DATE_TIME = 'a local date-time without a zone, such as 2027-03-10T09:00';

/** A valid local date-time spelled one way (`YYYY-MM-DDTHH:MM:SS.ffffff`), so two can be compared as text. */
function comparableLocal(value: string): string {
  const [date, time] = value.split('T') as [string, string];
  const [hm, fraction = ''] = time.split('.');
  return `${date}T${hm!.length === 5 ? `${hm}:00` : hm}.${fraction.padEnd(6, '0')}`;
}

function splitLocal(value: string): { date: string; time: string } {
  const [date, time] = value.replace(' ', 'T').split('T');
  return { date: date!, time: time!.slice(0, 8) };
}

/**
 * `event.createClassroom`: checks everything, then writes the event with its inherited title
 * and custom field values in one go; a rejected input writes nothing. The contract's two
 * locale messages carry the label `localeId`.
 */
export async function createClassroomEvent(db: Db, input: ClassroomInput, raw: ClassroomRaw): Promise<{ event: EventRow | null; errors: FieldError[] }> {
  const errors: FieldError[] = [];
  let from: Inheritance | undefined;
  let delivery: number[] = [];
  if (input.courseTemplateId === undefined && raw.courseTemplateId != null) errors.push(fieldError('courseTemplateId', raw.courseTemplateId, 'Course Template not found'));
  else if (input.courseTemplateId != null) {
    from = await readInheritance(db, input.courseTemplateId);
    if (!from) errors.push(fieldError('courseTemplateId', raw.courseTemplateId, 'Course Template not found'));
    else delivery = await db('course_template_delivery_locales').where({ course_template_id: from.template.id }).pluck('locale_id');
  }

  // Rule 6, with its two messages.
  let localeId: number | null = null;
  if (input.locale === false) errors.push(fieldError('localeId', raw.localeId, 'Provided locale is not supported'));
  else if (input.locale === undefined) localeId = cascadedLocale(from);
  else if (input.locale !== null) {
    if (delivery.length && !delivery.includes(input.locale.id)) errors.push(fieldError('localeId', raw.localeId, "Locale is not one of the Course Template's delivery languages"));
    localeId = input.locale.id;
  }

  if (!(EVENT_TYPES as readonly string[]).includes(input.eventType)) errors.push(fieldError('eventType', input.eventType, `eventType must be one of ${EVENT_TYPES.join(', ')}`));
  const zone = canonicalTimeZone(input.timeZoneName);
  if (!zone) errors.push(fieldError('timeZoneName', input.timeZoneName, 'timeZoneName must be an IANA time zone name such as Europe/London'));
  if (input.location === false) errors.push(fieldError('locationId', raw.locationId, 'Location not found'));
  if (input.taxType === false) errors.push(fieldError('taxTypeId', raw.taxTypeId, 'Tax Type not found'));
  for (const [label, value] of [['classroomStartDateTime', input.classroomStartDateTime], ['classroomEndDateTime', input.classroomEndDateTime]] as const) {
    if (value != null && !isDateTime(value)) errors.push(fieldError(label, value, `${label} must be ${LOCAL_DATE_TIME}`));
  }
  const start = input.classroomStartDateTime != null && isDateTime(input.classroomStartDateTime) ? input.classroomStartDateTime.replace(' ', 'T') : null;
  const end = input.classroomEndDateTime != null && isDateTime(input.classroomEndDateTime) ? input.classroomEndDateTime.replace(' ', 'T') : null;
  if (end && !start) errors.push(fieldError('classroomEndDateTime', end, 'classroomEndDateTime needs classroomStartDateTime'));
  if (start && end && comparableLocal(end) <= comparableLocal(start)) errors.push(fieldError('classroomEndDateTime', end, 'classroomEndDateTime must be after classroomStartDateTime'));
  errors.push(...lineErrors('title', input.title, 255, true));
  if (input.title == null && !from && !errors.some((e) => e.label === 'courseTemplateId')) errors.push(fieldError('title', null, 'title is required for an event without a course template'));
  errors.push(...lineErrors('code', input.code, 64));
  for (const [label, value] of [['maxPlaces', input.maxPlaces], ['minPlaces', input.minPlaces]] as const) {
    if (value != null && (value < 0 || value > 100000)) errors.push(fieldError(label, String(value), `${label} must be from 0 to 100000`));
  }
  if (input.maxPlaces != null && input.minPlaces != null && input.minPlaces > input.maxPlaces) errors.push(fieldError('minPlaces', String(input.minPlaces), 'minPlaces must not exceed maxPlaces'));
  if (input.lifecycleState != null && !(LIFECYCLE_STATES as readonly string[]).includes(input.lifecycleState)) errors.push(fieldError('lifecycleState', input.lifecycleState, `lifecycleState must be one of ${LIFECYCLE_STATES.join(', ')}`));
  if (errors.length) return { event: null, errors };

  // Rule 7: the snapshot in the resolved locale.
  const inherited = from ? inherit(from, localeId) : { title: input.title!, values: [] };
  const startParts = start ? splitLocal(start) : undefined;
  const endParts = end ? splitLocal(end) : startParts;
  const [event] = (await db('events')
    .insert({
      course_template_id: from?.template.id ?? null,
      code: input.code ?? null,
      title: input.title ?? inherited.title,
      title_cascades: input.title == null,
      type: input.eventType,
      ...(input.lifecycleState ? { lifecycle_state: input.lifecycleState } : {}),
      locale_id: localeId,
      locale_cascades: input.locale === undefined,
      time_zone_name: zone,
      location_id: input.location ? input.location.id : null,
      tax_type_id: input.taxType ? input.taxType.id : null,
      classroom_start: start,
      classroom_end: end,
      start_date: startParts?.date ?? null,
      start_time: startParts?.time ?? null,
      end_date: endParts?.date ?? null,
      end_time: end ? endParts!.time : null,
      delegates_max: input.maxPlaces ?? null,
      min_places: input.minPlaces ?? null,
    })
    .returning('*')) as EventRow[];
  await writeInheritedValues(db, [event!.id], inherited.values.map((v) => ({ ...v, event_id: event!.id })));
  return { event: event!, errors: [] };
}

/**
 * `event.duplicate`: a copy of the event with its title, settings and custom field values, and
 * its locale kept as it is (rule 8): re-applying the template later does not move it.
 */
export async function duplicateEvent(db: Db, id: number): Promise<EventRow | undefined> {
  const source = await db('events').where({ id }).first<EventRow | undefined>();
  if (!source) return undefined;
  const { id: _id, created_on: _created, updated_on: _updated, ...copy } = source;
  const [event] = (await db('events')
    .insert({ ...copy, non_working_days: JSON.stringify(source.non_working_days ?? []), locale_cascades: false })
    .returning('*')) as EventRow[];
  await db.raw(
    `insert into event_field_values (event_id, definition_id, locale_id, value)
     select ?, definition_id, locale_id, value from event_field_values where event_id = ?`,
    [event!.id, id],
  );
  return event;
}

/**
 * Contract rule 8, for some of a template's events: each re-inherits in its own language. A
 * locale that cascades follows the template's delivery chain again; a title that cascades is
 * the template's title in the event's (new) locale; inherited custom field values are copied
 * again once the locale is known. What the events chose themselves stays. Running it twice
 * gives the same rows. Answers the ids it updated (events gone or moved to another template are
 * left out).
 */
export async function reinheritEvents(db: Db, from: Inheritance, eventIds: number[]): Promise<number[]> {
  if (!eventIds.length) return [];
  const events = await db('events')
    .whereIn('id', eventIds)
    .where({ course_template_id: from.template.id })
    .orderBy('id')
    .forUpdate()
    .select<Pick<EventRow, 'id' | 'title' | 'locale_id' | 'locale_cascades' | 'title_cascades'>[]>('id', 'title', 'locale_id', 'locale_cascades', 'title_cascades');
  if (!events.length) return [];
  const changes = events.map((e) => {
    const localeId = e.locale_cascades ? cascadedLocale(from) : e.locale_id;
    const inherited = inherit(from, localeId);
    return { id: e.id, locale_id: localeId, title: e.title_cascades ? inherited.title : e.title, values: inherited.values };
  });
  await db.raw(
    `update events e set locale_id = x.locale_id, title = x.title, updated_on = (now() at time zone 'utc')
       from json_to_recordset(?::json) as x(id int, locale_id int, title text) where e.id = x.id`,
    [JSON.stringify(changes.map(({ values: _v, ...c }) => c))],
  );
  await writeInheritedValues(db, changes.map((c) => c.id), changes.flatMap((c) => c.values.map((v) => ({ ...v, event_id: c.id }))));
  return changes.map((c) => c.id);
}
