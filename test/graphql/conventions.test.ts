import { readFileSync } from 'node:fs';
import test from 'ava';
import { serverAudits } from 'graphql-http';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { SCHEMA_FILES } from '../../scripts/schema.js';
import { request, runTs } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * The conventions every type follows (api-conventions.md): global ids and node(id:), list
 * queries (filters, order, paging, connections), permissions first, query limits, and the
 * GraphQL-over-HTTP audits of graphql-http, through real HTTP with real bearer tokens.
 */
let f: GraphQLFixture;
const ids: Record<string, string> = {};

test.serial.before(async () => {
  f = await graphqlFixture('gcv');
  const fr = await f.locale(f.tenant, 'fr');
  const en = toGlobalId('Locale', 1);
  const make = async (input: Record<string, unknown>) => {
    const d = await f.data(
      f.admin,
      `mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { id } errors { message } } } }`,
      { input },
    );
    return d.courseTemplate.create.courseTemplate.id as string;
  };
  ids.excel = await make({ title: 'Excel Basics', code: 'XL1', lifecycleState: 'published', deliveryLocaleIds: [en, fr] });
  ids.excelAdv = await make({ title: 'Advanced Excel Macros', code: 'XL2', lifecycleState: 'published', deliveryLocaleIds: [en] });
  ids.word = await make({ title: 'Word for Beginners', code: 'WD1', lifecycleState: 'draft' });
  ids.excellence = await make({ title: 'Service Excellence', lifecycleState: 'cancelled' });
  ids.fr = fr;
});
test.after.always(async () => f?.close());

const titles = async (filters: unknown, extra = '') => {
  const d = await f.data(
    f.admin,
    `query ($filters: [CourseTemplateFieldGraphFilter]) { courseTemplates(filters: $filters, order: {field: title, direction: asc} ${extra}) { edges { node { title } } pageInfo { totalRecords } } }`,
    { filters },
  );
  return d.courseTemplates.edges.map((e: { node: { title: string } }) => e.node.title);
};

test.serial('ids are base64 of "<Type>:<legacyId>"; node(id:) finds any type; an id of another type or of nothing is null', async (t) => {
  const d = await f.data(f.admin, `query ($id: ID!) { node(id: $id) { id ... on CourseTemplate { legacyId title } } }`, { id: ids.excel });
  t.is(Buffer.from(d.node.id, 'base64').toString(), `CourseTemplate:${d.node.legacyId}`);
  t.is(d.node.title, 'Excel Basics');
  const locale = await f.data(f.admin, `{ node(id: "${toGlobalId('Locale', 1)}") { ... on Locale { code default } } }`);
  t.deepEqual(locale.node, { code: 'en', default: true });
  const wrongType = toGlobalId('LearningPath', Number(Buffer.from(ids.excel!, 'base64').toString().split(':')[1]));
  t.is((await f.data(f.admin, `{ node(id: "${wrongType}") { id } }`)).node, null);
  t.is((await f.data(f.admin, `{ node(id: "${toGlobalId('CourseTemplate', 999999)}") { id } }`)).node, null);
  t.is((await f.data(f.admin, `{ node(id: "garbage!") { id } }`)).node, null);
  // A list filtered on id is the other way to fetch one record.
  t.deepEqual(await titles([{ field: 'id', operation: 'eq', value: ids.word }]), ['Word for Beginners']);
});

