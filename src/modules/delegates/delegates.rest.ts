import { recordsById } from '../../kit/rest/embed.js';
import { defineResource } from '../../kit/rest/resource.js';
import { contacts } from '../crm/contacts.rest.js';
import { publicEvents } from '../events/public-events.rest.js';

/**
 * A contact's place on an event. Unnamed rows (no contact_id) hold `num_places` bought without
 * names; naming one moves a place to a new named row (see delegates.service.ts).
 */
export const delegates = defineResource({
  name: 'Delegate',
  path: 'event/delegates',
  table: 'delegates',
  permission: 'DELEGATE',
  operations: ['list', 'get', 'create', 'delete'],
  fields: {
    id: { type: 'integer', column: 'id', nullable: false },
    event_id: { type: 'integer', column: 'event_id', required: true, nullable: false, references: { table: 'events', label: 'event' } },
    contact_id: { type: 'integer', column: 'contact_id', required: true, references: { table: 'contacts', label: 'contact' } },
    registration_id: { type: 'integer', column: 'registration_id', writable: false },
    comms_contact_id: { type: 'integer', column: 'comms_contact_id', references: { table: 'contacts', label: 'contact' } },
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
    const events = await recordsById(db, publicEvents, rows.map((r) => r.event_id));
    const people = await recordsById(db, contacts, rows.flatMap((r) => [r.contact_id, r.comms_contact_id]));
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
