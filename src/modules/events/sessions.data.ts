import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { utcNow } from '../../platform/db/sql.js';

/**
 * Sessions: an event's meetings (Core `Event.sessions`, `Session`), and their custom field
 * values. The only file that names the `sessions` and `session_field_values` tables. Every
 * function takes the transaction first. `starts_at`/`ends_at` are instants (timestamptz, read as
 * Dates); `time_zone_name` is the clock their local times are written on.
 */

export class Session extends BaseModel {
  static override tableName = 'sessions';

  declare id: number;
  declare event_id: number;
  declare title: string;
  declare starts_at: Date;
  declare ends_at: Date;
  /** IANA zone the session's local times are written in (as its event's). */
  declare time_zone_name: string;
  /** One of SESSION_STATES. */
  declare lifecycle_state: string;
  declare venue_id: number | null;
  declare location_id: number | null;
  declare created_on: string;
  declare updated_on: string;
}

/** A custom field value of a session (definitions that apply to `session`). */
export class SessionFieldValue extends BaseModel {
  static override tableName = 'session_field_values';
  static override get idColumn() {
    return ['session_id', 'definition_id'];
  }

  declare session_id: number;
  declare definition_id: number;
  declare value: string;
}

export type SessionRow = ModelObject<Session>;
export type SessionValueRow = ModelObject<SessionFieldValue>;

/** A session to write: its instants as ISO 8601 text (`2027-03-10T09:00:00Z`). */
export interface NewSession {
  event_id: number;
  title: string;
  starts_at: string | Date;
  ends_at: string | Date;
  time_zone_name: string;
  lifecycle_state: string;
  venue_id: number | null;
  location_id: number | null;
}

/** Inserts sessions in one statement, answering them in the order given. */
export async function insertSessions(db: Db, rows: NewSession[]): Promise<SessionRow[]> {
  if (!rows.length) return [];
  return (await db(Session.tableName).insert(rows).returning('*')) as SessionRow[];
}

/** Sessions by id (a page's batch). */
export function sessionsByIds(db: Db, ids: readonly number[]): Promise<SessionRow[]> {
  return db(Session.tableName).whereIn('id', ids as number[]);
}

/** An event's sessions in start order (ties by id). */
export function sessionsOfEvent(db: Db, eventId: number): Promise<SessionRow[]> {
  return db(Session.tableName)
    .where({ event_id: eventId })
    .orderBy([{ column: 'starts_at' }, { column: 'id' }]);
}

/** Those of `ids` that are sessions, locked for a change (in id order, so two callers cannot deadlock). */
export function lockSessions(db: Db, ids: readonly number[]): Promise<SessionRow[]> {
  if (!ids.length) return Promise.resolve([]);
  return db(Session.tableName)
    .whereIn('id', ids as number[])
    .orderBy('id')
    .forUpdate();
}

/** The columns a change of a session sets. */
export type SessionColumns = Partial<
  Pick<NewSession, 'title' | 'starts_at' | 'ends_at' | 'time_zone_name' | 'lifecycle_state' | 'venue_id' | 'location_id'>
>;

/** Sets `columns` and the time of the change. */
export async function updateSessionRow(db: Db, id: number, columns: SessionColumns): Promise<SessionRow> {
  const [row] = (await db(Session.tableName)
    .where({ id })
    .update({ ...columns, updated_on: utcNow(db) })
    .returning('*')) as SessionRow[];
  return row!;
}

/** Deletes sessions (their custom field values, staff and attendance go with them). */
export async function deleteSessionRows(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length)
    await db(Session.tableName)
      .whereIn('id', ids as number[])
      .delete();
}

/** The custom field values of some sessions. */
export function sessionValuesOf(db: Db, sessionIds: readonly number[]): Promise<SessionValueRow[]> {
  return db(SessionFieldValue.tableName)
    .whereIn('session_id', sessionIds as number[])
    .orderBy(['session_id', 'definition_id']);
}

/** Sets a session's values of the definitions given (null removes one); its other values stay. */
export async function writeSessionValues(
  db: Db,
  sessionId: number,
  values: { def: { id: number }; value: string | null }[],
): Promise<void> {
  const removed = values.filter((v) => v.value === null).map((v) => v.def.id);
  const set = values.filter((v) => v.value !== null).map((v) => ({ session_id: sessionId, definition_id: v.def.id, value: v.value! }));
  if (removed.length) await db(SessionFieldValue.tableName).where({ session_id: sessionId }).whereIn('definition_id', removed).delete();
  if (set.length) await db(SessionFieldValue.tableName).insert(set).onConflict(['session_id', 'definition_id']).merge(['value']);
}

/**
 * Copies an event's sessions (as they are: title, times, state, venue, location) and their
 * custom field values to another event (a duplicate), in start order. Two statements, whatever
 * the number of sessions.
 */
export async function copySessions(db: Db, fromEventId: number, toEventId: number): Promise<SessionRow[]> {
  const source = await sessionsOfEvent(db, fromEventId);
  const copies = await insertSessions(
    db,
    source.map((s) => ({
      event_id: toEventId,
      title: s.title,
      starts_at: s.starts_at,
      ends_at: s.ends_at,
      time_zone_name: s.time_zone_name,
      lifecycle_state: s.lifecycle_state,
      venue_id: s.venue_id,
      location_id: s.location_id,
    })),
  );
  if (copies.length) {
    // INSERT ... VALUES ... RETURNING answers the rows in the order of its VALUES.
    const pairs = source.map((s, i) => ({ old_id: s.id, new_id: copies[i]!.id }));
    await db.raw(
      `insert into session_field_values (session_id, definition_id, value)
       select m.new_id, v.definition_id, v.value
         from session_field_values v join json_to_recordset(?::json) as m(old_id int, new_id int) on m.old_id = v.session_id`,
      [JSON.stringify(pairs)],
    );
  }
  return copies;
}
