import test from 'ava';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { readStatements } from '../helpers/statements.js';

/**
 * Batching (DataLoader): the SQL statements of a page of course templates with their
 * translations, locales and custom field values do not grow with the page size.
 */
let f: GraphQLFixture;

test.serial.before(async () => {
  f = await graphqlFixture('gbt');
  const knex = f.ctx.rt.knex;
  const s = f.tenant.schema;
  await knex(`${s}.locales`).whereIn('code', ['fr', 'de']).update({ supported: true });
  const [def1, def2] = await knex(`${s}.custom_field_definitions`)
    .insert([
      { key: 'tagline', label: 'Tagline', type: 'text', applies_to: 'course_template', is_translatable: true },
      { key: 'audience', label: 'Audience', type: 'text', applies_to: 'course_template', is_translatable: true },
    ])
    .returning('id');
  const templates = await knex(`${s}.course_templates`)
    .insert(Array.from({ length: 60 }, (_, i) => ({ title: `Course ${i}`, locale_id: 1 })))
    .returning('id');
  for (const { id } of templates) {
    await knex(`${s}.course_template_delivery_locales`).insert([
      { course_template_id: id, locale_id: 1 },
      { course_template_id: id, locale_id: 3 },
    ]);
    await knex(`${s}.course_templates`).where({ id }).update({ default_delivery_locale_id: 1 });
    await knex(`${s}.course_template_translations`).insert(
      [3, 5].map((locale_id) => ({ course_template_id: id, locale_id, title: `T${id}-${locale_id}` })),
    );
    await knex(`${s}.course_template_field_values`).insert([
      { course_template_id: id, definition_id: def1.id, value: 'base tagline' },
      { course_template_id: id, definition_id: def2.id, value: 'managers' },
      { course_template_id: id, definition_id: def1.id, locale_id: 3, value: 'slogan' },
    ]);
  }
});
test.after.always(async () => f?.close());

const QUERY = `query ($first: Int) { courseTemplates(first: $first) { edges { node {
  id title locale { code } deliveryLocales { code } defaultDeliveryLocale { code }
  customFieldValues { definitionKey value definition { key label } }
  translations { id title locale { code name } translatedFields customFieldValues { definitionKey value definition { key } } }
} } pageInfo { totalRecords } } }`;

async function statementsFor(first: number): Promise<{ count: number; edges: number; sql: string[] }> {
  const { sql, result: d } = await readStatements(f.ctx.rt.knex, () => f.data(f.admin, QUERY, { first }));
  return { count: sql.length, edges: d.courseTemplates.edges.length, sql };
}

test.serial(
  'a page of 50 course templates with translations, locales and custom fields takes as many statements as a page of 5',
  async (t) => {
    // The token and its user are read on first use only (then cached, once the process hears the
    // database's announcements): counted after that.
    await f.ctx.rt.changes.ensureStarted();
    await statementsFor(5);
    const small = await statementsFor(5);
    const large = await statementsFor(50);
    t.is(small.edges, 5);
    t.is(large.edges, 50);
    t.is(
      large.count,
      small.count,
      `statements: ${small.count} for 5, ${large.count} for 50\n${small.sql.join('\n')}\n--\n${large.sql.join('\n')}`,
    );
    t.true(large.count <= 12, `a handful of statements, got ${large.count}`);
    t.log(`statements per request: ${large.count}`);
  },
);
