import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import { deliveryLocaleIds, inheritedTemplate } from '../course-templates/index.js';
import {
  copyEventValues,
  inheritableTemplateValues,
  replaceInheritedEventValues,
  writeBaseValues,
  type DefinitionRow,
  checkBaseValues,
  EVENT_VALUES,
  type ResolvedValue,
  type ValueInput,
} from '../custom-fields/index.js';
import { supportedLocaleIds } from '../locales/index.js';
import { translatedTitles } from '../translations/index.js';
import {
  databaseTimeZones,
  deleteEventRows,
  eventHolds,
  findEvent,
  insertCopy,
  insertEvent,
  lockEvent,
  lockInheritingEvents,
  updateEventRow,
  updateInherited,
  type EventRow,
  type NewEvent,
} from './events.data.js';
import { copyEventSessions, createEventSessions, layoutOf } from './sessions.service.js';
import { classroomProblems, deliveredProblems, timeColumns, type ClassroomFields, type DeliveredFields } from './event-creation.rules.js';
import {
  cascadedLocale,
  deleteProblems,
  MAX_DELETED_EVENTS,
  eventChanges,
  eventLocale,
  inherit,
  type EventChanges,
  type Inheritance,
  type LocaleChoice,
} from './events.rules.js';

export type { EventRow } from './events.data.js';

/**
 * Events as the GraphQL API makes them (the REST API's public events are the same rows): a
 * classroom, online (LMS) or blended event created from a course template in a delivery locale,
 * its title and custom field values snapshotted from the template in that locale (contract rules
 * 6 and 7), and the re-inheriting that re-applying the template does (rule 8).
 */

/** Reads what {@link inherit} needs of a template: its row, its translated titles, its (non-built-in) custom field values. */
export async function readInheritance(db: Db, templateId: number): Promise<Inheritance | undefined> {
  const template = await inheritedTemplate(db, templateId);
  if (!template) return undefined;
  const titles = new Map((await translatedTitles(db, templateId)).map((t) => [t.locale_id, t.title]));
  const values = await inheritableTemplateValues(db, templateId);
  const supported = await supportedLocaleIds(db);
  return { template, titles, values, supported };
}

export interface ClassroomInput extends ClassroomFields {
  /** Undefined: none given; a number: the template; false: an id that names no course template. */
  courseTemplateId?: number | false | null;
  /** Undefined: not given (the template's chain decides); null: explicitly none; false: a locale the tenant does not support. */
  locale?: LocaleChoice;
}

/** What `event.createLMS` and `event.createBlended` take (see {@link DeliveredFields}). */
export interface DeliveredInput extends DeliveredFields {
  courseTemplateId?: number | false | null;
  locale?: LocaleChoice;
  /** Values of the event's own custom fields (those that apply to events); null values are left out. */
  customFieldValues?: ValueInput[] | null;
}

/** The template an input names and the locale the event is delivered in (contract rule 6), or their problems. */
interface Origin {
  from: Inheritance | undefined;
  localeId: number | null;
  /** The input named a course template (found or not). */
  templateNamed: boolean;
  problems: Problem[];
}

async function originOf(db: Db, input: { courseTemplateId?: number | false | null; locale?: LocaleChoice }): Promise<Origin> {
  const problems: Problem[] = [];
  let from: Inheritance | undefined;
  let delivery: number[] = [];
  if (input.courseTemplateId === false) problems.push({ field: 'courseTemplateId', value: null, message: 'Course Template not found' });
  else if (input.courseTemplateId != null) {
    from = await readInheritance(db, input.courseTemplateId);
    if (!from) problems.push({ field: 'courseTemplateId', value: input.courseTemplateId, message: 'Course Template not found' });
    else delivery = await deliveryLocaleIds(db, from.template.id);
  }
  // Rule 6, with its two messages.
  const locale = eventLocale(input.locale, from, delivery);
  problems.push(...locale.problems);
  return {
    from,
    localeId: locale.localeId,
    templateNamed: input.courseTemplateId !== undefined && input.courseTemplateId !== null,
    problems,
  };
}

/**
 * Writes a checked event: the columns every kind of event shares, its delivery and times
 * (`columns`), the title and custom field values it inherits from its template in its locale
 * (rule 7), its own custom field values, and its sessions (one a day of its period, or one over
 * it, as its template's session layout says: sessions.rules.ts planSessions).
 */
async function insertChecked(
  db: Db,
  input: ClassroomFields & { locale?: LocaleChoice },
  origin: Origin,
  columns: NewEvent,
  own: ResolvedValue[] = [],
): Promise<EventRow> {
  const inherited = origin.from ? inherit(origin.from, origin.localeId) : { title: input.title!, values: [] };
  const event = await insertEvent(db, {
    course_template_id: origin.from?.template.id ?? null,
    code: input.code ?? null,
    title: input.title ?? inherited.title,
    title_cascades: input.title == null,
    type: input.eventType,
    ...(input.lifecycleState ? { lifecycle_state: input.lifecycleState } : {}),
    locale_id: origin.localeId,
    locale_cascades: input.locale === undefined,
    location_id: input.location ? input.location.id : null,
    venue_id: input.venue ? input.venue.id : null,
    tax_type_id: input.taxType ? input.taxType.id : null,
    delegates_max: input.maxPlaces ?? null,
    min_places: input.minPlaces ?? null,
    ...columns,
  });
  await replaceInheritedEventValues(
    db,
    [event.id],
    inherited.values.map((v) => ({ ...v, event_id: event.id })),
  );
  await writeBaseValues(
    db,
    EVENT_VALUES,
    event.id,
    own.filter((v) => v.value !== null),
  );
  await createEventSessions(db, event, layoutOf(origin.from?.template));
  return event;
}

