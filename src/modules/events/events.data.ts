import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';

/**
 * Events (REST public events, GraphQL Events): the only file that names the `events` table.
 * Every function takes the transaction first.
 */

export class Event extends BaseModel {
  static override tableName = 'events';

  declare id: number;
  /** The template it inherits from (REST event_template_id). */
  declare course_template_id: number | null;
  declare code: string | null;
  declare title: string;
  /** One of EVENT_TYPES. */
  declare type: string;
  declare company_id: number | null;
  declare region_id: number | null;
  declare region: string | null;
  declare account_id: number | null;
  declare venue_id: number | null;
  declare venue: string | null;
  declare location: string | null;
  declare tag_id: number | null;
  declare tax_type_id: number | null;
  declare personnel_administrator_id: number | null;
  declare personnel_tutor_id: number | null;
  /** NUMERIC: a string in JS. */
  declare price: string | null;
  declare currency_code: string | null;
  declare start_date: string | null;
  declare end_date: string | null;
  declare start_time: string | null;
  declare end_time: string | null;
  /** Local date-times (no zone) in time_zone_name. */
  declare classroom_start: string | null;
  declare classroom_end: string | null;
  declare registration_deadline: string | null;
  declare non_working_days: unknown[];
  declare disposition: string | null;
  declare notes: string | null;
  declare notes2: string | null;
  declare overall_attendance: string | null;
  declare delegates_max: number | null;
  declare is_online: boolean;
  declare is_cancelled: boolean;
  declare is_provisional: boolean;
  declare is_lms: boolean;
  /** One of LIFECYCLE_STATES. */
  declare lifecycle_state: string;
  declare locale_id: number | null;
  /** The locale follows the template's delivery chain when the template is re-applied (contract rule 8). */
  declare locale_cascades: boolean;
  /** The title follows the template (in the event's locale) when the template is re-applied. */
  declare title_cascades: boolean;
  declare time_zone_name: string | null;
  declare location_id: number | null;
  declare min_places: number | null;
  /** classroom, lms or blended (a check in the table holds it to these). */
  declare delivery_method: string;
  /** The online (LMS) period of an lms or blended event. */
  declare lms_start: string | null;
  declare lms_end: string | null;
  declare created_on: string;
  declare updated_on: string;
}

/** An event's row, every column. */
export type EventRow = ModelObject<Event>;

/** The columns an event is created with (the rest take their defaults). */
export type NewEvent = Partial<Omit<EventRow, 'id' | 'created_on' | 'updated_on'>>;

/** Events locked (in id order, so concurrent orders cannot deadlock) with their capacity. */
export function lockEventsForCapacity(db: Db, eventIds: number[]): Promise<{ id: number; title: string; delegates_max: number | null }[]> {
  return db(Event.tableName).whereIn('id', eventIds).orderBy('id').forUpdate().select<{ id: number; title: string; delegates_max: number | null }[]>('id', 'title', 'delegates_max');
}

export function findEvent(db: Db, id: number): Promise<EventRow | undefined> {
  return db(Event.tableName).where({ id }).first<EventRow | undefined>();
}

export async function insertEvent(db: Db, columns: NewEvent): Promise<EventRow> {
  const [event] = (await db(Event.tableName).insert(columns).returning('*')) as EventRow[];
  return event!;
}

/** The ids of a template's events, in id order. */
export function templateEventIds(db: Db, templateId: number): Promise<number[]> {
  return db(Event.tableName).where({ course_template_id: templateId }).orderBy('id').pluck<number[]>('id');
}

/** Those of `ids` that name events of the template. */
export function eventsOfTemplate(db: Db, templateId: number, ids: number[]): Promise<number[]> {
  return db(Event.tableName).whereIn('id', ids).where({ course_template_id: templateId }).pluck<number[]>('id');
}

export type InheritingEvent = Pick<EventRow, 'id' | 'title' | 'locale_id' | 'locale_cascades' | 'title_cascades'>;

/** Those of `ids` that are events of the template, locked for re-inheriting, in id order. */
export function lockInheritingEvents(db: Db, templateId: number, ids: number[]): Promise<InheritingEvent[]> {
  return db(Event.tableName)
    .whereIn('id', ids)
    .where({ course_template_id: templateId })
    .orderBy('id')
    .forUpdate()
    .select<InheritingEvent[]>('id', 'title', 'locale_id', 'locale_cascades', 'title_cascades');
}

/** Sets the locale and title of many events in one statement, and the time of the change. */
export async function updateInherited(db: Db, changes: { id: number; locale_id: number | null; title: string }[]): Promise<void> {
  await db.raw(
    `update events e set locale_id = x.locale_id, title = x.title, updated_on = (now() at time zone 'utc')
       from json_to_recordset(?::json) as x(id int, locale_id int, title text) where e.id = x.id`,
    [JSON.stringify(changes)],
  );
}

/** A copy of the event's row (a new id and times), its locale no longer following the template. */
export async function insertCopy(db: Db, source: EventRow): Promise<EventRow> {
  const { id: _id, created_on: _created, updated_on: _updated, ...copy } = source;
  const [event] = (await db(Event.tableName)
    .insert({ ...copy, non_working_days: JSON.stringify(source.non_working_days ?? []), locale_cascades: false })
    .returning('*')) as EventRow[];
  return event!;
}

/** The current UTC time as the database has it, for an `updated_on` a write sets. */

/** Events by id (a page's batch). */
export function eventsByIds(db: Db, ids: readonly number[]): Promise<EventRow[]> {
  return db(Event.tableName).whereIn('id', ids as number[]);
}
