import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { contactName, type BookedSession, type InstructorClash, type StaffContact, type StaffType } from './staff.rules.js';

/**
 * Staff of events and sessions: the only file that names the `event_staff` and `session_staff`
 * tables. Every function takes the transaction first.
 *
 * @uses contacts: a booking locks its contacts' rows (one person's bookings are made one after another, so two parallel bookings cannot both miss the other's clash) and reads their roles in that statement; a clash names its contact
 * @uses events, sessions: an instructor's bookings are sessions; the statement looking for clashes reads their times and states (and their events' titles and states) with the staff rows; a booking locks the events and sessions it books onto, so a concurrent change of their times or primary instructor waits
 *
 * Locks are always taken in one order, events, then sessions, then contacts (each in id order),
 * by every path that books staff; a session's change of times locks the session first too (see
 * {@link instructorsOfSessionsLocked}), so bookings and reschedulings never wait on each other in a circle.
 */

export class EventStaff extends BaseModel {
  static override tableName = 'event_staff';

  declare id: number;
  declare event_id: number;
  declare contact_id: number;
  declare staff_type: StaffType;
  /** The event's lead instructor: its first, and when it leaves, the one added next. */
  declare is_primary: boolean;
  declare notes: string | null;
  /** Books only the sessions the contact is staff of, not every session of the event. */
  declare required_sessions_only: boolean;
  declare created_on: string;
}

export type EventStaffRow = Pick<
  EventStaff,
  'id' | 'event_id' | 'contact_id' | 'staff_type' | 'is_primary' | 'notes' | 'required_sessions_only' | 'created_on'
>;

export class SessionStaff extends BaseModel {
  static override tableName = 'session_staff';
  static override get idColumn() {
    return ['session_id', 'contact_id', 'staff_type'];
  }

  declare session_id: number;
  declare contact_id: number;
  declare staff_type: StaffType;
  declare created_on: string;
}

export type SessionStaffRow = Pick<SessionStaff, 'session_id' | 'contact_id' | 'staff_type' | 'created_on'>;

/** Event staff by id (a page's batch). */
export function eventStaffByIds(db: Db, ids: readonly number[]): Promise<EventStaffRow[]> {
  return db(EventStaff.tableName).whereIn('id', ids as number[]);
}

/** The staff of these events, oldest first. */
export function staffOfEvents(db: Db, eventIds: readonly number[]): Promise<EventStaffRow[]> {
  return db(EventStaff.tableName)
    .whereIn('event_id', eventIds as number[])
    .orderBy('id');
}

/** The staff of these sessions. */
export function staffOfSessions(db: Db, sessionIds: readonly number[]): Promise<SessionStaffRow[]> {
  return db(SessionStaff.tableName)
    .whereIn('session_id', sessionIds as number[])
    .orderBy(['session_id', 'created_on', 'contact_id']);
}

/** Locks these events (for their staff's primary instructor); the ids of those there are. */
export async function lockEvents(db: Db, ids: readonly number[]): Promise<number[]> {
  if (!ids.length) return [];
  const { rows } = await db.raw<{ rows: { id: number }[] }>(`select id from events where id = any(?) order by id for no key update`, [
    [...ids],
  ]);
  return rows.map((r) => r.id);
}

/**
 * Locks these sessions, or every session of these events, against a change of their times
 * (FOR SHARE: bookings onto one session do not wait for each other); the sessions there are.
 */
export async function lockSessions(
  db: Db,
  of: { sessionIds?: readonly number[]; eventIds?: readonly number[] },
): Promise<{ id: number; event_id: number }[]> {
  const sessionIds = [...(of.sessionIds ?? [])];
  const eventIds = [...(of.eventIds ?? [])];
  if (!sessionIds.length && !eventIds.length) return [];
  const { rows } = await db.raw<{ rows: { id: number; event_id: number }[] }>(
    `select id, event_id from sessions where id = any(?) or event_id = any(?) order by id for share`,
    [sessionIds, eventIds],
  );
  return rows;
}

