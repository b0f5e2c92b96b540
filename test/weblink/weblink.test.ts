import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { request } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * The WebLink catalogue API: public and read-only on an instance's address, published content
 * only, and the `weblink-content-locale` header overlaying translations per field (contract
 * rule 9), with responses unchanged without it.
 */
let f: GraphQLFixture;
let other: Tenant;
let en: string;
let fr: string;
const es = toGlobalId('Locale', 6); // in the catalogue, not supported here
let templateId: string;

const weblink = (query: string, opts: { locale?: string; tenant?: Tenant; host?: string; variables?: Record<string, unknown> } = {}) =>
  request(f.port, {
    method: 'POST',
    path: '/weblink/graphql',
    host: opts.host ?? `${(opts.tenant ?? f.tenant).slug}.localhost`,
    headers: opts.locale === undefined ? {} : { 'weblink-content-locale': opts.locale },
    body: { query, ...(opts.variables ? { variables: opts.variables } : {}) },
  });
const data = async (query: string, opts: Parameters<typeof weblink>[1] = {}) => {
  const res = await weblink(query, opts);
  if (res.status !== 200 || res.json.errors) throw new Error(`${res.status} ${res.text}`);
  return res.json.data;
};
const core = async (query: string, variables?: Record<string, unknown>) => {
  const d = await f.data(f.admin, query, variables);
  const payload = Object.values(Object.values(d)[0] as Record<string, { errors?: unknown[] }>)[0]!;
  if (payload.errors?.length) throw new Error(JSON.stringify(payload.errors));
  return payload as Record<string, { id: string }>;
};

test.serial.before(async () => {
  f = await graphqlFixture('gwl');
  other = await f.ctx.freshTenant('gwl2');
  en = await f.locale(f.tenant, 'en');
  fr = await f.locale(f.tenant, 'fr');
  await f.locale(f.tenant, 'de');
  await core(
    'mutation { customFieldDefinition { create(input: {key: "tagline", label: "Tagline", type: TEXT, appliesTo: COURSE_TEMPLATE, isTranslatable: true}) { customFieldDefinition { id } errors { message } } } }',
  );
  await core(
    'mutation { customFieldDefinition { create(input: {key: "audience", label: "Audience", type: TEXT, appliesTo: COURSE_TEMPLATE, isTranslatable: true}) { customFieldDefinition { id } errors { message } } } }',
  );
  const create = (input: Record<string, unknown>) =>
    core(
      'mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { id } errors { message } } } }',
      { input },
    );
  templateId = (
    await create({
      title: 'Fire Safety',
      courseText1: '<p>One day of fire safety.</p>',
      courseText2: '<p>For everyone at work.</p>',
      lifecycleState: 'published',
      localeId: en,
      deliveryLocaleIds: [en, fr],
      defaultDeliveryLocaleId: fr,
      customFieldValues: [
        { definitionKey: 'tagline', value: 'Stay safe' },
        { definitionKey: 'audience', value: 'Everyone' },
      ],
    })
  ).courseTemplate!.id;
  await create({ title: 'Draft course', lifecycleState: 'draft', localeId: en });
  await create({ title: 'Abseiling', lifecycleState: 'published', localeId: en });
  await core(
    'mutation ($input: LearningPathCreateInput!) { learningPaths { create(input: $input) { learningPath { id } errors { message } } } }',
    { input: { name: 'Safety path', description: 'Three courses', localeId: en } },
  );
  const event = (input: Record<string, unknown>) =>
    core('mutation ($input: ClassroomEventCreateInput!) { event { createClassroom(input: $input) { event { id } errors { message } } } }', {
      input: {
        courseTemplateId: templateId,
        eventType: 'public',
        timeZoneName: 'Europe/London',
        classroomStartDateTime: '2027-05-04T09:00',
        maxPlaces: 10,
        ...input,
      },
    });
  await event({});
  await event({ title: 'Private run', eventType: 'private' });
  await event({ title: 'Draft run', lifecycleState: 'draft' });
  await f.api('POST', 'event/categories', { name: 'Health & Safety', priority: 1 });
});
test.after.always(async () => f?.close());

