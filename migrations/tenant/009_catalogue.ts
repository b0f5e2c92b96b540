import type { Knex } from 'knex';

/**
 * What a training company's website shows of its catalogue (the WebLink API as real websites
 * call it) and the Core API reads and writes of the same rows:
 * - public prices: an amount per price level, currency and (optionally) region, on a course
 *   template, an event or a learning path; "Normal" is the level a website shows, and every
 *   instance has it;
 * - regions (a code, a name, the company that trades there, its default tax);
 * - documents, such as the image of a course template or learning path (an address to show it);
 * - a course template's teaser description and image;
 * - a learning path's code, lifecycle state (`active` is what websites list: the state names the
 *   production service's clients filter on), bundle flag, category and image, and its objectives:
 *   the course templates and events that make it up, in order;
 * - an event's delivery method (classroom, lms, blended) and its online (LMS) period.
 */
export const name = '009_catalogue';

const LEARNING_PATH_STATES = ['draft', 'active', 'retired'] as const;
const DELIVERY_METHODS = ['classroom', 'lms', 'blended'] as const;

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  const ref = (table: string) => `${schema}.${table}`;
  const utcNow = knex.raw(`(now() at time zone 'utc')`);

  await s().createTable('price_levels', (t) => {
    t.increments('id');
    t.text('name').notNullable().unique();
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });
  await knex(`${schema}.price_levels`).insert({ name: 'Normal' });

  await s().createTable('regions', (t) => {
    t.increments('id');
    t.text('code').notNullable().unique();
    t.text('name').notNullable();
    t.integer('company_id').references('id').inTable(ref('companies')).onDelete('SET NULL');
    t.integer('default_tax_type_id').references('id').inTable(ref('tax_types')).onDelete('SET NULL');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });

  await s().createTable('documents', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.text('description');
    t.text('folder');
    t.text('url').notNullable();
    t.integer('revision_number').notNullable().defaultTo(1);
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });

  await s().alterTable('course_templates', (t) => {
    t.text('teaser_description');
    t.integer('image_document_id').references('id').inTable(ref('documents')).onDelete('SET NULL');
  });

  await s().alterTable('learning_paths', (t) => {
    t.text('code');
    // Existing learning paths were all listed publicly: they stay so.
    t.text('lifecycle_state').notNullable().defaultTo('active');
    t.boolean('is_bundle').notNullable().defaultTo(false);
    t.integer('category_id').references('id').inTable(ref('categories')).onDelete('SET NULL');
    t.integer('image_document_id').references('id').inTable(ref('documents')).onDelete('SET NULL');
    t.check(`lifecycle_state in (${LEARNING_PATH_STATES.map((v) => `'${v}'`).join(', ')})`, [], 'learning_paths_lifecycle_state');
  });

  await s().createTable('learning_path_objectives', (t) => {
    t.increments('id');
    t.integer('learning_path_id').notNullable().references('id').inTable(ref('learning_paths')).onDelete('CASCADE');
    t.integer('position').notNullable();
    t.integer('course_template_id').references('id').inTable(ref('course_templates')).onDelete('CASCADE');
    t.integer('event_id').references('id').inTable(ref('events')).onDelete('CASCADE');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.check('num_nonnulls(course_template_id, event_id) = 1', [], 'learning_path_objectives_one_target');
    t.index(['learning_path_id', 'position']);
    t.index(['course_template_id']);
    t.index(['event_id']);
  });

  await s().alterTable('events', (t) => {
    t.text('delivery_method').notNullable().defaultTo('classroom');
    t.timestamp('lms_start', { useTz: false });
    t.timestamp('lms_end', { useTz: false });
    t.check(`delivery_method in (${DELIVERY_METHODS.map((v) => `'${v}'`).join(', ')})`, [], 'events_delivery_method');
  });

  await s().createTable('prices', (t) => {
    t.increments('id');
    t.integer('course_template_id').references('id').inTable(ref('course_templates')).onDelete('CASCADE');
    t.integer('event_id').references('id').inTable(ref('events')).onDelete('CASCADE');
    t.integer('learning_path_id').references('id').inTable(ref('learning_paths')).onDelete('CASCADE');
    t.integer('price_level_id').notNullable().references('id').inTable(ref('price_levels')).onDelete('RESTRICT');
    t.specificType('currency_code', 'char(3)').notNullable();
    t.integer('region_id').references('id').inTable(ref('regions')).onDelete('CASCADE');
    t.decimal('amount', 12, 2).notNullable();
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.check('num_nonnulls(course_template_id, event_id, learning_path_id) = 1', [], 'prices_one_owner');
    t.check('amount >= 0', [], 'prices_amount');
    t.check("currency_code ~ '^[A-Z]{3}$'", [], 'prices_currency_code');
    t.index(['course_template_id']);
    t.index(['event_id']);
    t.index(['learning_path_id']);
  });
  // One amount per owner, level, currency and region.
  await knex.raw(
    `create unique index prices_one on ??.prices (coalesce(course_template_id, 0), coalesce(event_id, 0), coalesce(learning_path_id, 0), price_level_id, currency_code, coalesce(region_id, 0))`,
    [schema],
  );
}

export async function down(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  await s().dropTableIfExists('prices');
  await s().alterTable('events', (t) => {
    t.dropChecks(['events_delivery_method']);
    t.dropColumns('delivery_method', 'lms_start', 'lms_end');
  });
  await s().dropTableIfExists('learning_path_objectives');
  await s().alterTable('learning_paths', (t) => {
    t.dropChecks(['learning_paths_lifecycle_state']);
    t.dropColumns('code', 'lifecycle_state', 'is_bundle', 'category_id', 'image_document_id');
  });
  await s().alterTable('course_templates', (t) => {
    t.dropColumns('teaser_description', 'image_document_id');
  });
  await s().dropTableIfExists('documents');
  await s().dropTableIfExists('regions');
  await s().dropTableIfExists('price_levels');
}
