import type { Knex } from 'knex';

/**
 * A course template's default delivery locale is one of its delivery locales (contract rule 1),
 * held by the database as well as the write path: a foreign key from (template, default) to the
 * template's delivery locales. Deferred to commit, since a write replaces the delivery locales
 * and the default in the same transaction.
 */
export const name = '006_default_delivery_locale';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.raw(
    `alter table ??.course_templates add constraint course_templates_default_delivery_locale_fk
       foreign key (id, default_delivery_locale_id) references ??.course_template_delivery_locales (course_template_id, locale_id)
       deferrable initially deferred`,
    [schema, schema],
  );
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.raw('alter table ??.course_templates drop constraint course_templates_default_delivery_locale_fk', [schema]);
}
