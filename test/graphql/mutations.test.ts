import test from 'ava';
import { GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import type { GraphQLContext } from '../../src/kit/graphql/context.js';
import { buildSchema } from '../../src/app/graphql-schema.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * How mutations behave as a whole: inputs given by variables the request leaves out, the
 * mutations of one group taking turns (in one request and across requests), reads after a write
 * in the same request, a refused mutation beside a successful one, and a server failure rolling
 * back everything the request wrote.
 */
let f: GraphQLFixture;
let en: string;
let fr: string;
let de: string;

/** Lectern's schema plus two mutations that fail after writing, as a bug in a resolver would. */
function schemaWithFailures(): GraphQLSchema {
  const real = buildSchema().toConfig();
  const mutation = real.mutation!.toConfig();
  const failing = (fail: (ctx: GraphQLContext) => Promise<unknown>) => ({
    type: new GraphQLNonNull(GraphQLString),
    args: { title: { type: new GraphQLNonNull(GraphQLString) } },
    async resolve(_root: unknown, { title }: { title: string }, ctx: GraphQLContext) {
      await ctx.db('course_templates').insert({ title });
      await fail(ctx);
      return 'unreachable';
    },
  });
  return new GraphQLSchema({
    ...real,
    types: [],
    mutation: new GraphQLObjectType({
      ...mutation,
      fields: {
        ...mutation.fields,
        failInDatabase: failing((ctx) => ctx.db.raw('select * from no_such_table')),
        failInCode: failing(async () => {
          throw new TypeError('secret internals: cannot read properties of undefined');
        }),
      },
    }),
  });
}

test.serial.before(async () => {
  f = await graphqlFixture('gmu', { app: { graphqlSchema: schemaWithFailures() } });
  en = await f.locale(f.tenant, 'en');
  fr = await f.locale(f.tenant, 'fr');
  de = await f.locale(f.tenant, 'de');
});
test.after.always(async () => f?.close());

const TEMPLATE = 'id title locale { code } deliveryLocales { code } defaultDeliveryLocale { code } translations { locale { code } title }';

async function createTemplate(input: Record<string, unknown>) {
  const d = await f.data(
    f.admin,
    `mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { ${TEMPLATE} } errors { message } } } }`,
    { input },
  );
  if (d.courseTemplate.create.errors.length) throw new Error(JSON.stringify(d.courseTemplate.create.errors));
  return d.courseTemplate.create.courseTemplate;
}
const readTemplate = async (id: string) =>
  (await f.data(f.admin, `query ($id: ID!) { node(id: $id) { ... on CourseTemplate { ${TEMPLATE} } } }`, { id })).node;
const count = (table: string, where: Record<string, unknown>) =>
  withTenant(f.ctx.rt.knex, f.tenant, async (db) => Number((await db(table).where(where).count('* as n').first())!.n));

test.serial('an input field given by a variable the request leaves out is not given: the update leaves it as it is', async (t) => {
  const ct = await createTemplate({ title: 'Variables', localeId: en, deliveryLocaleIds: [en, fr], defaultDeliveryLocaleId: fr });
  const query = `mutation ($id: ID!, $title: String, $loc: ID, $dl: [ID!], $ddl: ID) { courseTemplate { update(courseTemplateId: $id,
    input: {title: $title, localeId: $loc, deliveryLocaleIds: $dl, defaultDeliveryLocaleId: $ddl}) { courseTemplate { ${TEMPLATE} } errors { message } } } }`;
  const onlyTitle = (await f.data(f.admin, query, { id: ct.id, title: 'Variables, renamed' })).courseTemplate.update;
  t.deepEqual(onlyTitle.errors, []);
  t.like(onlyTitle.courseTemplate, { title: 'Variables, renamed', locale: { code: 'en' }, defaultDeliveryLocale: { code: 'fr' } });
  t.deepEqual(onlyTitle.courseTemplate.deliveryLocales, [{ code: 'en' }, { code: 'fr' }]);
  // Given as null, they are cleared: the same document, so the same compiled query.
  const cleared = (await f.data(f.admin, query, { id: ct.id, title: 'Variables, cleared', loc: null, dl: null, ddl: null })).courseTemplate
    .update;
  t.deepEqual(cleared.errors, []);
  t.like(cleared.courseTemplate, { title: 'Variables, cleared', locale: null, defaultDeliveryLocale: null });
  t.deepEqual(cleared.courseTemplate.deliveryLocales, []);
  // Emptying the delivery locales takes the default with them.
  await f.data(f.admin, query, { id: ct.id, dl: [en, de], ddl: de });
  const emptied = (await f.data(f.admin, query, { id: ct.id, dl: [] })).courseTemplate.update;
  t.deepEqual(emptied.errors, []);
  t.like(emptied.courseTemplate, { defaultDeliveryLocale: null, deliveryLocales: [] });
});

test.serial('the mutations of one group take turns, in the order written, each seeing what the one before wrote', async (t) => {
  const ct = await createTemplate({ title: 'Turns', localeId: en });
  // Warm up this request's loaders first, as a real client's bigger mutation would.
  const doc = (first: string, second: string) => `mutation ($id: ID!, $fr: ID!) { courseTemplate {
    warm: update(courseTemplateId: $id, input: {title: "Turns"}) { errors { message } }
    ${first} ${second} } }`;
  const makePrimary =
    'primary: update(courseTemplateId: $id, input: {localeId: $fr}) { courseTemplate { locale { code } } errors { label message } }';
  const translate =
    'translate: upsertTranslation(input: {courseTemplateId: $id, localeId: $fr, title: "Tours"}) { translation { title } errors { label message } }';
  const one = (await f.data(f.admin, doc(makePrimary, translate), { id: ct.id, fr })).courseTemplate;
  t.deepEqual(one.primary.errors, []);
  t.deepEqual(one.translate.errors, [
    { label: 'localeId', message: "Cannot manage a translation in the Course Template's primary language" },
  ]);

  const other = await createTemplate({ title: 'Turns, the other way', localeId: en });
  const two = (await f.data(f.admin, doc(translate, makePrimary), { id: other.id, fr })).courseTemplate;
  t.deepEqual(two.translate.errors, []);
  t.is(two.primary.errors[0].label, 'localeId');
  t.regex(two.primary.errors[0].message, /has a translation in this locale/);
  const after = await readTemplate(other.id);
  t.is(after.locale.code, 'en');
  t.deepEqual(after.translations, [{ locale: { code: 'fr' }, title: 'Tours' }]);

  // Two upserts of one locale: the second replaces the first, no clash of rows.
  const values = (
    await f.data(
      f.admin,
      `mutation ($id: ID!, $de: ID!) { courseTemplate {
    a: upsertTranslation(input: {courseTemplateId: $id, localeId: $de, title: "Erste"}) { errors { message } }
    b: upsertTranslation(input: {courseTemplateId: $id, localeId: $de, title: "Zweite"}) { translation { title } errors { message } } } }`,
      { id: other.id, de },
    )
  ).courseTemplate;
  t.deepEqual([values.a.errors, values.b.errors], [[], []]);
  t.is(values.b.translation.title, 'Zweite');
});

test.serial('concurrent requests cannot leave a translation in the primary locale', async (t) => {
  for (let i = 0; i < 8; i++) {
    const ct = await createTemplate({ title: `Race ${i}`, localeId: en });
    await Promise.all([
      f.gql(
        f.admin,
        'mutation ($id: ID!, $fr: ID!) { courseTemplate { update(courseTemplateId: $id, input: {localeId: $fr}) { errors { message } } } }',
        { id: ct.id, fr },
      ),
      f.gql(
        f.admin,
        'mutation ($id: ID!, $fr: ID!) { courseTemplate { upsertTranslation(input: {courseTemplateId: $id, localeId: $fr, title: "Course"}) { errors { message } } } }',
        { id: ct.id, fr },
      ),
    ]);
    const after = await readTemplate(ct.id);
    const primary = after.locale.code;
    t.false(
      after.translations.some((tr: { locale: { code: string } }) => tr.locale.code === primary),
      `run ${i}: primary ${primary} with translations ${JSON.stringify(after.translations)}`,
    );
  }
});

test.serial('a write in a request is seen by the rest of it: definitions and locales are read again after they change', async (t) => {
  const defined = (
    await f.data(
      f.admin,
      'mutation { customFieldDefinition { create(input: {key: "tagline_turns", label: "Tagline", type: TEXT, appliesTo: COURSE_TEMPLATE, isTranslatable: true}) { customFieldDefinition { id } errors { message } } } }',
    )
  ).customFieldDefinition.create;
  t.deepEqual(defined.errors, []);
  const ct = await createTemplate({
    title: 'Fresh reads',
    localeId: en,
    customFieldValues: [{ definitionKey: 'tagline_turns', value: 'Learn' }],
  });
  const res = await f.data(
    f.admin,
    `mutation ($id: ID!, $def: ID!, $en: ID!, $fr: ID!, $de: ID!) {
    warm: courseTemplate { update(courseTemplateId: $id, input: {localeId: $en}) { errors { message } } }
    untranslatable: customFieldDefinition { update(customFieldDefinitionId: $def, input: {isTranslatable: false}) { customFieldDefinition { isTranslatable } errors { message } } }
    field: courseTemplate { upsertTranslation(input: {courseTemplateId: $id, localeId: $fr, customFieldValues: [{definitionKey: "tagline_turns", value: "Apprendre"}]}) { errors { label message } } }
    disable: locale { disable(localeId: $de) { errors { message } } }
    disabled: courseTemplate { upsertTranslation(input: {courseTemplateId: $id, localeId: $de, title: "Frisch"}) { errors { label message } } } }`,
    { id: ct.id, def: defined.customFieldDefinition.id, en, fr, de },
  );
  t.deepEqual(res.untranslatable.update.errors, []);
  t.deepEqual(res.field.upsertTranslation.errors, [
    { label: 'customFieldValues[0].definitionKey', message: 'This Custom Field is not translatable' },
  ]);
  t.deepEqual(res.disable.disable.errors, []);
  t.deepEqual(res.disabled.upsertTranslation.errors, [{ label: 'localeId', message: 'Provided locale is not supported' }]);
  await f.locale(f.tenant, 'de');
});

test.serial('a translation in a locale the instance stopped supporting can still be deleted', async (t) => {
  const ct = await createTemplate({ title: 'Retired locale', localeId: en });
  const up = await f.data(
    f.admin,
    'mutation ($id: ID!, $de: ID!) { courseTemplate { upsertTranslation(input: {courseTemplateId: $id, localeId: $de, title: "Alt"}) { errors { message } } } }',
    { id: ct.id, de },
  );
  t.deepEqual(up.courseTemplate.upsertTranslation.errors, []);
  await f.data(f.admin, 'mutation ($de: ID!) { locale { disable(localeId: $de) { errors { message } } } }', { de });
  try {
    const again = await f.data(
      f.admin,
      'mutation ($id: ID!, $de: ID!) { courseTemplate { upsertTranslation(input: {courseTemplateId: $id, localeId: $de, title: "Neu"}) { errors { message } } } }',
      { id: ct.id, de },
    );
    t.deepEqual(again.courseTemplate.upsertTranslation.errors, [{ message: 'Provided locale is not supported' }]);
    const del = await f.data(
      f.admin,
      'mutation ($id: ID!, $de: ID!) { courseTemplate { deleteTranslation(input: {courseTemplateId: $id, localeId: $de}) { translation { id } errors { message } } } }',
      { id: ct.id, de },
    );
    t.deepEqual(del.courseTemplate.deleteTranslation, { translation: null, errors: [] });
    t.deepEqual((await readTemplate(ct.id)).translations, []);
  } finally {
    await f.locale(f.tenant, 'de');
  }
});

test.serial('a refused mutation nulls only its own payload: what the others of the request wrote is still answered', async (t) => {
  const editor = await f.tokenFor(f.tenant, 'editor', ['COURSE_TEMPLATE_EDIT', 'COURSE_TEMPLATE_VIEW']);
  const res = await f.gql(
    editor,
    `mutation ($fr: ID!) {
    a: courseTemplate { create(input: {title: "Written beside a refusal"}) { courseTemplate { id title } errors { message } } }
    b: locale { enable(localeId: $fr) { locale { id } errors { message } } } }`,
    { fr },
  );
  t.is(res.status, 200);
  t.is(res.json.data.a.create.courseTemplate.title, 'Written beside a refusal');
  t.is(res.json.data.b.enable, null);
  t.deepEqual(
    res.json.errors.map((e: { path: string[]; extensions: { code: string } }) => [e.path, e.extensions.code]),
    [[['b', 'enable'], 'FORBIDDEN']],
  );
  t.is(await count('course_templates', { title: 'Written beside a refusal' }), 1);

  // Translations need COURSE_TEMPLATE_VIEW wherever a template is reached, a payload included.
  const writer = await f.tokenFor(f.tenant, 'writer', ['COURSE_TEMPLATE_EDIT']);
  const blind = await f.gql(
    writer,
    'mutation { courseTemplate { create(input: {title: "Written blind"}) { courseTemplate { title translations { id } } errors { message } } } }',
  );
  t.is(blind.json.errors[0].extensions.code, 'FORBIDDEN');
  t.deepEqual(blind.json.errors[0].path, ['courseTemplate', 'create', 'courseTemplate', 'translations']);
});

test.serial(
  'a server failure answers 500 in GraphQL shape with a request id, says nothing of its insides, and writes nothing',
  async (t) => {
    for (const [field, title] of [
      ['failInDatabase', 'Half-written in SQL'],
      ['failInCode', 'Half-written in code'],
    ] as const) {
      const res = await f.gql(
        f.admin,
        `mutation ($title: String!) { courseTemplate { create(input: {title: "Beside it"}) { errors { message } } } ${field}(title: $title) }`,
        { title },
      );
      t.is(res.status, 500, field);
      t.is(res.json.errors.length, 1);
      t.like(res.json.errors[0], { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      t.regex(res.json.errors[0].extensions.requestId, /\S/);
      t.notRegex(res.text, /secret internals|no_such_table|TypeError/);
      t.is(await count('course_templates', { title }), 0, `${field} left its row`);
    }
    t.is(await count('course_templates', { title: 'Beside it' }), 0);
  },
);

test.serial(
  'cost: a page size given by a variable counts at the value the request sends (at most the maximum page), one left out at its default',
  async (t) => {
    // Each template's events (a nested list left at its default page of 20) weigh on the page size.
    const list = (first: string) =>
      `courseTemplates${first} { edges { node { id title code courseText1 courseText2 lmsSummary events { edges { node { id title code start end status } } } translations { id title courseText1 courseText2 translatedFields locale { id code name fullName } customFieldValues { definitionKey value definition { key label type } } } } } }`;
    const doc = (first: string, vars = '') =>
      `query ${vars} { ${Array.from({ length: 19 }, (_, i) => `c${i}: ${list(first)}`).join(' ')} }`;
    const refused = async (query: string, variables?: Record<string, unknown>) => {
      const res = await f.gql(f.admin, query, variables);
      return res.json.errors?.some((e: { message: string }) => /cost limit/i.test(e.message)) ?? false;
    };
    t.true(await refused(doc('(first: $n)', '($n: Int)'), { n: 100 }), 'variable page size');
    t.false(await refused(doc('(first: $n)', '($n: Int)'), { n: 1 }), 'counted at the page size this request sends');
    t.true(await refused(doc('(first: $n)', '($n: Int)'), { n: 100 }), 'the same text is costed again for another page size');
    t.true(await refused(doc('(first: $n)', '($n: Int)')), 'a variable left out counts at the default page');
    t.true(await refused(doc('')), 'page size left out');
    t.false(await refused(doc('(first: 5)')));
  },
);

test.serial("filters: an impossible date-time is the client's mistake; wordlike matches words that end in symbols", async (t) => {
  for (const value of ['2024-02-30', '0000-01-01', '2024-01-01T25:00', '2024-13-01T00:00:00']) {
    const res = await f.gql(
      f.admin,
      'query ($v: String) { courseTemplates(filters: [{field: createdOn, operation: gt, value: $v}]) { edges { node { id } } } }',
      { v: value },
    );
    t.is(res.status, 200, value);
    t.is(res.json.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', value);
    t.regex(res.json.errors[0].message, /is not a date-time/);
  }
  const ok = await f.data(
    f.admin,
    '{ courseTemplates(filters: [{field: createdOn, operation: gt, value: "2024-02-29T23:59:59.5"}]) { pageInfo { totalRecords } } }',
  );
  t.true(ok.courseTemplates.pageInfo.totalRecords > 0);
  await createTemplate({ title: 'Modern C++ in practice' });
  const words = async (value: string) =>
    (
      await f.data(
        f.admin,
        'query ($v: String) { courseTemplates(filters: [{field: title, operation: wordlike, value: $v}]) { edges { node { title } } } }',
        { v: value },
      )
    ).courseTemplates.edges.map((e: { node: { title: string } }) => e.node.title);
  await createTemplate({ title: 'Then (C#), briefly' });
  t.deepEqual(await words('c++'), ['Modern C++ in practice']);
  t.deepEqual(await words('C#'), ['Then (C#), briefly']);
  t.deepEqual(await words('C+'), []);
  t.deepEqual(await words('pract'), []);
  t.deepEqual(await words('modern'), ['Modern C++ in practice']);
});

test.serial('custom field patterns are RE2: no backreferences, and a pathological pattern checks a long value at once', async (t) => {
  const create = (pattern: string, key: string) =>
    f.data(
      f.admin,
      'mutation ($input: CustomFieldDefinitionInput!) { customFieldDefinition { create(input: $input) { customFieldDefinition { key } errors { label message } } } }',
      {
        input: { key, label: key, type: 'TEXTAREA', appliesTo: 'COURSE_TEMPLATE', pattern },
      },
    );
  const backref = (await create('^(a)\\1$', 'backref')).customFieldDefinition.create;
  t.deepEqual(
    backref.errors.map((e: { label: string }) => e.label),
    ['pattern'],
  );
  t.regex(backref.errors[0].message, /RE2/);
  const nested = (await create('^(a+)+$', 'nested')).customFieldDefinition.create;
  t.deepEqual(nested.errors, []);
  // With a backtracking engine this value would take longer than the age of the universe.
  const res = await f.data(
    f.admin,
    'mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { id } errors { label message } } } }',
    {
      input: { title: 'Patterns', customFieldValues: [{ definitionKey: 'nested', value: `${'a'.repeat(5000)}b` }] },
    },
  );
  t.deepEqual(
    res.courseTemplate.create.errors.map((e: { label: string; message: string }) => [e.label, e.message]),
    [['customFieldValues[0].value', 'Value must match the pattern ^(a+)+$']],
  );
});
