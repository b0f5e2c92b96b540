import type { Knex } from '../../src/platform/db/knex.js';

/**
 * The course templates the GraphQL and WebLink benchmarks ask for: `count` templates in English
 * (`Course <i>`, a first text), each translated into French (title, first text and teaser; German
 * titles too with `german`), with two translatable custom fields, `tagline` (translated into
 * French) and `audience`. `row(i)` adds columns to template i. French (and German) are enabled.
 */
export async function seedTranslatedTemplates(
  trx: Knex,
  opts: { count: number; german?: boolean; row?: (i: number) => Record<string, unknown> },
): Promise<void> {
  await trx('locales')
    .whereIn('code', opts.german ? ['fr', 'de'] : ['fr'])
    .update({ supported: true });
  const [tagline, audience] = await trx('custom_field_definitions')
    .insert([
      { key: 'tagline', label: 'Tagline', type: 'text', applies_to: 'course_template', is_translatable: true },
      { key: 'audience', label: 'Audience', type: 'text', applies_to: 'course_template', is_translatable: true },
    ])
    .returning('id');
  const templates: { id: number }[] = await trx('course_templates')
    .insert(
      Array.from({ length: opts.count }, (_, i) => ({
        title: `Course ${i}`,
        course_text1: `<p>About course ${i}</p>`,
        locale_id: 1,
        ...opts.row?.(i),
      })),
    )
    .returning('id');
  await trx('course_template_translations').insert(
    templates.flatMap(({ id }) => [
      {
        course_template_id: id,
        locale_id: 3,
        title: `Cours ${id}`,
        course_text1: `<p>Le cours ${id}</p>`,
        teaser_description: `Ce que le cours ${id} enseigne.`,
      },
      ...(opts.german ? [{ course_template_id: id, locale_id: 5, title: `Kurs ${id}` }] : []),
    ]),
  );
  await trx('course_template_field_values').insert(
    templates.flatMap(({ id }) => [
      { course_template_id: id, definition_id: tagline.id, value: 'Learn by doing' },
      { course_template_id: id, definition_id: audience.id, value: 'Managers' },
      { course_template_id: id, definition_id: tagline.id, locale_id: 3, value: 'Apprendre en faisant' },
    ]),
  );
}