const CATALOGUE = `{ courses { edges { node { id code name description locale { code } customFieldValues { definitionKey label value } } } pageInfo { totalRecords } }
  learningPaths { edges { node { name description locale { code } } } }
  events { edges { node { name locale { code } remainingPlaces classroomStart timeZoneName course { name } } } }
  categories { edges { node { name parent { name } } } } }`;

test.serial(
  'without the header: published courses, learning paths, public published events, categories, as authored; no token needed',
  async (t) => {
    const d = await data(CATALOGUE);
    t.deepEqual(
      d.courses.edges.map((e: { node: { name: string } }) => e.node.name),
      ['Abseiling', 'Fire Safety'],
    );
    const fire = d.courses.edges[1].node;
    t.like(fire, { name: 'Fire Safety', description: '<p>One day of fire safety.</p>', locale: { code: 'en' } });
    t.deepEqual(fire.customFieldValues, [
      { definitionKey: 'tagline', label: 'Tagline', value: 'Stay safe' },
      { definitionKey: 'audience', label: 'Audience', value: 'Everyone' },
    ]);
    t.deepEqual(d.events.edges, [
      {
        node: {
          name: 'Fire Safety',
          locale: { code: 'fr' },
          remainingPlaces: 10,
          classroomStart: '2027-05-04T09:00:00+01:00',
          timeZoneName: 'Europe/London',
          course: { name: 'Fire Safety' },
        },
      },
    ]);
    t.deepEqual(d.learningPaths.edges, [{ node: { name: 'Safety path', description: 'Three courses', locale: { code: 'en' } } }]);
    t.deepEqual(d.categories.edges, [{ node: { name: 'Health & Safety', parent: null } }]);
    const locales = await data('{ locales { id code } }');
    t.deepEqual(
      locales.locales.map((l: { code: string }) => l.code),
      ['en', 'fr', 'de'],
    );
  },
);

test.serial(
  'with weblink-content-locale: French names and texts, English where French has none, per field; without the header, the same bytes as before any translation',
  async (t) => {
    const before = await weblink(CATALOGUE);
    await core(
      'mutation ($input: CourseTemplateTranslationUpsertInput!) { courseTemplate { upsertTranslation(input: $input) { translation { id } errors { message } } } }',
      {
        input: {
          courseTemplateId: templateId,
          localeId: fr,
          title: 'Sécurité incendie',
          courseText2: '<p>Pour tous.</p>',
          lmsSummary: '',
          customFieldValues: [{ definitionKey: 'tagline', value: 'Restez en sécurité' }],
        },
      },
    );
    const pathId = (await f.data(f.admin, '{ learningPaths { edges { node { id } } } }')).learningPaths.edges[0].node.id;
    await core(
      'mutation ($input: LearningPathTranslationUpsertInput!) { learningPaths { upsertTranslation(input: $input) { translation { id } errors { message } } } }',
      { input: { learningPathId: pathId, localeId: fr, name: 'Parcours sécurité' } },
    );

    const after = await weblink(CATALOGUE);
    t.is(after.status, 200);
    t.is(after.text, before.text);

    const french = await weblink(CATALOGUE, { locale: fr });
    t.is(french.status, 200, french.text);
    t.regex(String(french.headers.vary), /weblink-content-locale/i);
    const fire = french.json.data.courses.edges.find(
      (e: { node: { id: string } }) =>
        e.node.id === toGlobalId('Course', Number(Buffer.from(templateId, 'base64').toString().split(':')[1])),
    ).node;
    t.like(fire, { name: 'Sécurité incendie', description: '<p>One day of fire safety.</p>', locale: { code: 'en' } });
    t.deepEqual(
      fire.customFieldValues.map((v: { value: string }) => v.value),
      ['Restez en sécurité', 'Everyone'],
    );
    t.like(french.json.data.courses.edges[0].node, { name: 'Abseiling' });
    t.deepEqual(french.json.data.learningPaths.edges, [
      { node: { name: 'Parcours sécurité', description: 'Three courses', locale: { code: 'en' } } },
    ]);
    t.is(french.json.data.events.edges[0].node.course.name, 'Sécurité incendie');
    // The authoring locale asked for is the authored content.
    t.is((await weblink(CATALOGUE, { locale: en })).text, after.text);
  },
);