/** Locks these contacts, one person's bookings after another's; their names and roles (contacts there are). */
export async function lockContacts(db: Db, ids: readonly number[]): Promise<StaffContact[]> {
  if (!ids.length) return [];
  const { rows } = await db.raw<{ rows: StaffContact[] }>(
    `select id, first_name, last_name, is_tutor, is_staff, is_admin, is_deleted from contacts where id = any(?) order by id for no key update`,
    [[...ids]],
  );
  return rows;
}

/** The sessions an instructor's event staffing books: every session of the event unless it books only the sessions they are staff of. */
const EVENT_BOOKINGS = `select es.contact_id, s.id as session_id from event_staff es join sessions s on s.event_id = es.event_id
  where es.staff_type = 'instructor' and not es.required_sessions_only`;
const SESSION_BOOKINGS = `select ss.contact_id, ss.session_id from session_staff ss where ss.staff_type = 'instructor'`;

/**
 * Locks (in id order) the instructors booked on these sessions: those who are their session
 * staff, or staff of their events who book every session. For a change of the sessions' times,
 * after the sessions themselves are locked. Who teaches which session.
 */
export async function instructorsOfSessionsLocked(
  db: Db,
  sessionIds: readonly number[],
): Promise<{ contact_id: number; session_id: number }[]> {
  if (!sessionIds.length) return [];
  const { rows } = await db.raw<{ rows: { contact_id: number; session_id: number }[] }>(
    `select b.contact_id, b.session_id from contacts c
       join (${SESSION_BOOKINGS} union ${EVENT_BOOKINGS}) b on b.contact_id = c.id
      where b.session_id = any(?)
      order by c.id, b.session_id for no key update of c`,
    [[...sessionIds]],
  );
  return rows;
}

/**
 * A booking to check: `contact_id` teaching `session_id`, or every session of `event_id`. `item`
 * says which of the caller's bookings it is.
 */
export interface Booking {
  item: number;
  contact_id: number;
  session_id?: number | null;
  event_id?: number | null;
}

/** Times a session is about to have (a rescheduling checked before it is written): instants. */
export interface SessionTimes {
  session_id: number;
  starts_at: string | null;
  ends_at: string | null;
}

