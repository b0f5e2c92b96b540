import type { Knex } from 'knex';

/**
 * CRM and events: campaigns and marketing activities, categories, course templates (the REST
 * "event template") with their score mappings, events (REST public events = GraphQL Events),
 * delegates and their scores. One set of tables serves both the REST and GraphQL faces.
 */
export const name = '002_events_crm';

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  const ref = (table: string) => `${schema}.${table}`;
  const utcNow = knex.raw(`(now() at time zone 'utc')`);

  await s().createTable('campaigns', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.text('description');
    t.integer('company_id').references('id').inTable(ref('companies')).onDelete('SET NULL');
    t.text('currency');
    t.integer('tag_id');
    t.text('tag');
    t.date('start_date');
    t.date('end_date');
    t.integer('target_contacts');
    t.integer('target_conversions');
    t.integer('target_submissions');
    t.decimal('target_sales', 14, 2);
    t.integer('actual_contacts').notNullable().defaultTo(0);
    t.integer('actual_conversions').notNullable().defaultTo(0);
    t.integer('actual_submissions').notNullable().defaultTo(0);
    t.boolean('is_finished').notNullable().defaultTo(false);
    t.jsonb('contributions').notNullable().defaultTo('[]');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });

  await s().createTable('marketing_activities', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.text('description').notNullable();
    t.integer('campaign_id').notNullable().references('id').inTable(ref('campaigns')).onDelete('RESTRICT');
    t.integer('type_id');
    t.text('type');
    t.integer('purpose_id');
    t.text('purpose');
    t.integer('company_id').references('id').inTable(ref('companies')).onDelete('SET NULL');
    t.text('currency');
    t.decimal('cost', 14, 2);
    t.date('date');
    t.integer('actual_contacts').notNullable().defaultTo(0);
    t.integer('actual_conversions').notNullable().defaultTo(0);
    t.integer('actual_submissions').notNullable().defaultTo(0);
    t.integer('target_contacts');
    t.integer('target_conversions');
    t.integer('target_submissions');
    t.decimal('target_sales', 14, 2);
    t.boolean('is_finished').notNullable().defaultTo(false);
    t.jsonb('region_categories').notNullable().defaultTo('[]');
    t.jsonb('courses').notNullable().defaultTo('[]');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.index(['campaign_id']);
  });

  await s().createTable('categories', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.integer('priority').notNullable();
    t.text('introduction');
    t.integer('parent_id').references('id').inTable(ref('categories')).onDelete('SET NULL');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.index(['parent_id']);
  });

  await s().createTable('course_templates', (t) => {
    t.increments('id');
    t.text('code');
    t.text('title').notNullable();
    t.text('course_text1');
    t.text('course_text2');
    t.text('related_courses_text');
    t.text('lms_summary');
    t.text('lifecycle_state').notNullable().defaultTo('draft');
    t.integer('category_id').references('id').inTable(ref('categories')).onDelete('SET NULL');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });

  await s().createTable('score_mappings', (t) => {
    t.increments('id');
    t.integer('course_template_id').notNullable().references('id').inTable(ref('course_templates')).onDelete('CASCADE');
    t.text('label').notNullable();
    t.integer('type_id').notNullable();
    t.integer('position').notNullable().defaultTo(0);
    t.index(['course_template_id']);
  });

  await s().createTable('events', (t) => {
    t.increments('id');
    t.integer('course_template_id').references('id').inTable(ref('course_templates')).onDelete('RESTRICT');
    t.text('code');
    t.text('title').notNullable();
    t.text('type').notNullable().defaultTo('public');
    t.integer('company_id').references('id').inTable(ref('companies')).onDelete('SET NULL');
    t.integer('region_id');
    t.text('region');
    t.integer('account_id');
    t.integer('venue_id');
    t.text('venue');
    t.text('location');
    t.integer('tag_id');
    t.integer('tax_type_id');
    t.integer('personnel_administrator_id').references('id').inTable(ref('contacts')).onDelete('SET NULL');
    t.integer('personnel_tutor_id').references('id').inTable(ref('contacts')).onDelete('SET NULL');
    t.decimal('price', 14, 2);
    t.text('currency_code');
    t.date('start_date');
    t.date('end_date');
    t.time('start_time');
    t.time('end_time');
    t.timestamp('classroom_start', { useTz: false });
    t.timestamp('classroom_end', { useTz: false });
    t.date('registration_deadline');
    t.jsonb('non_working_days').notNullable().defaultTo('[]');
    t.text('disposition');
    t.text('notes');
    t.text('notes2');
    t.decimal('overall_attendance', 6, 2);
    t.integer('delegates_max');
    t.boolean('is_online').notNullable().defaultTo(false);
    t.boolean('is_cancelled').notNullable().defaultTo(false);
    t.boolean('is_provisional').notNullable().defaultTo(false);
    t.boolean('is_lms').notNullable().defaultTo(false);
    t.text('lifecycle_state').notNullable().defaultTo('published');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.index(['course_template_id']);
    t.index(['start_date']);
  });

  await s().createTable('delegates', (t) => {
    t.increments('id');
    t.integer('event_id').notNullable().references('id').inTable(ref('events')).onDelete('CASCADE');
    t.integer('contact_id').references('id').inTable(ref('contacts')).onDelete('RESTRICT');
    t.integer('registration_id');
    t.integer('comms_contact_id').references('id').inTable(ref('contacts')).onDelete('SET NULL');
    t.text('notes');
    t.decimal('overall_attendance', 6, 2);
    t.date('cancelled_date');
    t.boolean('passed');
    // Unnamed rows hold places bought without names; naming moves one place to a named row.
    t.integer('num_places');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.check('(contact_id is not null and num_places is null) or (contact_id is null and num_places > 0)', [], 'delegates_named_or_places');
    t.index(['event_id']);
    t.index(['contact_id']);
  });

  await s().createTable('delegate_scores', (t) => {
    t.integer('delegate_id').notNullable().references('id').inTable(ref('delegates')).onDelete('CASCADE');
    t.integer('mapping_id').notNullable().references('id').inTable(ref('score_mappings')).onDelete('CASCADE');
    t.text('value').notNullable();
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.primary(['delegate_id', 'mapping_id']);
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  for (const table of [
    'delegate_scores',
    'delegates',
    'events',
    'score_mappings',
    'course_templates',
    'categories',
    'marketing_activities',
    'campaigns',
  ]) {
    await knex.schema.withSchema(schema).dropTableIfExists(table);
  }
}
