import type { ModelObject } from 'objection';
import type { Db, Knex } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { utcNow } from '../../platform/db/sql.js';
import { knownZones, type KnownZones } from '../../platform/util/time-zones.js';
import { MAX_SEARCH_WORDS } from './events.rules.js';

/**
 * Events (REST public events, GraphQL Events): the only file that names the `events` table.
 * Every function takes the transaction first.
 *
 * @uses course_templates, locations: the Core events list filters, orders and searches on its template's title and code and its location's name, in the one statement of a page
 * @uses delegates: places booked (and so places left, sold out): placesBooked counts them, and the list's statement when a filter asks for them; capacity is the event's concern, the rows are the delegates'
 * @uses opportunity_lines: deleting events first reads, in one statement, which of them delegates or order lines still hold (as the foreign keys would refuse)
 *
 * It also reads PostgreSQL's catalogue view pg_timezone_names (no tenant's table): the zones an
 * event may be stored in, once per process.
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
  /** Closed for booking by hand (it is also sold out when its places are taken). */
  declare is_sold_out: boolean;
  declare internal_notes: string | null;
  declare external_notes: string | null;
  /** Percent of places the organiser aims to fill (0 to 100). */
  declare target_fill_rate: number | null;
  /** Local date-time (no zone) in time_zone_name. */
  declare registration_opens_at: string | null;
  declare remote_meeting_url: string | null;
  /** When it was cancelled (UTC, as updated_on); null while it is not. */
  declare cancelled_at: string | null;
  declare created_on: string;
  declare updated_on: string;
}

/** The rows a foreign key of another table points at, for the REST engine's existence check (`event 7 does not exist`): all the access to the table it gives. */
export const EVENT_ROWS = { table: Event.tableName, label: 'event' } as const;

/** An event's row, every column. */
export type EventRow = ModelObject<Event>;

/** The columns an event is created with (the rest take their defaults). */
export type NewEvent = Partial<Omit<EventRow, 'id' | 'created_on' | 'updated_on'>>;

