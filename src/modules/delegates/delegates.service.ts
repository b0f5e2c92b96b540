import type { Db } from '../../platform/db/knex.js';
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import { hasNul } from '../../platform/util/dates.js';
import type { RestRecord, Row } from '../../kit/rest/resource.js';
import { delegates } from './delegates.rest.js';
import { MAPPING_TYPES, mappingRecord, mappingsOf, type MappingRow } from '../course-templates/score-mappings.js';

/** A value that can be a row id (a PostgreSQL integer above zero). */
const isId = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) <= 2147483647;

/** Fields of the embedded event that the naming response leaves out (contract). */
const NOT_IN_NAMING_EVENT = [
  'prices', 'delegates_reserved', 'delegates_booked', 'is_sold_out', 'is_online', 'is_cancelled', 'registration_deadline',
  'classroom_start', 'classroom_end', 'notes', 'notes2', 'event_template_id', 'overall_attendance', 'account_venue',
];

/**
 * Names one place of an unnamed delegate row: a new named row for `contact_id`, one place less
 * on the unnamed row, which is deleted when it reaches zero. The unnamed row is locked, so
 * concurrent namings of N places make exactly N named rows.
 */
export async function nameDelegate(db: Db, delegateId: number, body: unknown): Promise<RestRecord> {
  const contactId = (body as { contact_id?: unknown } | null)?.contact_id;
  if (contactId === undefined || contactId === null) throw new BadRequestError('contact_id is required', { fields: { contact_id: 'is required' } }, 'contact_id_required');
  const unnamed = (await db('delegates').where({ id: delegateId }).forUpdate().first()) as Row | undefined;
  if (!unnamed) throw new NotFoundError(`Delegate ${delegateId} does not exist`);
  if (unnamed.contact_id !== null) throw new NotFoundError(`Delegate ${delegateId} is already named: it has no unnamed places`, 'no_unnamed_places');
  // The contract allows 400 only for a missing contact_id; any other value that names no contact is a 404.
  const contact = isId(contactId) ? await db('contacts').where({ id: contactId }).first('id') : undefined;
  if (!contact) throw new NotFoundError(`Contact ${String(contactId)} does not exist`, 'contact_not_found');

  const [named] = (await db('delegates')
    .insert({ event_id: unnamed.event_id, contact_id: contactId, registration_id: unnamed.registration_id, comms_contact_id: unnamed.comms_contact_id })
    .returning('*')) as Row[];
  if ((unnamed.num_places as number) > 1) await db('delegates').where({ id: delegateId }).decrement('num_places', 1);
  else await db('delegates').where({ id: delegateId }).delete();

  const [record] = await delegates.serialise(db, [named!]);
  const event = record!.event as RestRecord | null;
  if (event) for (const k of NOT_IN_NAMING_EVENT) delete event[k];
  const user = await db('users').where({ contact_id: contactId }).first('id');
  (record!.contact as RestRecord).user_id = user?.id ?? null;
  return record!;
}

async function delegateMappings(db: Db, delegateId: number): Promise<MappingRow[]> {
  const row = await db('delegates').join('events', 'events.id', 'delegates.event_id').where('delegates.id', delegateId).first('events.course_template_id');
  if (!row) throw new NotFoundError(`Delegate ${delegateId} does not exist`);
  return row.course_template_id ? mappingsOf(db, [row.course_template_id]) : [];
}

async function scoreEntries(db: Db, delegateId: number, mappings: MappingRow[]) {
  const byId = new Map(mappings.map((m) => [m.id, m]));
  const scores = await db('delegate_scores').where({ delegate_id: delegateId }).select('mapping_id', 'value');
  return scores
    .filter((s: { mapping_id: number }) => byId.has(s.mapping_id))
    .sort((a: { mapping_id: number }, b: { mapping_id: number }) => a.mapping_id - b.mapping_id)
    .map((s: { mapping_id: number; value: string }) => {
      const m = mappingRecord(byId.get(s.mapping_id)!);
      return { mapping: { label: m.label, id: m.id, type_id: m.type_id }, value: s.value };
    });
}

/** The delegate's score entries: mapping (label, id, type_id) and value. */
export async function getScores(db: Db, delegateId: number) {
  return scoreEntries(db, delegateId, await delegateMappings(db, delegateId));
}

/**
 * Sets scores from `{"<mapping id>": "<value>"}`. Every key must be a mapping of the delegate's
 * event template and every value a string of the mapping's type; otherwise nothing is written.
 */
export async function setScores(db: Db, delegateId: number, body: unknown) {
  const mappings = await delegateMappings(db, delegateId);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError('Scores must be a JSON object of {"<mapping id>": "<value>"}', undefined, 'invalid_body');
  }
  const byId = new Map(mappings.map((m) => [String(m.id), m]));
  const errors: Record<string, string> = {};
  const writes: { delegate_id: number; mapping_id: number; value: string }[] = [];
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const m = byId.get(key);
    if (!m) errors[key] = "is not a score mapping of this delegate's event template";
    else if (typeof value !== 'string') errors[key] = 'value must be a string';
    else if (hasNul(value) || value.length > 10000) errors[key] = 'value must be text of at most 10000 characters without NUL';
    else if (!MAPPING_TYPES[m.type_id]?.valid(value)) errors[key] = `value must be ${MAPPING_TYPES[m.type_id]?.hint ?? 'valid'} for ${m.label}`;
    else writes.push({ delegate_id: delegateId, mapping_id: m.id, value });
  }
  if (Object.keys(errors).length) throw new BadRequestError('Scores were not saved: ' + Object.entries(errors).map(([k, v]) => `${k} ${v}`).join('; '), { fields: errors }, 'invalid_scores');
  if (writes.length) {
    await db('delegate_scores').insert(writes).onConflict(['delegate_id', 'mapping_id']).merge({ value: db.raw('excluded.value'), updated_on: db.raw(`(now() at time zone 'utc')`) });
  }
  return scoreEntries(db, delegateId, mappings);
}

/** Adds a score mapping to an event template's custom template. */
export async function addMapping(db: Db, templateId: number, body: unknown): Promise<void> {
  const template = await db('course_templates').where({ id: templateId }).first('id');
  if (!template) throw new NotFoundError(`Custom template ${templateId} does not exist`);
  const b = (body ?? {}) as { label?: unknown; type_id?: unknown };
  const errors: Record<string, string> = {};
  if (typeof b.label !== 'string' || !b.label.trim()) errors.label = 'is required';
  else if (b.label.length > 255 || hasNul(b.label)) errors.label = 'must be at most 255 characters without NUL';
  if (!Number.isInteger(b.type_id) || !MAPPING_TYPES[b.type_id as number]) {
    errors.type_id = `must be one of ${Object.entries(MAPPING_TYPES).map(([id, t]) => `${id} (${t.name})`).join(', ')}`;
  }
  if (Object.keys(errors).length) throw new NotFoundError('Mapping could not be created: ' + Object.entries(errors).map(([k, v]) => `${k} ${v}`).join('; '), 'could_not_create', { fields: errors });
  const position = await db('score_mappings').where({ course_template_id: templateId }).max('position as p').first();
  await db('score_mappings').insert({ course_template_id: templateId, label: (b.label as string).trim(), type_id: b.type_id, position: ((position?.p as number | null) ?? 0) + 1 });
}