interface ClashRow {
  item: number;
  contact_id: number;
  first_name: string | null;
  last_name: string | null;
  session_id: number;
  session_title: string;
  event_id: number;
  event_title: string | null;
  starts: string;
  ends: string;
  other_session_id: number;
  other_title: string;
  other_event_id: number;
  other_event_title: string | null;
  other_starts: string;
  other_ends: string;
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`;

/**
 * The clashes of these bookings, one per booking and contact (the earliest): the bookings
 * given, with the times given, against every other booking of their contacts (those stored and
 * the others given). One statement. Callers lock what they book onto, then the contacts, first.
 */
export async function clashesOf(db: Db, bookings: readonly Booking[], times: readonly SessionTimes[] = []): Promise<InstructorClash[]> {
  if (!bookings.length) return [];
  const { rows } = await db.raw<{ rows: ClashRow[] }>(
    `with asked as (
        select a.item, a.contact_id, coalesce(a.session_id, s.id) as session_id
          from jsonb_to_recordset(?::jsonb) as a(item int, contact_id int, session_id int, event_id int)
          left join sessions s on a.session_id is null and s.event_id = a.event_id
         where a.session_id is not null or s.id is not null
      ),
      booked as (
        select contact_id, session_id from asked
        union select b.contact_id, b.session_id from (${SESSION_BOOKINGS} union ${EVENT_BOOKINGS}) b
         where b.contact_id in (select contact_id from asked)
      ),
      timed as (
        select s.id, s.title, s.event_id, e.title as event_title,
               coalesce(o.starts_at, s.starts_at) as starts_at, coalesce(o.ends_at, s.ends_at) as ends_at
          from sessions s
          join events e on e.id = s.event_id
          left join jsonb_to_recordset(?::jsonb) as o(session_id int, starts_at timestamptz, ends_at timestamptz) on o.session_id = s.id
         where s.id in (select session_id from booked)
           and s.lifecycle_state <> 'cancelled' and e.lifecycle_state <> 'cancelled' and not e.is_cancelled
      )
      select distinct on (a.item, a.contact_id)
             a.item, a.contact_id, c.first_name, c.last_name,
             mine.id as session_id, mine.title as session_title, mine.event_id, mine.event_title,
             to_char(mine.starts_at at time zone 'UTC', ${ISO}) as starts, to_char(mine.ends_at at time zone 'UTC', ${ISO}) as ends,
             other.id as other_session_id, other.title as other_title, other.event_id as other_event_id, other.event_title as other_event_title,
             to_char(other.starts_at at time zone 'UTC', ${ISO}) as other_starts, to_char(other.ends_at at time zone 'UTC', ${ISO}) as other_ends
        from asked a
        join timed mine on mine.id = a.session_id
        join booked b on b.contact_id = a.contact_id and b.session_id <> a.session_id
        join timed other on other.id = b.session_id
        join contacts c on c.id = a.contact_id
       where other.starts_at < mine.ends_at and mine.starts_at < other.ends_at
       order by a.item, a.contact_id, mine.starts_at, mine.id, other.starts_at, other.id`,
    [JSON.stringify(bookings), JSON.stringify(times)],
  );
  return rows.map((r) => ({
    item: r.item,
    contactId: r.contact_id,
    contactName: contactName({ id: r.contact_id, first_name: r.first_name, last_name: r.last_name }),
    session: booked(r.session_id, r.session_title, r.event_id, r.event_title, r.starts, r.ends),
    clashesWith: booked(r.other_session_id, r.other_title, r.other_event_id, r.other_event_title, r.other_starts, r.other_ends),
  }));
}

const booked = (
  sessionId: number,
  sessionTitle: string,
  eventId: number,
  eventTitle: string | null,
  start: string,
  end: string,
): BookedSession => ({ sessionId, sessionTitle, eventId, eventTitle, start, end });

/** The columns a new event staff member is written with. */
export type NewEventStaff = Pick<
  EventStaffRow,
  'event_id' | 'contact_id' | 'staff_type' | 'is_primary' | 'notes' | 'required_sessions_only'
>;

/** Inserts event staff; the rows, in order. */
export function insertEventStaff(db: Db, rows: readonly NewEventStaff[]): Promise<EventStaffRow[]> {
  if (!rows.length) return Promise.resolve([]);
  return db(EventStaff.tableName)
    .insert(rows as NewEventStaff[])
    .returning('*') as Promise<EventStaffRow[]>;
}

/** Changes an event staff member's notes and what it books. */
export async function updateEventStaff(
  db: Db,
  id: number,
  columns: Partial<Pick<EventStaffRow, 'notes' | 'required_sessions_only'>>,
): Promise<void> {
  await db(EventStaff.tableName).where({ id }).update(columns);
}

/** Deletes an event staff member; its row, or undefined when there was none. */
export async function deleteEventStaff(db: Db, id: number): Promise<EventStaffRow | undefined> {
  const [row] = (await db(EventStaff.tableName).where({ id }).delete().returning('*')) as EventStaffRow[];
  return row;
}

/** Makes the longest-serving instructor of the event its primary one, when it has instructors and none is primary. */
export async function promotePrimary(db: Db, eventId: number): Promise<void> {
  await db.raw(
    `update event_staff set is_primary = true
      where id = (select id from event_staff where event_id = ? and staff_type = 'instructor' order by id limit 1)
        and not exists (select 1 from event_staff where event_id = ? and staff_type = 'instructor' and is_primary)`,
    [eventId, eventId],
  );
}

/** Adds session staff; a contact already staff of the session with that type stays as it is. */
export async function insertSessionStaff(
  db: Db,
  rows: readonly Pick<SessionStaffRow, 'session_id' | 'contact_id' | 'staff_type'>[],
): Promise<void> {
  if (!rows.length) return;
  await db(SessionStaff.tableName)
    .insert(rows as SessionStaffRow[])
    .onConflict(['session_id', 'contact_id', 'staff_type'])
    .ignore();
}
