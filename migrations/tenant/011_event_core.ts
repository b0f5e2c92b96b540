import type { Knex } from 'knex';

/**
 * Events as the Core API's real integrations read and write them (issue 15): what
 * `event.update` sets beside the columns events already have.
 * - `is_sold_out`: closed for booking by hand (an event is also sold out when its places are taken);
 * - `internal_notes`, `external_notes`: notes for staff, and for learners;
 * - `target_fill_rate`: the percent of places the organiser aims to fill (0 to 100);
 * - `registration_opens_at`: a local date-time in the event's time zone, as its classroom times;
 * - `remote_meeting_url`: where an online event meets;
 * - `cancelled_at`: when the event was cancelled (UTC, as `updated_on`). Events cancelled before
 *   this migration take their last change as that time, so a cancelled event always has one.
 */
export const name = '011_event_core';

const COLUMNS = [
  'is_sold_out',
  'internal_notes',
  'external_notes',
  'target_fill_rate',
  'registration_opens_at',
  'remote_meeting_url',
  'cancelled_at',
];

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).alterTable('events', (t) => {
    t.boolean('is_sold_out').notNullable().defaultTo(false);
    t.text('internal_notes');
    t.text('external_notes');
    t.integer('target_fill_rate');
    t.timestamp('registration_opens_at', { useTz: false });
    t.text('remote_meeting_url');
    t.timestamp('cancelled_at', { useTz: false });
    t.check('target_fill_rate between 0 and 100', [], 'events_target_fill_rate');
  });
  await knex.raw(`update ??.events set cancelled_at = updated_on where is_cancelled or lifecycle_state = 'cancelled'`, [schema]);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).alterTable('events', (t) => {
    t.dropChecks(['events_target_fill_rate']);
    t.dropColumns(...COLUMNS);
  });
}
