import type { Knex } from 'knex';

/**
 * Translations of categories (issue 14: WebLink's `weblink-content-locale` overlays category
 * names too): one row per category and locale, a sparse overlay of its name and introduction
 * like the translations of course templates (migration 005): NULL in a column means "not
 * translated" (fall back to the category's own), '' a deliberate blank. Deleting a category
 * deletes its translations.
 */
export const name = '014_category_translations';

export async function up(knex: Knex, schema: string): Promise<void> {
  const ref = (table: string) => `${schema}.${table}`;
  const utcNow = knex.raw(`(now() at time zone 'utc')`);
  await knex.schema.withSchema(schema).createTable('category_translations', (t) => {
    t.increments('id');
    t.integer('category_id').notNullable().references('id').inTable(ref('categories')).onDelete('CASCADE');
    t.integer('locale_id').notNullable().references('id').inTable(ref('locales'));
    t.text('name');
    t.text('introduction');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.unique(['category_id', 'locale_id']);
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).dropTableIfExists('category_translations');
}
