import { recordsById } from '../../kit/rest/embed.js';
import {
  afterWrite,
  checkDateOrder,
  defineResource,
  restFieldErrors,
  type Resource,
  type RestRecord,
  type Row,
} from '../../kit/rest/resource.js';
import { courseTemplateTitle, CODE_MAX_LENGTH, COURSE_TEMPLATE_ROWS } from '../course-templates/index.js';
import { contactNames, COMPANY_ROWS, CONTACT_ROWS } from '../crm/index.js';
import { TAX_TYPE_ROWS } from '../tax-types/index.js';
import { utcNow } from '../../platform/db/sql.js';
import { placesBooked } from './events.data.js';
import { namedPricesOf, type NamedPriceRow } from '../pricing/index.js';
import { Event } from './events.data.js';
import { EVENT_TITLE_MAX_LENGTH, EVENT_TYPES, eventSoldOut, eventTextProblems } from './events.rules.js';
import { VENUE_ROWS } from '../venues/index.js';

const idName = (id: unknown, name: unknown) => (id === null || id === undefined ? null : { id, name: name ?? null });

/** One of an event's public prices (a level, currency and optional region), as `prices` lists it. */
const priceEntry = (p: NamedPriceRow) => ({
  price: Number(p.amount),
  currency_code: p.currency_code,
  price_level: { id: p.price_level_id, name: p.price_level_name },
  region: p.region_id === null ? null : { id: p.region_id, code: p.region_code, name: p.region_name },
});

/**
 * An event (REST "public event", GraphQL Event), with every field of the contract's embedded
 * event. `course` is the event template; computed fields come from its delegates.
 */
/** `embeds.eventTemplates`: the event template resource an event embeds (course templates' face, wired by the app). */
export const publicEventsResource = (embeds: { eventTemplates: Resource }): Resource =>
  defineResource({
    name: 'Event',
    path: 'event/public_events',
    aliases: ['event/public_event'],
    table: Event.tableName,
    permission: 'EVENT',
    operations: ['list', 'get', 'create', 'update', 'delete'],
    fields: {
      id: { type: 'integer', column: 'id', nullable: false },
      event_template_id: { type: 'integer', column: 'course_template_id', references: COURSE_TEMPLATE_ROWS },
      course_id: { type: 'integer', column: 'course_template_id', writable: false },
      course: { type: 'object', description: 'the event template: id, code, title' },
      code: { type: 'string', column: 'code', maxLength: CODE_MAX_LENGTH },
      title: {
        type: 'string',
        column: 'title',
        nullable: false,
        maxLength: EVENT_TITLE_MAX_LENGTH,
        description: 'defaults to the template title',
      },
      type: { type: 'string', column: 'type', nullable: false, enum: EVENT_TYPES },
      company_id: { type: 'integer', column: 'company_id', references: COMPANY_ROWS },
      region_id: { type: 'integer', column: 'region_id' },
      region: { type: 'object' },
      account_id: { type: 'integer', column: 'account_id' },
      account: { type: 'object' },
      account_venue: { type: 'object' },
      venue_id: { type: 'integer', column: 'venue_id', references: VENUE_ROWS },
      venue: { type: 'object' },
      location: { type: 'string', column: 'location' },
      tag_id: { type: 'integer', column: 'tag_id' },
      tag: { type: 'object' },
      tax_type_id: { type: 'integer', column: 'tax_type_id', references: TAX_TYPE_ROWS },
      tax_type: { type: 'object' },
      personnel_administrator_id: { type: 'integer', column: 'personnel_administrator_id', references: CONTACT_ROWS },
      personnel_administrator: { type: 'object' },
      personnel_tutor_id: { type: 'integer', column: 'personnel_tutor_id', references: CONTACT_ROWS },
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
      // The same title and code as GraphQL's createClassroom accepts (one line each, the title not blank), as the caller gave them.
      const text = restFieldErrors(
        eventTextProblems({ title: values.title as string | null | undefined, code: values.code as string | null | undefined }),
      );
      const templateId = afterWrite(values, existing, 'course_template_id');
      if (!existing && (values.title === undefined || values.title === null)) {
        // Title defaults to the template's, as events inherit it: it then follows the template
        // when the template is re-applied (GraphQL courseTemplate.applyToEvents).
        const template = templateId ? await courseTemplateTitle(db, templateId as number) : undefined;
        if (template) Object.assign(values, { title: template.title, title_cascades: true });
        else errors.title = 'is required when no event_template_id is given';
      } else if (values.title !== undefined) values.title_cascades = false;
      if (existing) values.updated_on = utcNow(db);
      // When it was cancelled (GraphQL's cancelledAt): set as it is cancelled, cleared as it is taken back.
      if (values.is_cancelled !== undefined && values.is_cancelled !== (existing?.is_cancelled ?? false))
        values.cancelled_at = values.is_cancelled ? utcNow(db) : null;
      Object.assign(
        errors,
        checkDateOrder(values, existing, 'start_date', 'end_date'),
        checkDateOrder(values, existing, 'classroom_start', 'classroom_end'),
      );
      for (const [field, message] of Object.entries(text)) errors[field] ??= message;
      return errors;
    },
    async enrich(db, rows, records) {
      // Sequential on purpose: a transaction is one connection, which runs one query at a time.
      const templates = await recordsById(
        db,
        embeds.eventTemplates,
        rows.map((r) => r.course_template_id),
      );
      const booked = await placesBooked(
        db,
        rows.map((r) => r.id as number),
      );
      const people = await contactNames(
        db,
        rows.flatMap((r) => [r.personnel_administrator_id, r.personnel_tutor_id]).filter((v): v is number => typeof v === 'number'),
      );
      const personById = new Map(people.map((p: { id: number }) => [p.id, p]));
      const prices = new Map<number, NamedPriceRow[]>();
      for (const p of await namedPricesOf(
        db,
        'event',
        rows.map((r) => r.id as number),
      )) {
        const list = prices.get(p.event_id!) ?? [];
        if (!list.length) prices.set(p.event_id!, list);
        list.push(p);
      }
      rows.forEach((row: Row, i) => {
        const rec: RestRecord = records[i]!;
        const t = templates.get(row.course_template_id as number);
        rec.course = t ? { id: t.id, code: t.code, title: t.title } : null;
        rec.region = idName(row.region_id, row.region);
        rec.venue = idName(row.venue_id, row.venue);
        rec.personnel_administrator = personById.get(row.personnel_administrator_id as number) ?? null;
        rec.personnel_tutor = personById.get(row.personnel_tutor_id as number) ?? null;
        rec.personnel = [rec.personnel_administrator, rec.personnel_tutor].filter(Boolean);
        // The event's public prices; an event without any shows its own price, as before prices existed.
        const own = prices.get(row.id as number);
        rec.prices = own
          ? own.map(priceEntry)
          : row.price === null
            ? []
            : [{ price: Number(row.price), currency_code: row.currency_code ?? null }];
        const n = booked.get(row.id as number) ?? 0;
        rec.delegates_booked = n;
        rec.delegates_reserved = 0;
        rec.delegates_actual = null;
        // Closed by hand (GraphQL event.update isSoldOut), or full.
        rec.is_sold_out = eventSoldOut(
          { is_sold_out: row.is_sold_out === true, delegates_max: (row.delegates_max as number | null | undefined) ?? null },
          n,
        );
      });
    },
  });