/**
 * `event.createClassroom`: checks everything, then writes the event with its inherited title
 * and custom field values in one go; a rejected input writes nothing.
 */
export async function createClassroomEvent(db: Db, input: ClassroomInput): Promise<{ event: EventRow | null; problems: Problem[] }> {
  const origin = await originOf(db, input);
  const fields = classroomProblems(input, origin.templateNamed, {}, await databaseTimeZones(db));
  const problems = [...origin.problems, ...fields.problems];
  if (problems.length) return { event: null, problems };
  const times = timeColumns(fields.zone!, { start: fields.start, end: fields.end }, { start: null, end: null });
  return { event: await insertChecked(db, input, origin, { delivery_method: 'classroom', ...times }), problems: [] };
}

/**
 * `event.createLMS` and `event.createBlended`: an online (lms) event, or a blended one (a
 * classroom part and an online part), made as a classroom event is (its template's title and
 * custom field values in its delivery locale), with its online period (see
 * {@link deliveredProblems}), the venue the caller named, and its own custom field values.
 * `definitions`: the tenant's custom field definitions. A rejected input writes nothing.
 */
export async function createDeliveredEvent(
  db: Db,
  input: DeliveredInput,
  definitions: Iterable<DefinitionRow>,
): Promise<{ event: EventRow | null; problems: Problem[] }> {
  const origin = await originOf(db, input);
  const fields = deliveredProblems(input, origin.templateNamed, await databaseTimeZones(db));
  const values = checkBaseValues(definitions, EVENT_VALUES, input.customFieldValues ?? []);
  const problems = [...origin.problems, ...fields.problems, ...values.problems];
  if (problems.length) return { event: null, problems };
  const columns: NewEvent = {
    delivery_method: input.deliveryMethod,
    // The REST API's flag: the event has an online (LMS) part.
    is_lms: true,
    ...timeColumns(fields.zone!, fields.classroom, fields.lms),
  };
  return { event: await insertChecked(db, { ...input, timeZoneName: fields.zone! }, origin, columns, values.values), problems: [] };
}

/**
 * `event.duplicate`: a copy of the event with its title, settings, custom field values and
 * sessions (as they are, with theirs), and its locale kept as it is (rule 8): re-applying the
 * template later does not move it.
 */
export async function duplicateEvent(db: Db, id: number): Promise<EventRow | undefined> {
  const source = await findEvent(db, id);
  if (!source) return undefined;
  const event = await insertCopy(db, source);
  await copyEventValues(db, id, event.id);
  await copyEventSessions(db, id, event.id);
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
  const events = await lockInheritingEvents(db, from.template.id, eventIds);
  if (!events.length) return [];
  const changes = events.map((e) => {
    const localeId = e.locale_cascades ? cascadedLocale(from) : e.locale_id;
    const inherited = inherit(from, localeId);
    return { id: e.id, locale_id: localeId, title: e.title_cascades ? inherited.title : e.title, values: inherited.values };
  });
  await updateInherited(
    db,
    changes.map(({ values: _v, ...c }) => c),
  );
  await replaceInheritedEventValues(
    db,
    changes.map((c) => c.id),
    changes.flatMap((c) => c.values.map((v) => ({ ...v, event_id: c.id }))),
  );
  return changes.map((c) => c.id);
}

export interface EventUpdateInput extends EventChanges {
  /** Values of the event's own custom fields (those that apply to events); null removes one. */
  customFieldValues?: ValueInput[] | null;
}

/**
 * `event.update`: changes what is given (see {@link eventChanges}) and sets the custom field
 * values given, the rest staying; the time of the change is recorded. Checks everything first:
 * a rejected change writes nothing. `definitions`: the tenant's custom field definitions.
 */
export async function updateEvent(
  db: Db,
  id: number,
  input: EventUpdateInput,
  definitions: Iterable<DefinitionRow>,
): Promise<{ event: EventRow | null; problems: Problem[] }> {
  const existing = await lockEvent(db, id);
  if (!existing) return { event: null, problems: [problem('eventId', id, 'Event not found')] };
  const change = eventChanges(input, existing, await databaseTimeZones(db));
  const values = checkBaseValues(definitions, EVENT_VALUES, input.customFieldValues ?? []);
  const problems = [...change.problems, ...values.problems];
  if (problems.length) return { event: null, problems };
  const event = await updateEventRow(db, id, change.columns as Partial<EventRow>, change.stampCancelled);
  await writeBaseValues(db, EVENT_VALUES, id, values.values);
  return { event, problems: [] };
}

/**
 * `event.delete`: deletes the events named (`false`: an id that names no event; null: none
 * given), all or none: an event that is not there, or that delegates or order lines still hold
 * (the REST API's rule, held by the foreign keys), refuses the whole call. Answers the ids deleted.
 */
export async function deleteEvents(db: Db, requested: (number | false | null)[]): Promise<{ deleted: number[]; problems: Problem[] }> {
  const ids = [...new Set(requested.filter((id): id is number => typeof id === 'number'))];
  const problems = deleteProblems(requested, requested.length > MAX_DELETED_EVENTS ? [] : await eventHolds(db, ids));
  if (problems.length) return { deleted: [], problems };
  if (!(await deleteEventRows(db, ids)))
    return {
      deleted: [],
      problems: [problem('eventIds', null, 'An event is still in use by other records and cannot be deleted (cancel it instead)')],
    };
  return { deleted: ids, problems: [] };
}
