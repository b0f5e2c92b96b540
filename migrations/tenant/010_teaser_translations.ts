import type { Knex } from 'knex';

/**
 * A course template's teaser description is one of its translatable texts: a translation may
 * overlay it like the title and the course texts (WebLink shows it in the content locale).
 */
export const name = '010_teaser_translations';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).alterTable('course_template_translations', (t) => {
    t.text('teaser_description');
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).alterTable('course_template_translations', (t) => {
    t.dropColumn('teaser_description');
  });
}
