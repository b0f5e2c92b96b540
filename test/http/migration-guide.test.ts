import test from 'ava';
import { GraphQLObjectType, parse, validate, type GraphQLSchema } from 'graphql';
import { buildSchema } from '../../src/app/graphql-schema.js';
import { MIGRATION_MAP, migrationGuideHtml } from '../../src/app/migration-guide.js';
import { RESOURCES } from '../../src/app/rest-routes.js';
import { request, setupTestRuntime, startTestApp, type TestContext } from '../helpers/harness.js';

/**
 * `GET /api/v2/migration` names only GraphQL operations the Core API has: every document it gives
 * is validated against the schema as built when the test runs (so the guide stays true as the
 * schema grows), and an endpoint with no GraphQL counterpart says so plainly.
 */
let schema: GraphQLSchema;
let ctx: TestContext;
let app: { port: number; close(): Promise<void> };

test.before(async () => {
  schema = buildSchema();
  ctx = await setupTestRuntime();
  app = await startTestApp(ctx.rt);
});
test.after.always(async () => {
  await app?.close();
  await ctx?.cleanup();
});

const problems = (document: string) => validate(schema, parse(document)).map((e) => e.message);

test('when the guide gives GraphQL documents, then each one validates against the Core schema as built', (t) => {
  const failures: string[] = [];
  let checked = 0;
  for (const entry of MIGRATION_MAP) {
    for (const operation of entry.operations) {
      checked++;
      const errors = problems(operation);
      if (errors.length) failures.push(`${entry.rest}: ${errors.join('; ')}\n  ${operation}`);
    }
  }
  t.deepEqual(failures, []);
  t.true(checked >= 10, `${checked} documents`);
  // The check tells: names the old guide gave, which the schema does not have, fail it.
  for (const wrong of [
    '{ contacts { edges { node { id email2 } } } }',
    '{ learners(filters: [{field: nickname, operation: eq, value: "x"}]) { edges { node { id } } } }',
    'mutation { opportunity { create { errors { message } } } }',
  ]) {
    t.true(problems(wrong).length > 0, wrong);
  }
});

test('when the guide names operations, then each is a root field or a mutation of a namespace the schema has', (t) => {
  const query = schema.getQueryType()!.getFields();
  const mutation = schema.getMutationType()!.getFields();
  const names = MIGRATION_MAP.filter((e) => e.operations.length).flatMap((e) => e.graphql.split('; '));
  t.true(names.length > 0);
  for (const name of names) {
    const m = /^(query|mutation) (\w+)(?:\.(\w+))?$/.exec(name);
    if (!m) {
      t.fail(`not an operation name: ${name}`);
      continue;
    }
    const [, kind, root, op] = m;
    if (kind === 'query') t.truthy(query[root!], name);
    else {
      const namespace = mutation[root!]?.type;
      const type = namespace && 'ofType' in namespace ? namespace.ofType : namespace;
      t.true(type instanceof GraphQLObjectType && op !== undefined && op in type.getFields(), name);
    }
  }
  t.true(names.includes('query courseTemplates'));
  t.true(names.includes('mutation courseTemplate.update'));
});

test("when no GraphQL operation does an endpoint's job yet, then its entry says so plainly", (t) => {
  const none = MIGRATION_MAP.filter((e) => e.operations.length === 0);
  t.true(none.length > 0);
  for (const entry of none) {
    t.regex(entry.graphql, /^None yet: \S/, entry.rest);
    t.false(/\bquery |\bmutation /.test(entry.graphql), `${entry.rest} names an operation it does not give: ${entry.graphql}`);
  }
  for (const entry of MIGRATION_MAP.filter((e) => e.operations.length)) t.false(entry.graphql.startsWith('None yet'), entry.rest);
  t.true(none.some((e) => e.rest.includes('/api/v2/crm/campaigns')));
});

