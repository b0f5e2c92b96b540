import type { Db } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import type { ModelObject } from 'objection';
import { BaseModel } from '../../platform/db/model.js';
import { Delegate, type DelegateRow } from './delegates.data.js';

/**
 * Learners (the named `delegates` rows: a contact's place on an event) as Core GraphQL lists and
 * changes them, and their attendance of their event's sessions (`learner_attendances`, one row per
 * learner and session). Every function takes the tenant's transaction first.
 *
 * @uses contacts: the learners list filters on its contact's e-mail address (contactEmailAddress) in the one statement of a page; a registration holds the contacts it registers (for key share) so none is deleted before its learner is written
 * @uses sessions: a page of learners' attendance is read in its sessions' start order, one statement for the page; recording attendance holds its session (for key share) so it is not deleted before the attendance is written
 */

export class LearnerAttendance extends BaseModel {
  static override tableName = 'learner_attendances';
  static override get idColumn() {
    return ['delegate_id', 'session_id'];
  }

  declare delegate_id: number;
  declare session_id: number;
  declare attended: boolean;
  /** When it was last recorded (UTC, no zone). */
  declare recorded_on: string;
}

export type LearnerAttendanceRow = ModelObject<LearnerAttendance>;

/**
 * SQL over a learner `t` (a delegates row) of the Core list for what clients filter on that no
 * column holds as they name it: computed only by a list that filters or orders on it.
 */
export const LEARNER_LIST_SQL = {
  /** As Learner.lifecycleState. */
  lifecycleState: `(case when t.cancelled_date is null then 'active' else 'cancelled' end)`,
  isActive: '(t.cancelled_date is null)',
  isCancelled: '(t.cancelled_date is not null)',
  /** Lower-cased: clients' addresses match whatever their case. */
  contactEmailAddress: '(select lower(c.email) from contacts c where c.id = t.contact_id)',
  createdAt: `(t.created_on at time zone 'UTC')`,
  expiresAt: `(t.expires_at at time zone 'UTC')`,
} as const;

/**
 * The contacts among `ids` that are there (not deleted), held until the transaction ends: FOR KEY
 * SHARE, the lock their learners' foreign key takes anyway, so a delete (REST DELETE crm/contacts)
 * waits for the registration, or has removed them before it looks.
 */
export function keepContacts(db: Db, ids: readonly number[]): Promise<number[]> {
  if (!ids.length) return Promise.resolve([]);
  return db('contacts')
    .whereIn('id', ids as number[])
    .where({ is_deleted: false })
    .forKeyShare()
    .pluck('id');
}

/**
 * A session (its id and event), held until the transaction ends: FOR KEY SHARE, the lock its
 * attendance's foreign key takes anyway, so session.delete waits for the attendance or has
 * removed it before it is looked at. Undefined when there is none.
 */
export function keepSession(db: Db, id: number): Promise<{ id: number; event_id: number } | undefined> {
  return db('sessions').where({ id }).forKeyShare().first<{ id: number; event_id: number } | undefined>('id', 'event_id');
}

/**
 * A learner (a named delegate row) locked for recording its attendance (FOR NO KEY UPDATE, the
 * lock the change of its `updated_on` takes anyway): neither deleted nor cancelled before the
 * attendance is written. Undefined when there is none.
 */
export function lockLearner(db: Db, id: number): Promise<DelegateRow | undefined> {
  return db(Delegate.tableName).where({ id }).whereNotNull('contact_id').forNoKeyUpdate().first<DelegateRow | undefined>();
}

/** The contacts among `contactIds` that hold an active (not cancelled) place on the event. */
export function contactsWithActivePlaces(db: Db, eventId: number, contactIds: readonly number[]): Promise<number[]> {
  return db(Delegate.tableName)
    .where({ event_id: eventId })
    .whereIn('contact_id', contactIds as number[])
    .whereNull('cancelled_date')
    .distinct()
    .pluck('contact_id');
}

/** New learners (named rows) on an event, in the order given; answers them as stored. */
export async function insertLearners(
  db: Db,
  rows: readonly Pick<DelegateRow, 'event_id' | 'contact_id' | 'comms_contact_id' | 'notes'>[],
): Promise<DelegateRow[]> {
  if (!rows.length) return [];
  return (await db(Delegate.tableName)
    .insert(rows as Pick<DelegateRow, 'event_id' | 'contact_id' | 'comms_contact_id' | 'notes'>[])
    .returning('*')) as DelegateRow[];
}

/** A cancelled learner made active again; answers the row as stored. */
export async function clearCancellation(db: Db, id: number): Promise<DelegateRow> {
  const [row] = (await db(Delegate.tableName)
    .where({ id })
    .update({ cancelled_date: null, updated_on: utcNow(db) })
    .returning('*')) as DelegateRow[];
  return row!;
}

/** The attendance recorded for these learners, each learner's in the order of the sessions (by start). */
export function attendancesOf(db: Db, delegateIds: readonly number[]): Promise<LearnerAttendanceRow[]> {
  return db(`${LearnerAttendance.tableName} as a`)
    .join('sessions as s', 's.id', 'a.session_id')
    .whereIn('a.delegate_id', delegateIds as number[])
    .orderBy([{ column: 'a.delegate_id' }, { column: 's.starts_at' }, { column: 's.id' }])
    .select<LearnerAttendanceRow[]>('a.*');
}

/** Records whether a learner attended a session, replacing what was recorded before. */
export async function upsertAttendance(db: Db, row: Pick<LearnerAttendanceRow, 'delegate_id' | 'session_id' | 'attended'>): Promise<void> {
  await db(LearnerAttendance.tableName)
    .insert(row)
    .onConflict(['delegate_id', 'session_id'])
    .merge({ attended: db.raw('excluded.attended'), recorded_on: utcNow(db) });
}

/** Marks the learner changed (its attendance was recorded). */
export async function touchLearner(db: Db, id: number): Promise<void> {
  await db(Delegate.tableName)
    .where({ id })
    .update({ updated_on: utcNow(db) });
}
