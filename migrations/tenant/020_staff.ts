import type { Knex } from 'knex';

/**
 * An event's staff belong to it: adding, changing or removing one (event.addStaff, addStaffBulk,
 * removeStaff, a primary instructor's place passing on) is an update of the event, as a change of
 * its price or custom field value is (017's parent triggers): Event Updated, once per event and
 * transaction, and not for an event created in the same transaction. Session staff are already
 * their session's (018: Session Updated).
 */
export const name = '020_staff';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.raw(`create trigger webhook_event_updated_event_staff after insert or update or delete on "${schema}".event_staff for each row
    execute function "${schema}".capture_webhook_parent_change('event_updated', 'event_created', 'events', 'event_id')`);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.raw(`drop trigger if exists webhook_event_updated_event_staff on "${schema}".event_staff`);
}
