import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import type { Db } from '../../platform/db/knex.js';
import { recordsById } from '../../kit/rest/embed.js';
import { defineResource, restFieldErrors, type Resource, type RestRecord } from '../../kit/rest/resource.js';
import { CONTACT_ROWS } from '../crm/index.js';
import { EVENT_ROWS } from '../events/index.js';
import { Delegate } from './delegates.data.js';
import { isId } from './delegates.rules.js';
import { addMapping, getScores, nameDelegate, setScores, type ScoreEntry } from './delegates.service.js';

/**
 * A contact's place on an event. Unnamed rows (no contact_id) hold `num_places` bought without
 * names; naming one moves a place to a new named row (see delegates.service.ts).
 */
/** The resources a delegate embeds (its event, its contacts): other modules' faces, wired by the app. */
export interface DelegateEmbeds {
  events: Resource;
  contacts: Resource;
}

export const delegatesResource = (embeds: DelegateEmbeds): Resource =>
  defineResource({
    name: 'Delegate',
    path: 'event/delegates',
    table: Delegate.tableName,
    permission: 'DELEGATE',
    operations: ['list', 'get', 'create', 'delete'],
    fields: {
      id: { type: 'integer', column: 'id', nullable: false },
      event_id: { type: 'integer', column: 'event_id', required: true, nullable: false, references: EVENT_ROWS },
      contact_id: { type: 'integer', column: 'contact_id', required: true, references: CONTACT_ROWS },
      registration_id: { type: 'integer', column: 'registration_id', writable: false },
      comms_contact_id: { type: 'integer', column: 'comms_contact_id', references: CONTACT_ROWS },
      comms_contact: { type: 'object' },
      notes: { type: 'string', column: 'notes', maxLength: 10000 },
      overall_attendance: { type: 'number', column: 'overall_attendance', writable: false },
      cancelled_date: { type: 'date', column: 'cancelled_date', writable: false },
      passed: { type: 'boolean', column: 'passed', writable: false },
      num_delegates: { type: 'integer', nullable: false },
      num_places: { type: 'integer', column: 'num_places', writable: false, description: 'present on unnamed delegate rows only' },
      event: { type: 'object' },
      contact: { type: 'object' },
    },
    async enrich(db, rows, records) {
      // Sequential on purpose: a transaction is one connection, which runs one query at a time.
      const events = await recordsById(
        db,
        embeds.events,
        rows.map((r) => r.event_id),
      );
      const people = await recordsById(
        db,
        embeds.contacts,
        rows.flatMap((r) => [r.contact_id, r.comms_contact_id]),
      );
      rows.forEach((row, i) => {
        const rec = records[i]!;
        const unnamed = row.contact_id === null;
        rec.num_delegates = unnamed ? row.num_places : 1;
        if (!unnamed) delete rec.num_places;
        rec.comms_contact = people.get(row.comms_contact_id as number) ?? null;
        rec.event = events.get(row.event_id as number) ?? null;
        rec.contact = people.get(row.contact_id as number) ?? null;
      });
    },
  });

/** Fields of the embedded event that the naming response leaves out (contract). */
const NOT_IN_NAMING_EVENT = [
  'prices',
  'delegates_reserved',
  'delegates_booked',
  'is_sold_out',
  'is_online',
  'is_cancelled',
  'registration_deadline',
  'classroom_start',
  'classroom_end',
  'notes',
  'notes2',
  'event_template_id',
  'overall_attendance',
  'account_venue',
];

/**
 * `POST event/delegates/:id/name {"contact_id"}`: names one place of an unnamed row. The new
 * named delegate, with a reduced event and its contact's user_id.
 */
export async function nameDelegatePlace(delegates: Resource, db: Db, delegateId: number, body: unknown): Promise<RestRecord> {
  const contactId = (body as { contact_id?: unknown } | null)?.contact_id;
  if (contactId === undefined || contactId === null)
    throw new BadRequestError('contact_id is required', { fields: { contact_id: 'is required' } }, 'contact_id_required');
  const { delegate, userId } = await nameDelegate(db, delegateId, isId(contactId) ? contactId : String(contactId));
  const [record] = await delegates.serialise(db, [delegate]);
  const event = record!.event as RestRecord | null;
  if (event) for (const k of NOT_IN_NAMING_EVENT) delete event[k];
  (record!.contact as RestRecord).user_id = userId;
  return record!;
}

/** `GET event/delegates/:id/scores`. */
export const delegateScores = (db: Db, delegateId: number): Promise<ScoreEntry[]> => getScores(db, delegateId);

/** `POST event/delegates/:id/scores {"<mapping id>": "<value>"}`: the entries, or a 400 naming every key at fault. */
export async function saveDelegateScores(db: Db, delegateId: number, body: unknown): Promise<ScoreEntry[]> {
  const saved = await setScores(db, delegateId, body);
  if ('problems' in saved) {
    const errors = restFieldErrors(saved.problems);
    throw new BadRequestError(
      'Scores were not saved: ' +
        Object.entries(errors)
          .map(([k, v]) => `${k} ${v}`)
          .join('; '),
      { fields: errors },
      'invalid_scores',
    );
  }
  return saved.scores;
}

/** `POST <custom templates>/:id/mappings {"label", "type_id"}`: adds a score mapping; refused input is a 404 (contract). */
export async function addCustomTemplateMapping(db: Db, templateId: number, body: unknown): Promise<void> {
  const { problems } = await addMapping(db, templateId, (body ?? {}) as { label?: unknown; type_id?: unknown });
  if (problems.length) {
    const errors = restFieldErrors(problems);
    throw new NotFoundError(
      'Mapping could not be created: ' +
        Object.entries(errors)
          .map(([k, v]) => `${k} ${v}`)
          .join('; '),
      'could_not_create',
      { fields: errors },
    );
  }
}
