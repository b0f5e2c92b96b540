import type { Knex } from 'knex';

/**
 * People, sessions and staff (issue 25): who attends, who teaches, when and where.
 *
 * - Accounts are the `companies` rows (REST v2 `crm/companies`): `is_partner`, and the default
 *   postal address's region, province and contact person beside the columns REST already has;
 *   their billing and shipping addresses are `company_addresses` rows (one per usage). A
 *   contact's account is its `company_id`.
 * - A learner is a named `delegates` row: `expires_at` (when access ends, for LMS events) and
 *   `updated_on`; attendance is one `learner_attendances` row per (learner, session).
 * - `venues`: where in a location a session meets (a room, a building). Events' `venue_id`
 *   named no table until now: each distinct one becomes a venue with its recorded name.
 * - `sessions`: an event's meetings. `starts_at`/`ends_at` are instants; `time_zone_name` is the
 *   zone their local times are written in. Ordered by start, as clients address `edges[day-1]`.
 * - `session_field_values`: custom field values of sessions (definitions may apply to `session`).
 * - `event_staff` (an event's instructors and administrators) and `session_staff` (a session's).
 * - Course templates say how their events get sessions: `session_layout` `per_day` (one a day
 *   of the event's period, the default) or `single` (one over the whole period).
 * - `currencies`: the instance's currencies and whether each is in use (`is_active`);
 *   `price_levels.description`.
 */
export const name = '018_people_schedule';

