import type { Knex } from '../../src/platform/db/knex.js';
import { seedTranslatedTemplates } from './templates.js';

/**
 * The public catalogue the WebLink benchmark asks for, as a training company's website shows it:
 * `templates` published course templates (`Course 000`..., texts, a teaser, an image, a Normal
 * price in GBP, French translations of title and first text, two custom fields with a French
 * value: bench/lib/templates.ts) and `paths` active learning paths (`Course 000 path`, every
 * tenth name, so a page ordered by name mixes both kinds) with an image, a price, French names
 * and three course objectives each; every other one is a bundle.
 */
export async function seedWebsiteCatalogue(trx: Knex, opts: { templates: number; paths: number }): Promise<void> {
  const name = (i: number) => `Course ${String(i).padStart(3, '0')}`;
  const [category] = await trx('categories').insert({ name: 'Health & Safety', priority: 1 }).returning('id');
  const images: { id: number }[] = await trx('documents')
    .insert(
      Array.from({ length: opts.templates + opts.paths }, (_, i) => ({
        name: `image-${i}.jpg`,
        url: `https://images.bench-training.test/image-${i}.jpg`,
        folder: 'Catalogue images',
      })),
    )
    .returning('id');
  await seedTranslatedTemplates(trx, {
    count: opts.templates,
    row: (i) => ({
      code: `C${i}`,
      title: name(i),
      course_text2: '<p>For everyone.</p>',
      teaser_description: `What course ${i} teaches, in a sentence.`,
      image_document_id: images[i]!.id,
      lifecycle_state: 'published',
      category_id: category.id,
    }),
  });
  const templates: { id: number }[] = await trx('course_templates').orderBy('id').select('id');
  const [normal] = await trx('price_levels').where({ name: 'Normal' }).select('id');
  await trx('prices').insert(
    templates.map((t, i) => ({ course_template_id: t.id, price_level_id: normal.id, currency_code: 'GBP', amount: 100 + (i % 50) * 10 })),
  );

  const paths: { id: number }[] = await trx('learning_paths')
    .insert(
      Array.from({ length: opts.paths }, (_, i) => ({
        code: `P${i}`,
        name: `${name((i * 10) % opts.templates)} path`,
        description: `A path through three courses (${i}).`,
        locale_id: 1,
        lifecycle_state: 'active',
        is_bundle: i % 2 === 1,
        category_id: category.id,
        image_document_id: images[opts.templates + i]!.id,
      })),
    )
    .returning('id');
  await trx('learning_path_translations').insert(
    paths.map((p) => ({ learning_path_id: p.id, locale_id: 3, name: `Parcours ${p.id}`, description: `Un parcours (${p.id}).` })),
  );
  await trx('prices').insert(
    paths.map((p, i) => ({ learning_path_id: p.id, price_level_id: normal.id, currency_code: 'GBP', amount: 900 + i * 10 })),
  );
  await trx('learning_path_objectives').insert(
    paths.flatMap((p, i) =>
      [0, 1, 2].map((k) => ({
        learning_path_id: p.id,
        position: k + 1,
        course_template_id: templates[(i * 3 + k) % templates.length]!.id,
      })),
    ),
  );
}
