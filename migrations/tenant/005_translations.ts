import type { Knex } from 'knex';
import { DEFAULT_LOCALE_CODE, LOCALE_CATALOGUE } from '../../src/platform/locale-catalogue.js';

/**
 * Languages of content: the tenant's locales (the catalogue, with which are supported and the
 * default), custom field definitions and their values, course template locales (primary and
 * delivery) and translations, and learning paths with theirs. A translation is a sparse
 * per-locale overlay: NULL in a column means "not translated" (fall back to the base), '' a
 * deliberate blank. Custom field values with a NULL locale are base values; with a locale,
 * that locale's translation. One row set serves the REST and GraphQL faces.
 */
export const name = '005_translations';

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  const ref = (table: string) => `${schema}.${table}`;
  const utcNow = knex.raw(`(now() at time zone 'utc')`);

  await s().createTable('locales', (t) => {
    t.integer('id').primary();
    t.text('code').notNullable().unique();
    t.text('name').notNullable();
    t.text('full_name').notNullable();
    t.boolean('supported').notNullable().defaultTo(false);
    t.boolean('is_default').notNullable().defaultTo(false);
    t.check('(not is_default) or supported', [], 'locales_default_is_supported');
  });
  await knex.raw('create unique index locales_one_default on ??.locales (is_default) where is_default', [schema]);
  await knex(ref('locales')).insert(
    LOCALE_CATALOGUE.map((l) => ({
      id: l.id,
      code: l.code,
      name: l.name,
      full_name: l.fullName,
      supported: l.code === DEFAULT_LOCALE_CODE,
      is_default: l.code === DEFAULT_LOCALE_CODE,
    })),
  );

  await s().createTable('custom_field_definitions', (t) => {
    t.increments('id');
    t.text('key').notNullable().unique();
    t.text('label').notNullable();
    t.text('type').notNullable();
    t.text('applies_to').notNullable();
    t.boolean('is_translatable').notNullable().defaultTo(false);
    // Built-in course description fields: their values are the template's courseText columns.
    t.boolean('is_builtin').notNullable().defaultTo(false);
    t.integer('max_length');
    t.text('pattern');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.check(`type in ('text', 'textarea', 'rich_text', 'number', 'date', 'boolean')`, [], 'custom_field_definitions_type');
    t.check(`applies_to in ('course_template', 'learning_path', 'event')`, [], 'custom_field_definitions_applies_to');
  });
  await knex(ref('custom_field_definitions')).insert(
    [
      ['course_text_1', 'Course text 1'],
      ['course_text_2', 'Course text 2 (introduction)'],
      ['related_courses_text', 'Related courses text'],
      ['lms_summary', 'LMS summary'],
    ].map(([key, label]) => ({ key, label, type: 'rich_text', applies_to: 'course_template', is_translatable: true, is_builtin: true })),
  );

  await s().alterTable('course_templates', (t) => {
    t.integer('locale_id').references('id').inTable(ref('locales'));
    t.integer('default_delivery_locale_id').references('id').inTable(ref('locales'));
  });
  await s().createTable('course_template_delivery_locales', (t) => {
    t.integer('course_template_id').notNullable().references('id').inTable(ref('course_templates')).onDelete('CASCADE');
    t.integer('locale_id').notNullable().references('id').inTable(ref('locales'));
    t.primary(['course_template_id', 'locale_id']);
  });

  const translations = (table: string, owner: string, ownerTable: string, columns: string[]) =>
    s().createTable(table, (t) => {
      t.increments('id');
      t.integer(owner).notNullable().references('id').inTable(ref(ownerTable)).onDelete('CASCADE');
      t.integer('locale_id').notNullable().references('id').inTable(ref('locales'));
      for (const c of columns) t.text(c);
      t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
      t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
      t.unique([owner, 'locale_id']);
    });
  await translations('course_template_translations', 'course_template_id', 'course_templates', [
    'title',
    'course_text1',
    'course_text2',
    'related_courses_text',
    'lms_summary',
  ]);

  await s().createTable('learning_paths', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.text('description');
    t.integer('locale_id').references('id').inTable(ref('locales'));
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });
  await translations('learning_path_translations', 'learning_path_id', 'learning_paths', ['name', 'description']);

  // Custom field values, one table per kind of owner so deleting the owner deletes its values.
  const fieldValues = async (table: string, owner: string, ownerTable: string) => {
    await s().createTable(table, (t) => {
      t.increments('id');
      t.integer(owner).notNullable().references('id').inTable(ref(ownerTable)).onDelete('CASCADE');
      t.integer('definition_id').notNullable().references('id').inTable(ref('custom_field_definitions')).onDelete('CASCADE');
      t.integer('locale_id').references('id').inTable(ref('locales'));
      t.text('value').notNullable();
      t.index([owner]);
    });
    await knex.raw(`create unique index ?? on ??.?? (??, definition_id, coalesce(locale_id, 0))`, [`${table}_one`, schema, table, owner]);
  };
  await fieldValues('course_template_field_values', 'course_template_id', 'course_templates');
  await fieldValues('learning_path_field_values', 'learning_path_id', 'learning_paths');
  await fieldValues('event_field_values', 'event_id', 'events');
}

export async function down(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  for (const table of [
    'event_field_values',
    'learning_path_field_values',
    'course_template_field_values',
    'learning_path_translations',
    'learning_paths',
    'course_template_translations',
    'course_template_delivery_locales',
  ]) {
    await s().dropTableIfExists(table);
  }
  await s().alterTable('course_templates', (t) => {
    t.dropColumn('default_delivery_locale_id');
    t.dropColumn('locale_id');
  });
  await s().dropTableIfExists('custom_field_definitions');
  await s().dropTableIfExists('locales');
}