test('when a REST resource or route is served, then the guide has an entry for it', (t) => {
  const rests = MIGRATION_MAP.map((e) => e.rest);
  const paths = [
    ...RESOURCES.map((r) => `/api/v2/${r.path}`),
    '/api/v2/event/delegates/:id/name',
    '/api/v2/event/delegates/:id/scores',
    '/api/v2/orders',
    '/api/v2/system/custom_templates/:id/mappings',
  ];
  for (const path of paths)
    t.true(
      rests.some((rest) => rest.split(/[ ;]/).some((part) => part === path || part.startsWith(`${path}[`))),
      path,
    );
});

test('when the guide is fetched, then JSON gives the map and HTML shows every endpoint and document', async (t) => {
  const json = await request(app.port, { path: '/api/v2/migration', headers: { accept: 'application/json' } });
  t.is(json.status, 200);
  t.deepEqual(json.json, MIGRATION_MAP);
  const html = await request(app.port, { path: '/api/v2/migration', headers: { accept: 'text/html' } });
  t.is(html.status, 200);
  t.regex(String(html.headers['content-type']), /^text\/html/);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  for (const entry of MIGRATION_MAP) {
    t.true(html.text.includes(esc(entry.rest)), entry.rest);
    t.true(html.text.includes(esc(entry.graphql)), entry.graphql);
    for (const operation of entry.operations) t.true(html.text.includes(`<pre><code>${esc(operation)}</code></pre>`), operation);
  }
});

/** What a reader sees of a page (tags dropped: the guide's inline `code` is part of its sentences). */
const textOf = (page: string) =>
  page
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');

test('when the guide is read, then it says in the present tense what the Sunset date means and what the operator switch does', async (t) => {
  const tenant = await ctx.freshTenant('mgs');
  const rest = await request(app.port, { path: '/api/v2/crm/contacts', host: `${tenant.slug}.localhost` });
  t.not(rest.status, 410, 'the API answers while it is on');
  const sunset = new Date(String(rest.headers.sunset));
  const sunsetDay = sunset.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

  const page = textOf((await request(app.port, { path: '/api/v2/migration', headers: { accept: 'text/html' } })).text);
  t.notRegex(page, /\bwas retired\b|\bis retired\b|\bretired on\b/i);
  t.true(page.includes(`names its sunset in its Sunset header: ${sunsetDay}.`), page.slice(0, 900));
  t.regex(page, /The sunset is the date from which the API may stop answering/);
  t.regex(
    page,
    /the date itself switches nothing off\. The API answers as before until the operator of this Lectern turns it off \(LEGACY_REST_API=off\)/,
  );
  t.regex(page, /Once it is off, every call under \/api\/v2\/ answers 410 Gone \(error api_retired\)/);
  // Past or not yet: said as of the day the page is read.
  t.is(page.includes('(it has passed: that may be at any time now)'), Date.now() >= sunset.getTime());
  const before = textOf(migrationGuideHtml(new Date(sunset.getTime() - 86_400_000)));
  const after = textOf(migrationGuideHtml(new Date(sunset.getTime() + 1)));
  t.false(before.includes('it has passed'));
  t.true(after.includes('it has passed'));
});

test('when the operator turns the API off, then it is as the guide says: 410 Gone naming GraphQL, the guide still served', async (t) => {
  const off = await setupTestRuntime({ LEGACY_REST_API: 'off' });
  const offApp = await startTestApp(off.rt);
  try {
    const tenant = await off.freshTenant('mgo');
    const gone = await request(offApp.port, { path: '/api/v2/crm/contacts', host: `${tenant.slug}.localhost` });
    t.is(gone.status, 410);
    t.is(gone.json.error.code, 'api_retired');
    t.regex(gone.json.error.message, /\/graphql/);
    const guide = await request(offApp.port, {
      path: '/api/v2/migration',
      host: `${tenant.slug}.localhost`,
      headers: { accept: 'text/html' },
    });
    t.is(guide.status, 200);
    t.regex(guide.text, /LEGACY_REST_API=off/);
    t.is((await request(offApp.port, { path: '/api/v2/openapi.json', host: `${tenant.slug}.localhost` })).status, 200);
  } finally {
    await offApp.close();
    await off.cleanup();
  }
});