/** Events locked (in id order, so concurrent orders cannot deadlock) with their capacity. */
export function lockEventsForCapacity(db: Db, eventIds: number[]): Promise<{ id: number; title: string; delegates_max: number | null }[]> {
  return db(Event.tableName)
    .whereIn('id', eventIds)
    .orderBy('id')
    .forUpdate()
    .select<{ id: number; title: string; delegates_max: number | null }[]>('id', 'title', 'delegates_max');
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

/** Events by id (a page's batch). */
export function eventsByIds(db: Db, ids: readonly number[]): Promise<EventRow[]> {
  return db(Event.tableName).whereIn('id', ids as number[]);
}

/** The event, locked for a change. */
export function lockEvent(db: Db, id: number): Promise<EventRow | undefined> {
  return db(Event.tableName).where({ id }).forUpdate().first<EventRow | undefined>();
}

/** Sets `columns` (with `cancelled_at` the transaction's time when `stampCancelled`) and the time of the change. */
export async function updateEventRow(db: Db, id: number, columns: Partial<EventRow>, stampCancelled: boolean): Promise<EventRow> {
  const [row] = (await db(Event.tableName)
    .where({ id })
    .update({ ...columns, ...(stampCancelled ? { cancelled_at: utcNow(db) } : {}), updated_on: utcNow(db) })
    .returning('*')) as EventRow[];
  return row!;
}

/** What still holds each of these events (those that exist): delegates (cancelled ones too) and order lines. */
export async function eventHolds(db: Db, ids: number[]): Promise<{ id: number; has_delegates: boolean; has_orders: boolean }[]> {
  if (!ids.length) return [];
  const { rows } = await db.raw(
    `select e.id,
            exists (select 1 from delegates d where d.event_id = e.id) as has_delegates,
            exists (select 1 from opportunity_lines o where o.event_id = e.id) as has_orders
       from events e where e.id = any(?::int[]) order by e.id`,
    [ids],
  );
  return rows as { id: number; has_delegates: boolean; has_orders: boolean }[];
}

/**
 * Deletes the events (their custom field values, prices and places in learning paths go with
 * them), inside a savepoint: when a record this file does not know of still refers to one,
 * nothing is deleted and the answer is false.
 */
export async function deleteEventRows(db: Db, ids: number[]): Promise<boolean> {
  if (!ids.length) return true;
  try {
    await db.transaction(async (trx) => {
      await trx(Event.tableName).whereIn('id', ids).delete();
    });
    return true;
  } catch (err) {
    // 23503 foreign_key_violation; PostgreSQL 18 reports ON DELETE RESTRICT as 23001 restrict_violation.
    const code = (err as { code?: string }).code;
    if (code === '23503' || code === '23001') return false;
    throw err;
  }
}

/** The zones of the database, once per process: the same for every tenant (a catalogue of the server, not of a schema). */
let zones: Promise<KnownZones> | undefined;

/**
 * The time zone names PostgreSQL knows (`at time zone` refuses any other): an event's zone is
 * stored only when it is one of them. Read once per process (some 40 ms); a failed read is
 * tried again by the next caller.
 */
export function databaseTimeZones(db: Db): Promise<KnownZones> {
  zones ??= db
    .raw('select name from pg_timezone_names')
    .then(({ rows }: { rows: { name: string }[] }) => knownZones(rows.map((r) => r.name)))
    .catch((err: unknown) => {
      zones = undefined;
      throw err;
    });
  return zones;
}

// --- The Core events list ----------------------------------------------------------------------

/** An event `t`'s period as local date-times: the earliest of its classroom and online periods, else its dates (and times), as localPeriod (events.rules.ts) has it. */
const LOCAL_START = `coalesce(least(t.classroom_start, t.lms_start), t.start_date + coalesce(t.start_time, time '00:00'))`;
const LOCAL_END = `coalesce(greatest(t.classroom_end, t.lms_end), t.end_date + coalesce(t.end_time, time '00:00'))`;
/**
 * An event's zone. Written only as one PostgreSQL knows (databaseTimeZones); a row written
 * otherwise before that was checked makes `at time zone` fail, and with it the statement: the
 * only tolerant form here would look each row's zone up in pg_timezone_names, which costs some
 * 40 ms a statement (it reads the zone files).
 */
const ZONE = `coalesce(t.time_zone_name, 'UTC')`;
/** As eventStatus (events.rules.ts) says it. */
const STATUS = `(case when t.lifecycle_state = 'cancelled' or t.is_cancelled then 'Cancelled' when t.lifecycle_state = 'draft' then 'Draft' else 'Active' end)`;
/** A local date-time of `t` (in its time zone) as an instant. */
const zoned = (local: string) => `((${local}) at time zone ${ZONE})`;
/** Places taken on the event `t`, as placesBooked counts them. */
const BOOKED = `(select coalesce(sum(coalesce(d.num_places, 1)), 0)::int from delegates d where d.event_id = t.id and d.cancelled_date is null)`;

/**
 * SQL over an event `t` of the Core list for what clients filter and order on that no column
 * of it holds: each is computed only by a list that filters or orders on it, so a plain page
 * reads the table alone.
 */
export const EVENT_LIST_SQL = {
  courseTemplateTitle: '(select ct.title from course_templates ct where ct.id = t.course_template_id)',
  courseTemplateCode: '(select ct.code from course_templates ct where ct.id = t.course_template_id)',
  locationName: '(select l.name from locations l where l.id = t.location_id)',
  /** Its period on its own time zone's clock. */
  localStart: `(${LOCAL_START})`,
  localEnd: `(${LOCAL_END})`,
  /** Its period, and its parts, as instants (timestamptz). */
  start: zoned(LOCAL_START),
  end: zoned(LOCAL_END),
  classroomStart: zoned('t.classroom_start'),
  classroomEnd: zoned('t.classroom_end'),
  lmsStart: zoned('t.lms_start'),
  lmsEnd: zoned('t.lms_end'),
  status: STATUS,
  isActive: `(${STATUS} = 'Active')`,
  /** The day it starts on, on its own clock: Mon ... Sun. */
  dayOfWeek: `((array['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'])[extract(isodow from ${LOCAL_START})::int])`,
  /** Its delivery method as clients name it (CLASSROOM, LMS, BLENDED). */
  learningMode: 'upper(t.delivery_method)',
  createdAt: `(t.created_on at time zone 'UTC')`,
  updatedAt: `(t.updated_on at time zone 'UTC')`,
  /** When it was cancelled; null unless it is: as eventCancelledAt (events.rules.ts). */
  cancelledAt: `(case when ${STATUS} = 'Cancelled' then coalesce(t.cancelled_at, t.updated_on) at time zone 'UTC' end)`,
  bookedPlaces: BOOKED,
  /** null when the event has no maximum: as placesLeft (events.rules.ts). */
  remainingPlaces: `(case when t.delegates_max is null then null else greatest(t.delegates_max - ${BOOKED}, 0) end)`,
  /** As eventSoldOut (events.rules.ts), and its negation. */
  isSoldOut: `(t.is_sold_out or (t.delegates_max is not null and ${BOOKED} >= t.delegates_max))`,
  hasPlacesRemaining: `(not t.is_sold_out and (t.delegates_max is null or ${BOOKED} < t.delegates_max))`,
} as const;

const likeEscaped = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Conditions on an event `t` of the list that span several of its texts. */
export const eventTextConditions = {
  /**
   * Every one of `words` (at most MAX_SEARCH_WORDS, to which the face holds callers) somewhere
   * in its title or code, or, as `scope` lets the caller see them, its template's title or code
   * and its location's name (case-insensitive, wildcards as written). One condition, whatever
   * the words: the texts are joined once per event (by spaces, so no word spans two of them),
   * lower-cased once, and matched against all the lower-cased words (which is what ILIKE does
   * for each), the template and location read by one join rather than a lookup per event.
   */
  search(q: Knex.QueryBuilder, words: readonly string[], scope: { templates: boolean; locations: boolean }): void {
    if (!words.length) return;
    if (words.length > MAX_SEARCH_WORDS) throw new Error(`eventTextConditions.search: ${words.length} words, at most ${MAX_SEARCH_WORDS}`);
    // LIKE's escape character is the backslash unless told otherwise.
    const patterns = [words.map((w) => `%${likeEscaped(w)}%`)];
    const matches = (texts: string[]) =>
      `lower(concat_ws(' ', ${texts.join(', ')})) like all (array(select lower(w) from unnest(?::text[]) w))`;
    if (!scope.templates && !scope.locations) {
      q.whereRaw(matches(['t.title', 't.code']), patterns);
      return;
    }
    const joins = [
      ...(scope.templates ? ['left join course_templates ct on ct.id = e.course_template_id'] : []),
      ...(scope.locations ? ['left join locations l on l.id = e.location_id'] : []),
    ];
    const texts = ['e.title', 'e.code', ...(scope.templates ? ['ct.title', 'ct.code'] : []), ...(scope.locations ? ['l.name'] : [])];
    q.whereRaw(`t.id in (select e.id from events e ${joins.join(' ')} where ${matches(texts)})`, patterns);
  },
  /**
   * Its code or title, or its template's code or title: `eq` equal to `value` (case-insensitive),
   * `like` matching the pattern (SQL wildcards). The template is read once per event.
   */
  codeOrTitle(q: Knex.QueryBuilder, operation: 'eq' | 'like', value: string): void {
    const test = (text: string) => (operation === 'eq' ? `lower(${text}) = lower(?)` : `${text} ilike ?`);
    q.whereRaw(
      `(${test('t.code')} or ${test('t.title')} or exists (select 1 from course_templates ct where ct.id = t.course_template_id and (${test('ct.code')} or ${test('ct.title')})))`,
      [value, value, value, value],
    );
  },
};

/** Places taken on each event: named delegates count 1, unnamed rows their num_places. */
export async function placesBooked(db: Db, eventIds: number[]): Promise<Map<number, number>> {
  if (!eventIds.length) return new Map();
  const rows = await db('delegates')
    .whereIn('event_id', eventIds)
    .whereNull('cancelled_date')
    .groupBy('event_id')
    .select('event_id', db.raw('sum(coalesce(num_places, 1))::int as booked'));
  return new Map(rows.map((r: { event_id: number; booked: number }) => [r.event_id, r.booked]));
}
