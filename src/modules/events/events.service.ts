import type { Db } from '../../platform/db/knex.js';
import type { Problem } from '../../platform/problems.js';
import { deliveryLocaleIds, inheritedTemplate } from '../course-templates/course-templates.data.js';
import { copyEventValues, inheritableTemplateValues, replaceInheritedEventValues } from '../custom-fields/custom-fields.data.js';
import { supportedLocaleIds } from '../locales/locales.data.js';
import { translatedTitles } from '../translations/translations.data.js';
import { findEvent, insertCopy, insertEvent, lockInheritingEvents, updateInherited, type EventRow } from './events.data.js';
import { cascadedLocale, classroomProblems, eventLocale, inherit, type ClassroomFields, type Inheritance, type LocaleChoice } from './events.rules.js';

export type { EventRow } from './events.data.js';

/**
 * Events as the GraphQL API makes them (the REST API's public events are the same rows): a
 * classroom event created from a course template in a delivery locale, its title and custom
 * field values snapshotted from the template in that locale (contract rules 6 and 7), and the
 * re-inheriting that re-applying the template does (rule 8).
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

function splitLocal(value: string): { date: string; time: string } {
  const [date, time] = value.replace(' ', 'T').split('T');
  return { date: date!, time: time!.slice(0, 8) };
}

/**
 * `event.createClassroom`: checks everything, then writes the event with its inherited title
 * and custom field values in one go; a rejected input writes nothing.
 */
export async function createClassroomEvent(db: Db, input: ClassroomInput): Promise<{ event: EventRow | null; problems: Problem[] }> {
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
  const fields = classroomProblems(input, from !== undefined || problems.length > 0);
  problems.push(...locale.problems, ...fields.problems);
  if (problems.length) return { event: null, problems };

  // Rule 7: the snapshot in the resolved locale.
  const inherited = from ? inherit(from, locale.localeId) : { title: input.title!, values: [] };
  const { start, end } = fields;
  const startParts = start ? splitLocal(start) : undefined;
  const endParts = end ? splitLocal(end) : startParts;
  const event = await insertEvent(db, {
    course_template_id: from?.template.id ?? null,
    code: input.code ?? null,
    title: input.title ?? inherited.title,
    title_cascades: input.title == null,
    type: input.eventType,
    ...(input.lifecycleState ? { lifecycle_state: input.lifecycleState } : {}),
    locale_id: locale.localeId,
    locale_cascades: input.locale === undefined,
    time_zone_name: fields.zone!,
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
  });
  await replaceInheritedEventValues(db, [event.id], inherited.values.map((v) => ({ ...v, event_id: event.id })));
  return { event, problems: [] };
}

/**
 * `event.duplicate`: a copy of the event with its title, settings and custom field values, and
 * its locale kept as it is (rule 8): re-applying the template later does not move it.
 */
export async function duplicateEvent(db: Db, id: number): Promise<EventRow | undefined> {
  const source = await findEvent(db, id);
  if (!source) return undefined;
  const event = await insertCopy(db, source);
  await copyEventValues(db, id, event.id);
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
  await updateInherited(db, changes.map(({ values: _v, ...c }) => c));
  await replaceInheritedEventValues(db, changes.map((c) => c.id), changes.flatMap((c) => c.values.map((v) => ({ ...v, event_id: c.id }))));
  return changes.map((c) => c.id);
}
