import type { Db } from '../../platform/db/knex.js';
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import type { Problem } from '../../platform/problems.js';
import { appendScoreMapping, findCourseTemplate, mappingRecord, mappingsOf, type MappingRow } from '../course-templates/index.js';
import { contactExists } from '../crm/index.js';
import { userIdOfContact } from '../users/index.js';
import {
  decrementPlaces,
  deleteDelegate,
  delegateTemplateId,
  insertDelegate,
  lockDelegate,
  scoresOf,
  upsertScores,
  type DelegateRow,
} from './delegates.data.js';
import { checkScores, mappingProblems } from './delegates.rules.js';

/** A delegate just named, and the id of the user of their contact (null when none). */
export interface NamedDelegate {
  delegate: DelegateRow;
  userId: number | null;
}

/**
 * Names one place of an unnamed delegate row: a new named row for the contact, one place less
 * on the unnamed row, which is deleted when it reaches zero. The unnamed row is locked, so
 * concurrent namings of N places make exactly N named rows. `contactId` is a row id, or the
 * value as sent when it is not one: the contract allows 400 only for a missing contact_id, so
 * any other value that names no contact is a 404 (after the delegate's own 404).
 */
export async function nameDelegate(db: Db, delegateId: number, contactId: number | string): Promise<NamedDelegate> {
  const unnamed = await lockDelegate(db, delegateId);
  if (!unnamed) throw new NotFoundError(`Delegate ${delegateId} does not exist`);
  if (unnamed.contact_id !== null)
    throw new NotFoundError(`Delegate ${delegateId} is already named: it has no unnamed places`, 'no_unnamed_places');
  if (typeof contactId !== 'number' || !(await contactExists(db, contactId)))
    throw new NotFoundError(`Contact ${contactId} does not exist`, 'contact_not_found');

  const named = await insertDelegate(db, {
    event_id: unnamed.event_id,
    contact_id: contactId,
    registration_id: unnamed.registration_id,
    comms_contact_id: unnamed.comms_contact_id,
  });
  if ((unnamed.num_places ?? 0) > 1) await decrementPlaces(db, delegateId);
  else await deleteDelegate(db, delegateId);
  return { delegate: named, userId: await userIdOfContact(db, contactId) };
}

async function delegateMappings(db: Db, delegateId: number): Promise<MappingRow[]> {
  const row = await delegateTemplateId(db, delegateId);
  if (!row) throw new NotFoundError(`Delegate ${delegateId} does not exist`);
  return row.course_template_id ? mappingsOf(db, [row.course_template_id]) : [];
}

/** A score as the delegate's scores list it: its mapping (label, id, type_id) and value. */
export interface ScoreEntry {
  mapping: { label: string; id: number; type_id: number };
  value: string;
}

async function scoreEntries(db: Db, delegateId: number, mappings: MappingRow[]): Promise<ScoreEntry[]> {
  const byId = new Map(mappings.map((m) => [m.id, m]));
  const scores = await scoresOf(db, delegateId);
  return scores
    .filter((s) => byId.has(s.mapping_id))
    .sort((a, b) => a.mapping_id - b.mapping_id)
    .map((s) => {
      const m = mappingRecord(byId.get(s.mapping_id)!);
      return { mapping: { label: m.label, id: m.id, type_id: m.type_id }, value: s.value };
    });
}

/** The delegate's score entries: mapping (label, id, type_id) and value. */
export async function getScores(db: Db, delegateId: number): Promise<ScoreEntry[]> {
  return scoreEntries(db, delegateId, await delegateMappings(db, delegateId));
}

/**
 * Sets scores from `{"<mapping id>": "<value>"}`. Every key must be a mapping of the delegate's
 * event template and every value a string of the mapping's type; otherwise nothing is written
 * and the problems come back. A value that is not an object at all is a 400.
 */
export async function setScores(db: Db, delegateId: number, values: unknown): Promise<{ scores: ScoreEntry[] } | { problems: Problem[] }> {
  const mappings = await delegateMappings(db, delegateId);
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new BadRequestError('Scores must be a JSON object of {"<mapping id>": "<value>"}', undefined, 'invalid_body');
  }
  const { problems, scores } = checkScores(values as Record<string, unknown>, mappings);
  if (problems.length) return { problems };
  if (scores.length)
    await upsertScores(
      db,
      scores.map((s) => ({ delegate_id: delegateId, ...s })),
    );
  return { scores: await scoreEntries(db, delegateId, mappings) };
}

/**
 * Adds a score mapping to an event template's custom template (`label` trimmed). The problems of
 * the input, when any, and nothing written; a 404 when there is no such template.
 */
export async function addMapping(
  db: Db,
  templateId: number,
  input: { label?: unknown; type_id?: unknown },
): Promise<{ problems: Problem[] }> {
  const template = await findCourseTemplate(db, templateId);
  if (!template) throw new NotFoundError(`Custom template ${templateId} does not exist`);
  const problems = mappingProblems(input);
  if (!problems.length)
    await appendScoreMapping(db, templateId, { label: (input.label as string).trim(), type_id: input.type_id as number });
  return { problems };
}