test.serial('every filter operation: eq ne gt ge lt le like wordlike in notin contains isnull notnull', async (t) => {
  t.deepEqual(await titles([{ field: 'code', operation: 'eq', value: 'XL1' }]), ['Excel Basics']);
  t.deepEqual(await titles([{ field: 'lifecycleState', operation: 'ne', value: 'published' }]), [
    'Service Excellence',
    'Word for Beginners',
  ]);
  t.deepEqual(await titles([{ field: 'code', operation: 'gt', value: 'XL1' }]), ['Advanced Excel Macros']);
  t.deepEqual(await titles([{ field: 'code', operation: 'ge', value: 'XL1' }]), ['Advanced Excel Macros', 'Excel Basics']);
  t.deepEqual(await titles([{ field: 'code', operation: 'lt', value: 'XL1' }]), ['Word for Beginners']);
  t.deepEqual(await titles([{ field: 'code', operation: 'le', value: 'WD1' }]), ['Word for Beginners']);
  t.deepEqual(await titles([{ field: 'title', operation: 'like', value: '%excel%' }]), [
    'Advanced Excel Macros',
    'Excel Basics',
    'Service Excellence',
  ]);
  t.deepEqual(
    await titles([{ field: 'title', operation: 'wordlike', value: 'excel' }]),
    ['Advanced Excel Macros', 'Excel Basics'],
    'a whole word: not "Excellence"',
  );
  t.deepEqual(await titles([{ field: 'code', operation: 'in', values: ['XL2', 'WD1'] }]), ['Advanced Excel Macros', 'Word for Beginners']);
  t.deepEqual(await titles([{ field: 'code', operation: 'notin', values: ['XL2', 'WD1'] }]), ['Excel Basics', 'Service Excellence']);
  t.deepEqual(await titles([{ field: 'title', operation: 'contains', values: ['excel', 'basics'] }]), ['Excel Basics']);
  t.deepEqual(await titles([{ field: 'code', operation: 'isnull' }]), ['Service Excellence']);
  t.deepEqual(
    await titles([
      { field: 'code', operation: 'notnull' },
      { field: 'lifecycleState', operation: 'eq', value: 'published' },
    ]),
    ['Advanced Excel Macros', 'Excel Basics'],
  );
  t.deepEqual(await titles([{ field: 'deliveryLocales', operation: 'contains', values: [ids.fr] }]), ['Excel Basics']);
  t.deepEqual(await titles([{ field: 'deliveryLocales', operation: 'isnull' }]), ['Service Excellence', 'Word for Beginners']);
});

test.serial('one malformed filter fails the whole request with a clear error', async (t) => {
  const cases: [unknown, RegExp][] = [
    [[{ field: 'title', operation: 'eq' }], /needs `value`/],
    [[{ field: 'title', operation: 'in', value: 'x' }], /needs a non-empty `values`/],
    [[{ field: 'lifecycleState', operation: 'eq', value: 'archived' }], /one of draft, published, cancelled/],
    [[{ field: 'createdOn', operation: 'gt', value: 'yesterday' }], /not a date-time/],
    [[{ field: 'lifecycleState', operation: 'like', value: '%a%' }], /text fields only/],
    [[{ field: 'id', operation: 'eq', value: 'not-an-id' }], /not an id/],
    [[{ field: 'code', operation: 'isnull', value: 'x' }], /takes neither/],
  ];
  for (const [filters, message] of cases) {
    const res = await f.gql(
      f.admin,
      `query ($filters: [CourseTemplateFieldGraphFilter]) { courseTemplates(filters: $filters) { edges { node { id } } } }`,
      { filters },
    );
    t.is(res.status, 200);
    t.is(res.json.data, null, JSON.stringify(filters));
    t.is(res.json.errors[0].extensions.code, 'BAD_USER_INPUT');
    t.regex(res.json.errors[0].message, message);
  }
  const unknownField = await f.gql(
    f.admin,
    `{ courseTemplates(filters: [{field: secret, operation: eq, value: "x"}]) { edges { node { id } } } }`,
  );
  t.regex(unknownField.json.errors[0].message, /secret/);
});

