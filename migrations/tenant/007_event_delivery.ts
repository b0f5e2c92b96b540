import type { Knex } from 'knex';

/**
 * Events in a delivery locale (contract rules 6 to 8), the places and tax types they refer to,
 * and background jobs (re-applying a course template to its events).
 *
 * An event inherits from its course template: its locale follows the template's delivery chain
 * unless one was chosen (`locale_cascades`), and its title follows the template's title in the
 * event's locale unless one was written (`title_cascades`). Re-applying the template re-inherits
 * what cascades. Existing events: their locale cascades, and their title does when it is still
 * the template's.
 */
export const name = '007_event_delivery';

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  const ref = (table: string) => `${schema}.${table}`;
  const utcNow = knex.raw(`(now() at time zone 'utc')`);

  await s().createTable('locations', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.text('address_street');
    t.text('address_town');
    t.text('address_postcode');
    t.text('address_country_id');
    t.text('time_zone_name');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });
  await s().createTable('tax_types', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    // Percent, e.g. 20.000 for 20 %.
    t.decimal('rate', 6, 3).notNullable().defaultTo(0);
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.check('rate >= 0 and rate <= 100', [], 'tax_types_rate');
  });

  await s().alterTable('events', (t) => {
    t.integer('locale_id').references('id').inTable(ref('locales'));
    t.boolean('locale_cascades').notNullable().defaultTo(true);
    t.boolean('title_cascades').notNullable().defaultTo(false);
    t.text('time_zone_name');
    t.integer('location_id').references('id').inTable(ref('locations')).onDelete('RESTRICT');
    t.integer('min_places');
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.index(['location_id']);
  });
  await knex.raw(
    `update ??.events e set title_cascades = true from ??.course_templates t where t.id = e.course_template_id and t.title = e.title`,
    [schema, schema],
  );

  await s().createTable('background_jobs', (t) => {
    t.increments('id');
    t.text('kind').notNullable();
    t.text('state').notNullable().defaultTo('queued');
    t.integer('course_template_id').references('id').inTable(ref('course_templates')).onDelete('CASCADE');
    // The events the job works through, fixed when it is asked for, in the order it takes them.
    t.specificType('event_ids', 'integer[]').notNullable().defaultTo('{}');
    // How far it got: the events before this position are done (kept with each batch's commit).
    t.integer('processed').notNullable().defaultTo(0);
    t.jsonb('errors').notNullable().defaultTo('[]');
    t.integer('created_by_user_id').references('id').inTable(ref('users')).onDelete('SET NULL');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.timestamp('started_on', { useTz: false });
    t.timestamp('finished_on', { useTz: false });
    t.check(`kind in ('apply_course_template')`, [], 'background_jobs_kind');
    t.check(`state in ('queued', 'running', 'completed', 'failed')`, [], 'background_jobs_state');
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  await s().dropTableIfExists('background_jobs');
  await s().alterTable('events', (t) => {
    t.dropColumns('locale_id', 'locale_cascades', 'title_cascades', 'time_zone_name', 'location_id', 'min_places', 'updated_on');
  });
  await s().dropTableIfExists('tax_types');
  await s().dropTableIfExists('locations');
}