/** Sessions' webhook types (src/modules/webhooks/webhook-types.ts). */
export function sessionCaptureTriggers(schema: string): string[] {
  const t = (op: 'insert' | 'update' | 'delete', key: string, when?: string, supersededBy?: string) => {
    const args = [key, ...(supersededBy ? [supersededBy] : [])].map((a) => `'${a}'`).join(', ');
    return `create trigger webhook_${key}_${op} after ${op} on "${schema}".sessions for each row
      ${when ? `when (${when})` : ''} execute function "${schema}".capture_webhook_event(${args})`;
  };
  return [
    t('insert', 'session_created'),
    t('update', 'session_updated', 'old.* is distinct from new.*', 'session_created'),
    t('delete', 'session_deleted'),
    // A session's staff belong to it: adding or removing one is an update of the session.
    `create trigger webhook_session_updated_session_staff after insert or update or delete on "${schema}".session_staff for each row
      execute function "${schema}".capture_webhook_parent_change('session_updated', 'session_created', 'sessions', 'session_id')`,
    `create trigger webhook_session_updated_session_field_values after insert or update or delete on "${schema}".session_field_values for each row
      execute function "${schema}".capture_webhook_parent_change('session_updated', 'session_created', 'sessions', 'session_id')`,
  ];
}

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  const ref = (table: string) => `${schema}.${table}`;
  const utcNow = knex.raw(`(now() at time zone 'utc')`);

  // Accounts.
  await s().alterTable('companies', (t) => {
    t.boolean('is_partner').notNullable().defaultTo(false);
    t.text('address_region');
    t.text('address_province_code');
    t.text('address_contact_person');
  });
  await s().createTable('company_addresses', (t) => {
    t.integer('company_id').notNullable().references('id').inTable(ref('companies')).onDelete('CASCADE');
    t.text('usage').notNullable();
    t.specificType('lines', 'text[]').notNullable().defaultTo('{}');
    t.text('town');
    t.text('region');
    t.text('postcode');
    t.text('country_id');
    t.text('province_code');
    t.text('contact_person');
    t.primary(['company_id', 'usage']);
    t.check(`usage in ('billing', 'shipping')`, [], 'company_addresses_usage');
  });

  // Learners.
  await s().alterTable('delegates', (t) => {
    t.timestamp('expires_at', { useTz: false });
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });

  // Venues, from what events recorded.
  await s().createTable('venues', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.text('description');
    t.integer('location_id').references('id').inTable(ref('locations')).onDelete('SET NULL');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.index(['location_id']);
  });
  await knex.raw(
    `insert into ??.venues (id, name)
       select venue_id, coalesce(max(venue), 'Venue ' || venue_id) from ??.events where venue_id is not null group by venue_id`,
    [schema, schema],
  );
  await knex.raw(
    `select setval(pg_get_serial_sequence(?, 'id'), greatest((select max(id) from ??.venues), 1), (select count(*) > 0 from ??.venues))`,
    [`"${schema}".venues`, schema, schema],
  );
  await s().alterTable('events', (t) => {
    t.foreign('venue_id').references('id').inTable(ref('venues')).onDelete('SET NULL');
    t.index(['venue_id']);
  });

  // Sessions and staff.
  await s().alterTable('course_templates', (t) => {
    t.text('session_layout').notNullable().defaultTo('per_day');
    t.check(`session_layout in ('per_day', 'single')`, [], 'course_templates_session_layout');
  });
  await s().createTable('sessions', (t) => {
    t.increments('id');
    t.integer('event_id').notNullable().references('id').inTable(ref('events')).onDelete('CASCADE');
    t.text('title').notNullable();
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.timestamp('ends_at', { useTz: true }).notNullable();
    t.text('time_zone_name').notNullable();
    t.text('lifecycle_state').notNullable().defaultTo('draft');
    t.integer('venue_id').references('id').inTable(ref('venues')).onDelete('SET NULL');
    t.integer('location_id').references('id').inTable(ref('locations')).onDelete('SET NULL');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.check(`lifecycle_state in ('draft', 'published', 'cancelled')`, [], 'sessions_lifecycle_state');
    t.check('ends_at >= starts_at', [], 'sessions_period');
    t.index(['event_id', 'starts_at']);
  });
  // Custom fields of sessions: definitions that apply to sessions, values as for events.
  await knex.raw(`alter table ??.custom_field_definitions drop constraint custom_field_definitions_applies_to`, [schema]);
  await s().alterTable('custom_field_definitions', (t) => {
    t.check(`applies_to in ('course_template', 'learning_path', 'event', 'session')`, [], 'custom_field_definitions_applies_to');
  });
  await s().createTable('session_field_values', (t) => {
    t.integer('session_id').notNullable().references('id').inTable(ref('sessions')).onDelete('CASCADE');
    t.integer('definition_id').notNullable().references('id').inTable(ref('custom_field_definitions')).onDelete('CASCADE');
    t.text('value').notNullable();
    t.primary(['session_id', 'definition_id']);
  });
  await s().createTable('event_staff', (t) => {
    t.increments('id');
    t.integer('event_id').notNullable().references('id').inTable(ref('events')).onDelete('CASCADE');
    t.integer('contact_id').notNullable().references('id').inTable(ref('contacts')).onDelete('RESTRICT');
    t.text('staff_type').notNullable();
    t.boolean('is_primary').notNullable().defaultTo(false);
    t.text('notes');
    t.boolean('required_sessions_only').notNullable().defaultTo(false);
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.check(`staff_type in ('instructor', 'administrator')`, [], 'event_staff_type');
    t.unique(['event_id', 'contact_id', 'staff_type']);
    t.index(['contact_id']);
  });
  await s().createTable('session_staff', (t) => {
    t.integer('session_id').notNullable().references('id').inTable(ref('sessions')).onDelete('CASCADE');
    t.integer('contact_id').notNullable().references('id').inTable(ref('contacts')).onDelete('RESTRICT');
    t.text('staff_type').notNullable();
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.check(`staff_type in ('instructor', 'administrator')`, [], 'session_staff_type');
    t.primary(['session_id', 'contact_id', 'staff_type']);
    t.index(['contact_id']);
  });
  await s().createTable('learner_attendances', (t) => {
    t.integer('delegate_id').notNullable().references('id').inTable(ref('delegates')).onDelete('CASCADE');
    t.integer('session_id').notNullable().references('id').inTable(ref('sessions')).onDelete('CASCADE');
    t.boolean('attended').notNullable();
    t.timestamp('recorded_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.primary(['delegate_id', 'session_id']);
    t.index(['session_id']);
  });

  // Reference data.
  await s().alterTable('price_levels', (t) => t.text('description'));
  await s().createTable('currencies', (t) => {
    t.text('code').primary();
    t.boolean('is_active').notNullable().defaultTo(true);
    t.check(`code ~ '^[A-Z]{3}$'`, [], 'currencies_code');
  });
  // The currencies the instance already prices in.
  await knex.raw(
    `insert into ??.currencies (code)
       select distinct upper(c) from (select currency_code as c from ??.prices union select currency_code from ??.events) x
        where c ~* '^[a-z]{3}$' on conflict do nothing`,
    [schema, schema, schema],
  );

  for (const statement of sessionCaptureTriggers(schema)) await knex.raw(statement);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  for (const table of ['currencies', 'learner_attendances', 'session_staff', 'event_staff', 'session_field_values', 'sessions']) {
    await s().dropTableIfExists(table);
  }
  await s().alterTable('price_levels', (t) => t.dropColumn('description'));
  await knex.raw(`delete from ??.custom_field_definitions where applies_to = 'session'`, [schema]);
  await knex.raw(`alter table ??.custom_field_definitions drop constraint custom_field_definitions_applies_to`, [schema]);
  await s().alterTable('custom_field_definitions', (t) => {
    t.check(`applies_to in ('course_template', 'learning_path', 'event')`, [], 'custom_field_definitions_applies_to');
  });
  await s().alterTable('course_templates', (t) => {
    t.dropChecks(['course_templates_session_layout']);
    t.dropColumn('session_layout');
  });
  await s().alterTable('events', (t) => {
    t.dropForeign(['venue_id']);
    t.dropIndex(['venue_id']);
  });
  await s().dropTableIfExists('venues');
  await s().alterTable('delegates', (t) => t.dropColumns('expires_at', 'updated_on'));
  await s().dropTableIfExists('company_addresses');
  await s().alterTable('companies', (t) =>
    t.dropColumns('is_partner', 'address_region', 'address_province_code', 'address_contact_person'),
  );
}