test.serial('an unknown or unsupported locale in the header is a clear GraphQL error', async (t) => {
  for (const locale of [es, 'fr', toGlobalId('Locale', 999), toGlobalId('CourseTemplate', 1)]) {
    const res = await weblink('{ courses { edges { node { name } } } }', { locale });
    t.is(res.status, 400, locale);
    t.is(res.json.errors[0].extensions.code, 'BAD_USER_INPUT');
    t.regex(res.json.errors[0].message, /weblink-content-locale: .* is not a locale this instance supports/);
    t.is(res.json.data, undefined);
  }
});

test.serial("read-only and public: no mutations, no drafts by id, no other instance's content, not on the platform address", async (t) => {
  const mutation = await weblink('mutation { courseTemplate { create(input: {title: "x"}) { errors { message } } } }');
  t.truthy(mutation.json.errors?.length);
  t.is(mutation.json.data, undefined);
  const draft = await data(
    'query ($id: String) { courses(filters: [{field: name, operation: eq, value: $id}]) { edges { node { id } } } }',
    { variables: { id: 'Draft course' } },
  );
  t.deepEqual(draft.courses.edges, []);
  const weblinkId = toGlobalId('Course', Number(Buffer.from(templateId, 'base64').toString().split(':')[1]));
  const elsewhere = await data(
    'query ($id: String) { courses(filters: [{field: id, operation: eq, value: $id}]) { edges { node { id } } } }',
    { tenant: other, variables: { id: weblinkId } },
  );
  t.deepEqual(elsewhere.courses.edges, []);
  t.deepEqual((await data('{ catalogue { pageInfo { totalRecords } } }', { tenant: other })).catalogue.pageInfo.totalRecords, 0);
  const platform = await weblink('{ locales { code } }', { host: `localhost:${f.port}` });
  t.is(platform.status, 404);
  t.is(platform.json.errors[0].extensions.code, 'NOT_FOUND');
  const unknown = await weblink('{ locales { code } }', { host: 'nobody.localhost' });
  t.is(unknown.status, 404);
});

test.serial(
  'browsers may call it: CORS preflight allows the content-locale header, answers carry Access-Control-Allow-Origin',
  async (t) => {
    const preflight = await request(f.port, {
      method: 'OPTIONS',
      path: '/weblink/graphql',
      host: `${f.tenant.slug}.localhost`,
      headers: {
        origin: 'https://www.training.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, weblink-content-locale',
      },
    });
    t.is(preflight.status, 204);
    t.is(preflight.headers['access-control-allow-origin'], '*');
    t.regex(String(preflight.headers['access-control-allow-headers']), /weblink-content-locale/);
    const res = await request(f.port, {
      method: 'POST',
      path: '/weblink/graphql',
      host: `${f.tenant.slug}.localhost`,
      headers: { origin: 'https://www.training.example' },
      body: { query: '{ locales { code } }' },
    });
    t.is(res.headers['access-control-allow-origin'], '*');
    t.is(res.headers['access-control-allow-credentials'], undefined);
  },
);

test.serial(
  'pages are bounded: first above 100 is refused, and a page at its largest with a deep selection stays under the cost limit',
  async (t) => {
    const tooMany = await weblink('{ courses(first: 101) { edges { node { name } } } }');
    t.is(tooMany.json.errors[0].extensions.code, 'BAD_USER_INPUT');
    const deep = await weblink(
      '{ categories(first: 100) { edges { node { parent { parent { parent { parent { parent { parent { name } } } } } } } } } }',
    );
    t.falsy(deep.json.errors, deep.text.slice(0, 300));
    const aliased = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: catalogue(first: 100) { edges { node { ... on Course { name customFieldValues { value } priceRange { normalPrice { amount } } } } } }`).join(' ')} }`;
    const refused = await weblink(aliased);
    t.regex(refused.json.errors[0].message, /Cost limit/i);
    t.is(refused.json.data, undefined);
  },
);
