import type { Db } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import type { ModelObject } from 'objection';
import { BaseModel } from '../../platform/db/model.js';
import { Event } from '../events/index.js';

/**
 * Delegates (a contact's place on an event, or places bought without names) and their scores:
 * the only file that names the `delegates` and `delegate_scores` tables. Every function takes the
 * tenant's transaction first.
 *
 * @uses events: a delegate's event (its template, for score mappings) is joined through the `event` relation to the events module's model, one statement
 */

export class Delegate extends BaseModel {
  static override tableName = 'delegates';

  declare id: number;
  declare event_id: number;
  /** null on a row of places bought without names. */
  declare contact_id: number | null;
  declare registration_id: number | null;
  declare comms_contact_id: number | null;
  declare notes: string | null;
  /** numeric(6,2) as text. */
  declare overall_attendance: string | null;
  declare cancelled_date: string | null;
  declare passed: boolean | null;
  /** Places held by an unnamed row (contact_id null); null on a named row. */
  declare num_places: number | null;
  /** When the learner's access ends (LMS events); null: it does not. UTC, no zone. */
  declare expires_at: string | null;
  declare created_on: string;
  declare updated_on: string;

  declare scores?: DelegateScore[];
  declare event?: Event;

  static override get relationMappings() {
    return {
      scores: {
        relation: BaseModel.HasManyRelation,
        modelClass: DelegateScore,
        join: { from: 'delegates.id', to: 'delegate_scores.delegate_id' },
      },
      event: {
        relation: BaseModel.BelongsToOneRelation,
        modelClass: Event,
        join: { from: 'delegates.event_id', to: `${Event.tableName}.id` },
      },
    };
  }
}

/** A delegate's value for one score mapping of their event's template. */
export class DelegateScore extends BaseModel {
  static override tableName = 'delegate_scores';
  static override get idColumn() {
    return ['delegate_id', 'mapping_id'];
  }

  declare delegate_id: number;
  declare mapping_id: number;
  declare value: string;
  declare updated_on: string;
}

export type DelegateRow = ModelObject<Delegate>;

/** The delegates of these registrations, oldest first. */
export function delegatesOfRegistrations(db: Db, registrationIds: readonly number[]): Promise<DelegateRow[]> {
  return db(Delegate.tableName)
    .whereIn('registration_id', registrationIds as number[])
    .orderBy('id');
}

/**
 * The named rows (learners: a contact's place on an event) among these ids, in no order; rows of
 * places bought without names are left out, so an id of one names no learner.
 */
export function learnersByIds(db: Db, ids: readonly number[]): Promise<DelegateRow[]> {
  return db(Delegate.tableName)
    .whereIn('id', ids as number[])
    .whereNotNull('contact_id');
}

/** The delegate locked for a change, or undefined. */
export function lockDelegate(db: Db, id: number): Promise<DelegateRow | undefined> {
  return db(Delegate.tableName).where({ id }).forUpdate().first<DelegateRow | undefined>();
}

export async function insertDelegate(
  db: Db,
  row: Pick<Delegate, 'event_id' | 'contact_id' | 'registration_id' | 'comms_contact_id'>,
): Promise<DelegateRow> {
  const [named] = (await db(Delegate.tableName).insert(row).returning('*')) as DelegateRow[];
  return named!;
}

/** Adds delegates as they are given (named rows, and unnamed rows with num_places): seeds and imports. */
export async function insertDelegates(
  db: Db,
  rows: (Pick<Delegate, 'event_id'> &
    Partial<Pick<Delegate, 'contact_id' | 'num_places' | 'registration_id' | 'comms_contact_id' | 'cancelled_date' | 'expires_at'>>)[],
): Promise<void> {
  await db(Delegate.tableName).insert(rows);
}

/** One place less on an unnamed row. */
export async function decrementPlaces(db: Db, id: number): Promise<void> {
  await db(Delegate.tableName).where({ id }).decrement('num_places', 1);
}

export async function deleteDelegate(db: Db, id: number): Promise<void> {
  await db(Delegate.tableName).where({ id }).delete();
}

/** The delegate's event's template (null when the event has none); undefined when there is no such delegate. */
export async function delegateTemplateId(db: Db, delegateId: number): Promise<{ course_template_id: number | null } | undefined> {
  return Delegate.query(db)
    .joinRelated('event')
    .where('delegates.id', delegateId)
    .first()
    .select('event.course_template_id')
    .castTo<{ course_template_id: number | null } | undefined>();
}

export function scoresOf(db: Db, delegateId: number): Promise<Pick<DelegateScore, 'mapping_id' | 'value'>[]> {
  return db(DelegateScore.tableName).where({ delegate_id: delegateId }).select('mapping_id', 'value');
}

/** Sets the scores given, replacing a value already set for the same mapping. */
export async function upsertScores(db: Db, writes: Pick<DelegateScore, 'delegate_id' | 'mapping_id' | 'value'>[]): Promise<void> {
  await db(DelegateScore.tableName)
    .insert(writes)
    .onConflict(['delegate_id', 'mapping_id'])
    .merge({ value: db.raw('excluded.value'), updated_on: utcNow(db) });
}
