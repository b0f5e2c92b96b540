import type { Db } from '../../platform/db/knex.js';
import { recordsById } from '../../kit/rest/embed.js';
import { afterWrite, checkDateOrder, defineResource, type RestRecord, type Row } from '../../kit/rest/resource.js';
import { eventTemplates } from '../course-templates/event-templates.rest.js';

/** Event types: public events are open to anyone, private ones are run for one customer. */
export const EVENT_TYPES = ['public', 'private'] as const;

const idName = (id: unknown, name: unknown) => (id === null || id === undefined ? null : { id, name: name ?? null });

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

/**
 * An event (REST "public event", GraphQL Event), with every field of the contract's embedded
 * event. `course` is the event template; computed fields come from its delegates.
 */
export const publicEvents = defineResource({
  name: 'Event',
  path: 'event/public_events',
  aliases: ['event/public_event'],
  table: 'events',
  permission: 'EVENT',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: {
    id: { type: 'integer', column: 'id', nullable: false },
    event_template_id: { type: 'integer', column: 'course_template_id', references: { table: 'course_templates', label: 'event template' } },
    course_id: { type: 'integer', column: 'course_template_id', writable: false },
    course: { type: 'object', description: 'the event template: id, code, title' },
    code: { type: 'string', column: 'code', maxLength: 64 },
    title: { type: 'string', column: 'title', nullable: false, maxLength: 255, description: 'defaults to the template title' },
    type: { type: 'string', column: 'type', nullable: false, enum: EVENT_TYPES },
    company_id: { type: 'integer', column: 'company_id', references: { table: 'companies', label: 'company' } },
    region_id: { type: 'integer', column: 'region_id' },
    region: { type: 'object' },
    account_id: { type: 'integer', column: 'account_id' },
    account: { type: 'object' },
    account_venue: { type: 'object' },
    venue_id: { type: 'integer', column: 'venue_id' },
    venue: { type: 'object' },
    location: { type: 'string', column: 'location' },
    tag_id: { type: 'integer', column: 'tag_id' },
    tag: { type: 'object' },
    tax_type_id: { type: 'integer', column: 'tax_type_id', references: { table: 'tax_types', label: 'tax type' } },
    tax_type: { type: 'object' },
    personnel_administrator_id: { type: 'integer', column: 'personnel_administrator_id', references: { table: 'contacts', label: 'contact' } },
    personnel_administrator: { type: 'object' },
    personnel_tutor_id: { type: 'integer', column: 'personnel_tutor_id', references: { table: 'contacts', label: 'contact' } },
    personnel_tutor: { type: 'object' },
    personnel: { type: 'array' },
    prices: { type: 'array' },
    price: { type: 'number', column: 'price', min: 0 },
    currency_code: { type: 'string', column: 'currency_code', maxLength: 3 },
    start_date: { type: 'date', column: 'start_date' },
    end_date: { type: 'date', column: 'end_date' },
    start_time: { type: 'time', column: 'start_time' },
    end_time: { type: 'time', column: 'end_time' },
    classroom_start: { type: 'datetime', column: 'classroom_start' },
    classroom_end: { type: 'datetime', column: 'classroom_end' },
    registration_deadline: { type: 'date', column: 'registration_deadline' },
    non_working_days: { type: 'array', column: 'non_working_days', nullable: false },
    disposition: { type: 'string', column: 'disposition' },
    notes: { type: 'string', column: 'notes', maxLength: 10000 },
    notes2: { type: 'string', column: 'notes2', maxLength: 10000 },
    overall_attendance: { type: 'number', column: 'overall_attendance', min: 0, max: 100, description: 'percent' },
    delegates_max: { type: 'integer', column: 'delegates_max', min: 0 },
    delegates_reserved: { type: 'number' },
    delegates_booked: { type: 'number' },
    delegates_actual: { type: 'integer' },
    is_sold_out: { type: 'boolean' },
    is_online: { type: 'boolean', column: 'is_online', nullable: false },
    is_cancelled: { type: 'boolean', column: 'is_cancelled', nullable: false },
    is_provisional: { type: 'boolean', column: 'is_provisional', nullable: false },
    is_lms: { type: 'boolean', column: 'is_lms', nullable: false },
  },
  async check(db, values, existing) {
    const errors: Record<string, string> = {};
    const templateId = afterWrite(values, existing, 'course_template_id');
    if (!existing && (values.title === undefined || values.title === null)) {
      // Title defaults to the template's, as events inherit it: it then follows the template
      // when the template is re-applied (GraphQL courseTemplate.applyToEvents).
      const template = templateId ? await db('course_templates').where({ id: templateId }).first('title') : undefined;
      if (template) Object.assign(values, { title: template.title, title_cascades: true });
      else errors.title = 'is required when no event_template_id is given';
    } else if (values.title !== undefined) values.title_cascades = false;
    if (existing) values.updated_on = db.raw(`(now() at time zone 'utc')`);
    Object.assign(errors, checkDateOrder(values, existing, 'start_date', 'end_date'), checkDateOrder(values, existing, 'classroom_start', 'classroom_end'));
    return errors;
  },
  async enrich(db, rows, records) {
    // Sequential on purpose: a transaction is one connection, which runs one query at a time.
    const templates = await recordsById(db, eventTemplates, rows.map((r) => r.course_template_id));
    const booked = await placesBooked(db, rows.map((r) => r.id as number));
    const people = await db('contacts')
      .whereIn('id', rows.flatMap((r) => [r.personnel_administrator_id, r.personnel_tutor_id]).filter((v): v is number => typeof v === 'number'))
      .select('id', 'first_name', 'last_name', 'email');
    const personById = new Map(people.map((p: { id: number }) => [p.id, p]));
    rows.forEach((row: Row, i) => {
      const rec: RestRecord = records[i]!;
      const t = templates.get(row.course_template_id as number);
      rec.course = t ? { id: t.id, code: t.code, title: t.title } : null;
      rec.region = idName(row.region_id, row.region);
      rec.venue = idName(row.venue_id, row.venue);
      rec.personnel_administrator = personById.get(row.personnel_administrator_id as number) ?? null;
      rec.personnel_tutor = personById.get(row.personnel_tutor_id as number) ?? null;
      rec.personnel = [rec.personnel_administrator, rec.personnel_tutor].filter(Boolean);
      rec.prices = row.price === null ? [] : [{ price: Number(row.price), currency_code: row.currency_code ?? null }];
      const n = booked.get(row.id as number) ?? 0;
      rec.delegates_booked = n;
      rec.delegates_reserved = 0;
      rec.delegates_actual = null;
      rec.is_sold_out = row.delegates_max !== null && n >= (row.delegates_max as number);
    });
  },
});