test.serial('order, first/offset and first/after paging with pageInfo', async (t) => {
  const page = (args: string) =>
    f.data(
      f.admin,
      `{ courseTemplates(order: {field: title, direction: desc}, ${args}) { edges { cursor node { title } } pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage } } }`,
    );
  const one = (await page('first: 2')).courseTemplates;
  t.deepEqual(
    one.edges.map((e: { node: { title: string } }) => e.node.title),
    ['Word for Beginners', 'Service Excellence'],
  );
  t.like(one.pageInfo, {
    totalRecords: 4,
    hasNextPage: true,
    hasPreviousPage: false,
    startCursor: one.edges[0].cursor,
    endCursor: one.edges[1].cursor,
  });
  const two = (await page(`first: 2, after: "${one.pageInfo.endCursor}"`)).courseTemplates;
  t.deepEqual(
    two.edges.map((e: { node: { title: string } }) => e.node.title),
    ['Excel Basics', 'Advanced Excel Macros'],
  );
  t.like(two.pageInfo, { totalRecords: 4, hasNextPage: false, hasPreviousPage: true });
  const byOffset = (await page('first: 2, offset: 2')).courseTemplates;
  t.deepEqual(byOffset.edges, two.edges);
  const beyond = (await page('first: 2, offset: 10')).courseTemplates;
  t.like(beyond.pageInfo, { totalRecords: 4, hasNextPage: false, startCursor: null, endCursor: null });
  const tooMany = await f.gql(f.admin, '{ courseTemplates(first: 101) { edges { node { id } } } }');
  t.regex(tooMany.json.errors[0].message, /first must be between 0 and 100/);
});

test.serial('query limits: too deep, too many aliases or too costly is refused with a clear error', async (t) => {
  // Lists lead back to each other (a template's events, an event's template): the depth bound counts any nesting.
  const tooDeep = `{ courseTemplates { edges { node { ${'a { '.repeat(12)}b${' }'.repeat(12)} } } } }`;
  const depth = await f.gql(f.admin, tooDeep);
  t.true(
    depth.json.errors.some((e: { message: string }) => /depth limit/i.test(e.message)),
    JSON.stringify(depth.json.errors.map((e: { message: string }) => e.message)),
  );
  const aliases = `{ ${Array.from({ length: 25 }, (_, i) => `a${i}: hello`).join(' ')} }`;
  t.regex((await f.gql(f.admin, aliases)).json.errors[0].message, /aliases/i);
  const costly = `{ ${Array.from({ length: 19 }, (_, i) => `c${i}: courseTemplates(first: 100) { edges { node { id title code courseText1 courseText2 lmsSummary translations { id title courseText1 courseText2 translatedFields locale { id code name fullName } customFieldValues { definitionKey value definition { key label type } } } } } }`).join(' ')} }`;
  t.regex((await f.gql(f.admin, costly)).json.errors[0].message, /cost/i);
});

