import type { Knex } from 'knex';

/**
 * Course templates as the Core API's real integrations read them (issue 15):
 * - a short code (`shortCode`), beside the code;
 * - the learning mode of its events (`eventLearningMode`): classroom, lms or blended, the same
 *   values as an event's delivery method. Existing templates are classroom courses, as existing
 *   events are;
 * - the contacts approved to teach it (`approvedInstructors`).
 */
export const name = '012_course_template_core';

const LEARNING_MODES = ['classroom', 'lms', 'blended'] as const;

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).alterTable('course_templates', (t) => {
    t.text('short_code');
    t.text('event_learning_mode').notNullable().defaultTo('classroom');
    t.check(`event_learning_mode in (${LEARNING_MODES.map((v) => `'${v}'`).join(', ')})`, [], 'course_templates_event_learning_mode');
  });
  await knex.schema.withSchema(schema).createTable('course_template_instructors', (t) => {
    t.integer('course_template_id').notNullable().references('id').inTable(`${schema}.course_templates`).onDelete('CASCADE');
    t.integer('contact_id').notNullable().references('id').inTable(`${schema}.contacts`).onDelete('CASCADE');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(knex.raw(`(now() at time zone 'utc')`));
    t.primary(['course_template_id', 'contact_id']);
    t.index(['contact_id']);
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).dropTableIfExists('course_template_instructors');
  await knex.schema.withSchema(schema).alterTable('course_templates', (t) => {
    t.dropChecks(['course_templates_event_learning_mode']);
    t.dropColumns('short_code', 'event_learning_mode');
  });
}