test.serial('graphql-http server audits: every MUST and SHOULD passes', async (t) => {
  const audits = serverAudits({
    url: `http://localhost:${f.port}/graphql`,
    fetchFn: (input: string | URL | Request, init: RequestInit = {}) =>
      fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${f.admin}` } }),
  });
  const failed: string[] = [];
  for (const audit of audits) {
    const r = await audit.fn();
    if (r.status !== 'ok' && !audit.name.startsWith('MAY')) failed.push(`${audit.id} ${audit.name}: ${r.reason}`);
  }
  t.deepEqual(failed, []);
  t.true(audits.length > 50);
});

test.serial('permissions come first on every list query; roles map to permission sets', async (t) => {
  const noLocales = await f.tokenFor(f.tenant, 'templates', ['COURSE_TEMPLATE_VIEW']);
  const res = await f.gql(noLocales, '{ locales { edges { node { code } } } }');
  t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
  t.regex(res.json.errors[0].message, /LOCALE_VIEW/);
  // The same role reads templates, and their locales through them.
  t.is(
    (await f.data(noLocales, `{ courseTemplates(first: 1) { edges { node { deliveryLocales { code } } } } }`)).courseTemplates.edges.length,
    1,
  );
  const viewer = await f.tokenFor(f.tenant, 'viewer');
  t.is(
    (await f.data(viewer, '{ locales(filters: [{field: supported, operation: eq, value: "true"}]) { pageInfo { totalRecords } } }')).locales
      .pageInfo.totalRecords,
    2,
  );
  const denied = await f.gql(viewer, `mutation { locale { enable(localeId: "${toGlobalId('Locale', 5)}") { errors { message } } } }`);
  t.regex(denied.json.errors[0].message, /LOCALE_EDIT/);
});

test.serial('locales: the catalogue, the supported ones and the default; enabled by mutation or CLI', async (t) => {
  const de = toGlobalId('Locale', 5);
  const enabled = (
    await f.data(
      f.admin,
      `mutation { locale { enable(localeId: "${de}") { locale { code name fullName supported default } errors { message } } } }`,
    )
  ).locale.enable;
  t.deepEqual(enabled, { locale: { code: 'de', name: 'German', fullName: 'German', supported: true, default: false }, errors: [] });
  const cli = await runTs('src/cli/main.ts', ['locales:enable', '--tenant', f.tenant.slug, '--code', 'pt-BR'], {
    QUEUE_PREFIX: f.ctx.rt.config.queuePrefix,
  });
  t.is(cli.code, 0, cli.stderr);
  t.like(JSON.parse(cli.stdout), { code: 'pt-BR', supported: true });
  const supported = await f.data(
    f.admin,
    '{ locales(filters: [{field: supported, operation: eq, value: "true"}], order: {field: code}) { edges { node { code default } } } }',
  );
  t.deepEqual(
    supported.locales.edges.map((e: { node: { code: string } }) => e.node.code),
    ['de', 'en', 'fr', 'pt-BR'],
  );
  const notDefault = (
    await f.data(f.admin, `mutation { locale { disable(localeId: "${toGlobalId('Locale', 1)}") { errors { label message } } } }`)
  ).locale.disable;
  t.regex(notDefault.errors[0].message, /default locale cannot be disabled/);
});

test.serial('roles:create makes a permission set users:create can give; unknown permissions are refused', async (t) => {
  const env = { QUEUE_PREFIX: f.ctx.rt.config.queuePrefix };
  const role = await runTs(
    'src/cli/main.ts',
    ['roles:create', '--tenant', f.tenant.slug, '--name', 'editor', '--permissions', 'COURSE_TEMPLATE_VIEW,COURSE_TEMPLATE_EDIT'],
    env,
  );
  t.is(role.code, 0, role.stderr);
  t.deepEqual(JSON.parse(role.stdout).permissions, ['COURSE_TEMPLATE_VIEW', 'COURSE_TEMPLATE_EDIT']);
  const typo = await runTs(
    'src/cli/main.ts',
    ['roles:create', '--tenant', f.tenant.slug, '--name', 'typo', '--permissions', 'COURSE_TEMPLATES_VIEW'],
    env,
  );
  t.is(typo.code, 1);
  t.regex(typo.stderr, /must be from/);
  const user = await runTs(
    'src/cli/main.ts',
    ['users:create', '--tenant', f.tenant.slug, '--email', 'editor@gcv.test', '--password', 'editor-password-1', '--role', 'editor'],
    env,
  );
  t.is(user.code, 0, user.stderr);
  t.is(JSON.parse(user.stdout).role, 'editor');
});

test.serial(
  'GraphiQL in development; a client that accepts no JSON gets 406; the SDL in schema.graphql and weblink.graphql is current',
  async (t) => {
    const page = await request(f.port, { path: '/graphql', headers: { accept: 'text/html' } });
    t.is(page.status, 200);
    t.regex(page.text, /GraphiQL/);
    const xml = await request(f.port, {
      method: 'POST',
      path: '/graphql',
      headers: { accept: 'application/xml', authorization: `Bearer ${f.admin}` },
      body: { query: '{ hello }' },
    });
    t.is(xml.status, 406);
    for (const { file, sdl } of Object.values(SCHEMA_FILES))
      t.is(readFileSync(file, 'utf8'), sdl(), `${file} is stale: run npm run schema`);
  },
);
