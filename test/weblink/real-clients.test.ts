import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { enableLocale } from '../../src/modules/locales/locales.service.js';
import { addPortal } from '../../src/modules/portals/portals.service.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { hex, request, type HttpResult } from '../helpers/harness.js';
import { restFixture, type RestFixture } from '../helpers/rest.js';
import { readStatements } from '../helpers/statements.js';

/**
 * The WebLink API as the production service's PHP SDK and WordPress plugins call it
 * (real-clients.md sections 2 and 4): each root with their operations (names, variable types,
 * filters, selections), through a portal token from `POST /portal/guest` on the platform
 * address, on an instance with real catalogue data; the answers' content is checked.
 */
let f: RestFixture;
const domain = `www.training-${hex(3)}.test`;
let token: string;
const ids: Record<string, number> = {};
let frLocale: string;

/** French category names: Safety's introduction is not translated (null, falls back), Fire's a deliberate blank (''). */
const CATEGORY_TRANSLATIONS = [
  { category_id: 'safety', name: 'Sécurité', introduction: null },
  { category_id: 'fire', name: 'Incendie', introduction: '' },
] as const;

const CLIENT_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/plain, */*' };

/** A request as the plugin sends it: the platform address, the portal header and its token. */
const weblink = (body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<HttpResult> =>
  request(f.port, {
    method: 'POST',
    path: '/weblink/graphql/',
    host: 'localhost',
    headers: { ...CLIENT_HEADERS, 'weblink-portal': domain, authorization: `Bearer ${token}`, ...headers },
    body,
  });
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are asserted field by field
async function data(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}): Promise<any> {
  const res = await weblink({ query, ...(variables === undefined ? {} : { variables }) }, headers);
  if (res.status !== 200 || res.json.errors) throw new Error(`${res.status} ${res.text}`);
  return res.json.data;
}
const gid = (type: string, key: string) => toGlobalId(type, ids[key]!);

test.serial.before(async () => {
  f = await restFixture('wrc');
  await addPortal(f.ctx.rt.knex, f.tenant, { domain });
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    await enableLocale(db, 'fr');
    const locale = async (code: string) => (await db('locales').where({ code }).first('id')).id as number;
    const [en, fr] = [await locale('en'), await locale('fr')];
    ids.fr = fr;
    const one = async (table: string, row: Record<string, unknown>) =>
      ((await db(table).insert(row).returning('id')) as { id: number }[])[0]!.id;
    ids.safety = await one('categories', { name: 'Safety', priority: 1, introduction: 'Staying safe at work' });
    ids.fire = await one('categories', { name: 'Fire', priority: 1, introduction: 'Fire courses', parent_id: ids.safety });
    const image = await one('documents', { name: 'fire.jpg', url: 'https://cdn.example/fire.jpg' });
    const vat = await one('tax_types', { name: 'VAT', rate: 20 });
    ids.london = await one('locations', { name: 'London', time_zone_name: 'Europe/London' });
    ids.paris = await one('locations', { name: 'Paris', time_zone_name: 'Europe/Paris' });
    const level = await one('custom_field_definitions', {
      key: 'level',
      label: 'Level',
      type: 'text',
      applies_to: 'course_template',
      is_translatable: true,
    });
    ids.level = level;
    const audience = await one('custom_field_definitions', {
      key: 'audience',
      label: 'Audience',
      type: 'text',
      applies_to: 'learning_path',
      is_translatable: false,
    });
    const template = (row: Record<string, unknown>) => one('course_templates', { lifecycle_state: 'published', locale_id: en, ...row });
    ids.fireSafety = await template({
      title: 'Fire Safety',
      code: 'FS-1',
      course_text1: '<p>One day of fire safety.</p>',
      teaser_description: 'Be ready for fire',
      category_id: ids.fire,
      image_document_id: image,
    });
    ids.abseiling = await template({ title: 'Abseiling', code: 'AB-1', course_text1: 'Ropes', category_id: ids.safety });
    ids.percent = await template({ title: '100% Fun', code: 'PC-1' });
    await template({ title: 'Draft course', code: 'DR-1', lifecycle_state: 'draft' });
    const normal = (await db('price_levels').where({ name: 'Normal' }).first('id')).id as number;
    const price = (owner: string, ownerId: number, currency: string, amount: string) =>
      db('prices').insert({ [owner]: ownerId, price_level_id: normal, currency_code: currency, amount });
    await price('course_template_id', ids.fireSafety, 'EUR', '520.00');
    await price('course_template_id', ids.fireSafety, 'GBP', '450.00');
    await price('course_template_id', ids.abseiling, 'GBP', '300.00');
    const event = (row: Record<string, unknown>) =>
      one('events', {
        type: 'public',
        lifecycle_state: 'published',
        delivery_method: 'classroom',
        tax_type_id: vat,
        locale_id: en,
        ...row,
      });
    // Monday 3 May 2027, 09:00-17:00 in London (BST, +01:00): 10 places, 3 booked.
    ids.e1 = await event({
      title: 'Fire Safety',
      course_template_id: ids.fireSafety,
      location_id: ids.london,
      time_zone_name: 'Europe/London',
      classroom_start: '2027-05-03T09:00',
      classroom_end: '2027-05-03T17:00',
      start_date: '2027-05-03',
      start_time: '09:00',
      end_date: '2027-05-03',
      end_time: '17:00',
      delegates_max: 10,
    });
    // Wednesday 2 June 2027, 13:00-17:00 in Paris: unlimited, its own price.
    ids.e2 = await event({
      title: 'Sécurité incendie',
      course_template_id: ids.fireSafety,
      location_id: ids.paris,
      time_zone_name: 'Europe/Paris',
      classroom_start: '2027-06-02T13:00',
      classroom_end: '2027-06-02T17:00',
      start_date: '2027-06-02',
      start_time: '13:00',
      end_date: '2027-06-02',
      end_time: '17:00',
      price: 99,
      currency_code: 'EUR',
      locale_id: fr,
      delivery_method: 'blended',
      lms_start: '2027-05-20T00:00',
      lms_end: '2027-06-30T00:00',
    });
    // Saturday 3 July 2027: full.
    ids.e3 = await event({
      title: 'Abseiling',
      course_template_id: ids.abseiling,
      location_id: ids.london,
      time_zone_name: 'Europe/London',
      classroom_start: '2027-07-03T09:00',
      classroom_end: '2027-07-03T12:00',
      start_date: '2027-07-03',
      start_time: '09:00',
      end_date: '2027-07-03',
      end_time: '12:00',
      delegates_max: 2,
    });
    ids.hidden = await event({
      title: 'Private Fire Safety',
      type: 'private',
      course_template_id: ids.fireSafety,
      location_id: ids.paris,
      start_date: '2027-05-10',
    });
    await event({
      title: 'Cancelled Abseiling',
      is_cancelled: true,
      course_template_id: ids.abseiling,
      location_id: ids.paris,
      start_date: '2027-05-11',
    });
    await price('event_id', ids.e1, 'GBP', '450.00');
    await db('delegates').insert([
      { event_id: ids.e1, num_places: 3 },
      { event_id: ids.e3, num_places: 2 },
    ]);
    const path = (row: Record<string, unknown>) => one('learning_paths', { lifecycle_state: 'active', locale_id: en, ...row });
    ids.safetyPath = await path({
      name: 'Safety Path',
      code: 'SP-1',
      description: 'Fire and ropes',
      category_id: ids.safety,
      image_document_id: image,
    });
    ids.bundle = await path({ name: 'Bundle Deal', code: 'BD-1', is_bundle: true });
    await path({ name: 'Old path', lifecycle_state: 'retired' });
    await price('learning_path_id', ids.safetyPath, 'GBP', '700.00');
    ids.o1 = await one('learning_path_objectives', { learning_path_id: ids.safetyPath, position: 1, event_id: ids.e1 });
    ids.o2 = await one('learning_path_objectives', { learning_path_id: ids.safetyPath, position: 2, course_template_id: ids.abseiling });
    ids.o3 = await one('learning_path_objectives', { learning_path_id: ids.safetyPath, position: 3, event_id: ids.e2 });
    await one('learning_path_objectives', { learning_path_id: ids.bundle, position: 1, event_id: ids.e3 });
    await db('course_template_field_values').insert([
      { course_template_id: ids.fireSafety, definition_id: level, value: 'Beginner' },
      { course_template_id: ids.fireSafety, definition_id: level, locale_id: fr, value: 'Débutant' },
      { course_template_id: ids.abseiling, definition_id: level, value: 'Advanced' },
    ]);
    await db('learning_path_field_values').insert({ learning_path_id: ids.safetyPath, definition_id: audience, value: 'Managers' });
    await db('course_template_translations').insert({
      course_template_id: ids.fireSafety,
      locale_id: fr,
      title: 'Sécurité incendie',
      teaser_description: 'Prêt face au feu',
    });
    await db('learning_path_translations').insert({ learning_path_id: ids.safetyPath, locale_id: fr, name: 'Parcours sécurité' });
    await db('category_translations').insert(
      CATEGORY_TRANSLATIONS.map((tr) => ({ ...tr, category_id: ids[tr.category_id]!, locale_id: fr })),
    );
  });
  frLocale = toGlobalId('Locale', ids.fr!);
  const guest = await request(f.port, {
    method: 'POST',
    path: '/portal/guest',
    host: 'localhost',
    headers: CLIENT_HEADERS,
    body: { domain },
  });
  if (guest.status !== 200) throw new Error(guest.text);
  token = guest.json.portal_token;
});
test.after.always(async () => f?.close());

/** The WordPress plugin's catalogue query (and the SDK's catalogue-loadAll): union nodes by inline fragments. */
const catalogueQuery = (
  first: number | '$first',
) => `query catalogue($order: CatalogueFieldOrder, $filters: [CatalogueFieldFilter]!, $customFieldFilters: [CustomFieldFilterInput!]!, ${first === '$first' ? '$first: Int, ' : ''}$offset: Int) {
  catalogue(order: $order, first: ${first}, offset: $offset, filters: $filters, customFieldFilters: $customFieldFilters) {
    pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }
    edges { node { __typename
      ... on Course { id code name description teaserDescription category imageUrl priceRange { normalPrice { amount financialUnit { symbol } } } customFieldValues { definitionKey value } }
      ... on LearningPath { id name description lifecycleState category imageUrl price { amount financialUnit { symbol } } start end locale { name } customFieldValues { definitionKey value }
        learningObjectives { edges { node { id __typename ... on EventObjective { id event { id name remainingPlaces } } ... on CourseObjective { id course { id name } } } } } }
    } }
  }
}`;
const CATALOGUE = catalogueQuery(20);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are asserted field by field
const names = (d: any) => d.catalogue.edges.map((e: { node: { name: string } }) => e.node.name);
const catalogue = (filters: unknown[], more: { first?: number } & Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
  const { first = 20, ...variables } = more;
  return data(
    catalogueQuery(first),
    { order: { field: 'name', direction: 'asc' }, filters, customFieldFilters: [], offset: 0, search: '', ...variables },
    headers,
  );
};

test.serial(
  'catalogue: courses and learning paths as one list, with prices, symbols, images, categories, custom fields and objectives',
  async (t) => {
    const d = await catalogue([]);
    t.deepEqual(names(d), ['100% Fun', 'Abseiling', 'Bundle Deal', 'Fire Safety', 'Safety Path']);
    t.like(d.catalogue.pageInfo, { totalRecords: 5, hasNextPage: false, hasPreviousPage: false });
    const fire = d.catalogue.edges[3].node;
    t.deepEqual(fire, {
      __typename: 'Course',
      id: gid('Course', 'fireSafety'),
      code: 'FS-1',
      name: 'Fire Safety',
      description: '<p>One day of fire safety.</p>',
      teaserDescription: 'Be ready for fire',
      category: 'Fire',
      imageUrl: 'https://cdn.example/fire.jpg',
      // GBP and EUR Normal prices: the instance's most used currency (GBP: 4 of its 5 prices) is shown.
      priceRange: { normalPrice: { amount: 450, financialUnit: { symbol: '£' } } },
      customFieldValues: [{ definitionKey: 'level', value: 'Beginner' }],
    });
    t.is(d.catalogue.edges[0].node.priceRange.normalPrice, null);
    const path = d.catalogue.edges[4].node;
    t.like(path, {
      __typename: 'LearningPath',
      id: gid('LearningPath', 'safetyPath'),
      name: 'Safety Path',
      description: 'Fire and ropes',
      lifecycleState: 'active',
      category: 'Safety',
      imageUrl: 'https://cdn.example/fire.jpg',
      price: { amount: 700, financialUnit: { symbol: '£' } },
      start: '2027-05-03T09:00:00+01:00',
      end: '2027-06-02T17:00:00+02:00',
      locale: { name: 'English' },
      customFieldValues: [{ definitionKey: 'audience', value: 'Managers' }],
    });
    t.deepEqual(path.learningObjectives.edges, [
      {
        node: {
          id: toGlobalId('LearningObjective', ids.o1!),
          __typename: 'EventObjective',
          event: { id: gid('Event', 'e1'), name: 'Fire Safety', remainingPlaces: 7 },
        },
      },
      {
        node: {
          id: toGlobalId('LearningObjective', ids.o2!),
          __typename: 'CourseObjective',
          course: { id: gid('Course', 'abseiling'), name: 'Abseiling' },
        },
      },
      {
        node: {
          id: toGlobalId('LearningObjective', ids.o3!),
          __typename: 'EventObjective',
          event: { id: gid('Event', 'e2'), name: 'Sécurité incendie', remainingPlaces: null },
        },
      },
    ]);
  },
);

test.serial('catalogue: paging with first/offset, order desc, and totalRecords over all pages', async (t) => {
  const page1 = await catalogue([], { first: 2, offset: 0 });
  t.deepEqual(names(page1), ['100% Fun', 'Abseiling']);
  t.like(page1.catalogue.pageInfo, { totalRecords: 5, hasNextPage: true, hasPreviousPage: false });
  const page3 = await catalogue([], { first: 2, offset: 4 });
  t.deepEqual(names(page3), ['Safety Path']);
  t.like(page3.catalogue.pageInfo, { totalRecords: 5, hasNextPage: false, hasPreviousPage: true });
  t.deepEqual(names(await catalogue([], { order: { field: 'name', direction: 'desc' } })), [
    'Safety Path',
    'Fire Safety',
    'Bundle Deal',
    'Abseiling',
    '100% Fun',
  ]);
});

test.serial('catalogue filters, as the WordPress search sends them, filter', async (t) => {
  const by = async (...filters: unknown[]) => names(await catalogue(filters));
  t.deepEqual(await by({ field: 'categoryId', operation: 'in', values: [gid('Category', 'fire')] }), ['Fire Safety']);
  t.deepEqual(await by({ field: 'categoryId', operation: 'in', values: [gid('Category', 'safety'), gid('Category', 'fire')] }), [
    'Abseiling',
    'Fire Safety',
    'Safety Path',
  ]);
  t.deepEqual(await by({ field: 'type', operation: 'eq', value: 'LearningPath' }), ['Bundle Deal', 'Safety Path']);
  t.deepEqual(await by({ field: 'type', operation: 'eq', value: 'CourseTemplate' }), ['100% Fun', 'Abseiling', 'Fire Safety']);
  t.deepEqual(await by({ field: 'isBundle', operation: 'eq', value: 'true' }), ['Bundle Deal']);
  t.deepEqual(await by({ field: 'name', operation: 'eq', value: 'Abseiling' }), ['Abseiling']);
  t.deepEqual(await by({ field: 'name', operation: 'like', value: '%safety%' }), ['Fire Safety', 'Safety Path']);
  // Via events: a course's listed events, a path's event objectives.
  t.deepEqual(await by({ field: 'dayOfWeek', operation: 'in', values: ['Sat'] }), ['Abseiling', 'Bundle Deal']);
  t.deepEqual(await by({ field: 'dayOfWeek', operation: 'in', values: ['Mon', 'Wed'] }), ['Fire Safety', 'Safety Path']);
  t.deepEqual(await by({ field: 'locationId', operation: 'in', values: [gid('Location', 'paris')] }), ['Fire Safety', 'Safety Path']);
  t.deepEqual(await by({ field: 'start', operation: 'ge', value: '2027-06-01T00:00:00+02:00' }), [
    'Abseiling',
    'Bundle Deal',
    'Fire Safety',
    'Safety Path',
  ]);
  t.deepEqual(await by({ field: 'end', operation: 'le', value: '2027-05-31T23:59:59+01:00' }), ['Fire Safety', 'Safety Path']);
  t.deepEqual(await by({ field: 'sessionStartTime', operation: 'ge', value: '12:00:00' }), ['Fire Safety', 'Safety Path']);
  t.deepEqual(await by({ field: 'sessionEndTime', operation: 'le', value: '12:00:00' }), ['Abseiling', 'Bundle Deal']);
  t.deepEqual(await by({ field: 'remainingPlaces', operation: 'ge', value: '1' }), ['Fire Safety', 'Safety Path']);
  // Conditions on events hold on one event: no Saturday event in Paris.
  t.deepEqual(
    await by(
      { field: 'dayOfWeek', operation: 'in', values: ['Sat'] },
      { field: 'locationId', operation: 'in', values: [gid('Location', 'paris')] },
    ),
    [],
  );
  t.deepEqual(
    await by(
      { field: 'start', operation: 'ge', value: '2027-05-01T00:00:00+01:00' },
      { field: 'end', operation: 'le', value: '2027-05-31T00:00:00+01:00' },
      { field: 'type', operation: 'eq', value: 'CourseTemplate' },
    ),
    ['Fire Safety'],
  );
});

test.serial('catalogue search over names and codes (when declared), and custom field filters by key or definition id', async (t) => {
  const search = (text: string) =>
    data(
      'query ($search: String) { catalogue(search: $search) { edges { node { ... on Course { name } ... on LearningPath { name } } } } }',
      { search: text },
    );
  t.deepEqual(names(await search('safety')), ['Fire Safety', 'Safety Path']);
  t.deepEqual(names(await search('ab-1')), ['Abseiling']);
  t.deepEqual(names(await search('100%')), ['100% Fun']);
  t.deepEqual(names(await search('%')), ['100% Fun'], 'a % is a literal');
  const byField = async (filters: unknown[]) => names(await catalogue([], { customFieldFilters: filters }));
  t.deepEqual(await byField([{ id: 'level', operation: 'eq', value: 'Beginner' }]), ['Fire Safety']);
  t.deepEqual(await byField([{ id: toGlobalId('CustomFieldDefinition', ids.level!), operation: 'eq', value: 'Advanced' }]), ['Abseiling']);
  t.deepEqual(await byField([{ id: 'level', operation: 'eq', value: 'Débutant' }]), [], 'the authored value is matched');
});

test.serial(
  'catalogue with weblink-content-locale: French names, teasers and custom field values per field; without it, the same bytes as before',
  async (t) => {
    const vars = { order: { field: 'name', direction: 'asc' }, filters: [], customFieldFilters: [], offset: 0 };
    const plain = await weblink({ query: CATALOGUE, variables: vars });
    const again = await weblink({ query: CATALOGUE, variables: vars });
    t.is(plain.text, again.text);
    t.notRegex(plain.text, /Parcours|Débutant|Prêt/);
    t.is(plain.json.data.catalogue.edges[3].node.name, 'Fire Safety');
    const french = await weblink({ query: CATALOGUE, variables: vars }, { 'weblink-content-locale': frLocale });
    t.is(french.status, 200, french.text);
    t.regex(String(french.headers.vary), /weblink-content-locale/i);
    const nodes = french.json.data.catalogue.edges.map((e: { node: unknown }) => e.node);
    const fire = nodes.find((n: { id: string }) => n.id === gid('Course', 'fireSafety'));
    t.like(fire, {
      name: 'Sécurité incendie',
      description: '<p>One day of fire safety.</p>',
      teaserDescription: 'Prêt face au feu',
      customFieldValues: [{ definitionKey: 'level', value: 'Débutant' }],
    });
    const path = nodes.find((n: { id: string }) => n.id === gid('LearningPath', 'safetyPath'));
    t.like(path, { name: 'Parcours sécurité', description: 'Fire and ropes' });
    t.like(
      nodes.find((n: { id: string }) => n.id === gid('Course', 'abseiling')),
      { name: 'Abseiling', customFieldValues: [{ definitionKey: 'level', value: 'Advanced' }] },
    );
    // The order is by the authored name, as without the header.
    t.deepEqual(
      nodes.map((n: { id: string }) => n.id),
      plain.json.data.catalogue.edges.map((e: { node: { id: string } }) => e.node.id),
    );
  },
);

test.serial(
  "with weblink-content-locale, a course named by a path's objective answers its French name, or its own where it has none",
  async (t) => {
    const vars = { order: { field: 'name', direction: 'asc' }, filters: [], customFieldFilters: [], offset: 0 };
    const objective = await withTenant(
      f.ctx.rt.knex,
      f.tenant,
      async (db) =>
        (
          (await db('learning_path_objectives')
            .insert({ learning_path_id: ids.safetyPath, position: 4, course_template_id: ids.fireSafety })
            .returning('id')) as { id: number }[]
        )[0]!.id,
    );
    try {
      const courses = async (headers: Record<string, string>) => {
        const d = await data(CATALOGUE, vars, headers);
        const path = d.catalogue.edges.find((e: { node: { id: string } }) => e.node.id === gid('LearningPath', 'safetyPath')).node;
        return path.learningObjectives.edges
          .filter((e: { node: { __typename: string } }) => e.node.__typename === 'CourseObjective')
          .map((e: { node: { course: { id: string; name: string } } }) => [e.node.course.id, e.node.course.name]);
      };
      t.deepEqual(await courses({ 'weblink-content-locale': frLocale }), [
        [gid('Course', 'abseiling'), 'Abseiling'],
        [gid('Course', 'fireSafety'), 'Sécurité incendie'],
      ]);
      t.deepEqual(await courses({}), [
        [gid('Course', 'abseiling'), 'Abseiling'],
        [gid('Course', 'fireSafety'), 'Fire Safety'],
      ]);
    } finally {
      await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('learning_path_objectives').where({ id: objective }).delete());
    }
  },
);

test.serial(
  'categories with weblink-content-locale: French names and short descriptions per field in `categories` and their parents, and in the `category` of courses and paths; without it, the same bytes as before',
  async (t) => {
    const header = { 'weblink-content-locale': frLocale };
    const CATEGORIES =
      'query ($order: CategoryFieldOrder, $filters: [CategoryFieldFilter]!) { categories(first: 1000, order: $order, filters: $filters) { edges { node { id name shortDescription parent { id name shortDescription } } } } }';
    const catVars = { order: { field: 'name', direction: 'asc' }, filters: [] };
    const french = await data(CATEGORIES, catVars, header);
    // In the order of the authored names, as without the header; each field falls back on its own.
    t.deepEqual(french.categories.edges, [
      {
        node: {
          id: gid('Category', 'fire'),
          name: 'Incendie',
          shortDescription: '',
          parent: { id: gid('Category', 'safety'), name: 'Sécurité', shortDescription: 'Staying safe at work' },
        },
      },
      { node: { id: gid('Category', 'safety'), name: 'Sécurité', shortDescription: 'Staying safe at work', parent: null } },
    ]);
    const LISTS =
      '{ courses(order: {field: name, direction: asc}) { edges { node { name category } } } learningPaths(order: {field: name, direction: asc}) { edges { node { name category } } } events(order: {field: id, direction: asc}) { edges { node { course { category } } } } }';
    const lists = await data(LISTS, undefined, header);
    t.deepEqual(
      lists.courses.edges.map((e: { node: unknown }) => e.node),
      [
        { name: '100% Fun', category: null },
        { name: 'Abseiling', category: 'Sécurité' },
        { name: 'Sécurité incendie', category: 'Incendie' },
      ],
    );
    t.deepEqual(
      lists.learningPaths.edges.map((e: { node: unknown }) => e.node),
      [
        { name: 'Bundle Deal', category: null },
        { name: 'Parcours sécurité', category: 'Sécurité' },
      ],
    );
    t.deepEqual(
      lists.events.edges.map((e: { node: { course: { category: string } } }) => e.node.course.category),
      ['Incendie', 'Incendie', 'Sécurité'],
    );
    const vars = { order: { field: 'name', direction: 'asc' }, filters: [], customFieldFilters: [], offset: 0 };
    const catalogueFr = await data(CATALOGUE, vars, header);
    t.deepEqual(
      catalogueFr.catalogue.edges.map((e: { node: { id: string; category: string | null } }) => [e.node.id, e.node.category]),
      [
        ['Course', 'percent', null],
        ['Course', 'abseiling', 'Sécurité'],
        ['LearningPath', 'bundle', null],
        ['Course', 'fireSafety', 'Incendie'],
        ['LearningPath', 'safetyPath', 'Sécurité'],
      ].map(([type, key, category]) => [gid(type!, key!), category]),
    );

    // Without the header: the bytes the answers had before categories had translations.
    const plain = async () => [
      (await weblink({ query: CATEGORIES, variables: catVars })).text,
      (await weblink({ query: LISTS })).text,
      (await weblink({ query: CATALOGUE, variables: vars })).text,
    ];
    const withTranslations = await plain();
    t.regex(withTranslations[0]!, /"name":"Fire","shortDescription":"Fire courses"/);
    t.regex(withTranslations[2]!, /"category":"Fire"/);
    for (const text of withTranslations) t.notRegex(text, /Incendie|Sécurité"/);
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('category_translations').delete());
    try {
      t.deepEqual(await plain(), withTranslations);
      // And with the header, a category with no translation is shown as authored.
      t.deepEqual(
        (await data(CATEGORIES, catVars, header)).categories.edges.map((e: { node: { name: string } }) => e.node.name),
        ['Fire', 'Safety'],
      );
    } finally {
      await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
        db('category_translations').insert(
          CATEGORY_TRANSLATIONS.map((tr) => ({ ...tr, category_id: ids[tr.category_id]!, locale_id: ids.fr! })),
        ),
      );
    }

    // The header costs the categories page no statement of its own: the translations are joined in the page's statements.
    const statements = async (headers: Record<string, string>) =>
      (await readStatements(f.ctx.rt.knex, () => data(CATEGORIES, catVars, headers))).sql.filter((sql) => !/locales/.test(sql)).length;
    t.is(await statements(header), await statements({}));
  },
);

test.serial('courses: the SDK loadAll and loadById, learningCategoryId and name like', async (t) => {
  const Q = `query ($order: CourseFieldOrder, $filters: [CourseFieldFilter]!) { courses(order: $order, first: 10, offset: 0, filters: $filters) {
    pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }
    edges { node { id code name description teaserDescription category imageUrl priceRange { normalPrice { amount financialUnit { symbol } } } customFieldValues { definitionKey value } } } } }`;
  const all = await data(Q, { order: { field: 'name', direction: 'desc' }, filters: [] });
  t.deepEqual(
    all.courses.edges.map((e: { node: { name: string } }) => e.node.name),
    ['Fire Safety', 'Abseiling', '100% Fun'],
  );
  t.is(all.courses.pageInfo.totalRecords, 3);
  t.like(all.courses.edges[1].node, {
    code: 'AB-1',
    category: 'Safety',
    priceRange: { normalPrice: { amount: 300, financialUnit: { symbol: '£' } } },
  });
  const byId = await data('query ($filters: [CourseFieldFilter]!) { courses(filters: $filters) { edges { node { id name } } } }', {
    filters: [{ field: 'id', operation: 'eq', value: gid('Course', 'abseiling') }],
  });
  t.deepEqual(byId.courses.edges, [{ node: { id: gid('Course', 'abseiling'), name: 'Abseiling' } }]);
  const byCategory = await data(Q, { filters: [{ field: 'learningCategoryId', operation: 'eq', value: gid('Category', 'fire') }] });
  t.deepEqual(
    byCategory.courses.edges.map((e: { node: { name: string } }) => e.node.name),
    ['Fire Safety'],
  );
  const like = await data(Q, { filters: [{ field: 'name', operation: 'like', value: '%SEIL%' }] });
  t.deepEqual(
    like.courses.edges.map((e: { node: { name: string } }) => e.node.name),
    ['Abseiling'],
  );
});

test.serial('events: the SDK loadAll and load, with prices, times, places, location, tax and course', async (t) => {
  const Q = `query ($order: EventFieldOrder, $filters: [EventFieldFilter!]!) { events(first: 20, offset: 0, order: $order, filters: $filters) {
    pageInfo { totalRecords hasNextPage }
    edges { node { id name price { amount financialUnit { symbol } } classroomStart classroomEnd lmsStart lmsEnd start end deliveryMethod remainingPlaces location { id name } tax { id effectiveRate name } course { id code name } } } } }`;
  const all = await data(Q, { order: { field: 'id', direction: 'asc' }, filters: [] });
  t.is(all.events.pageInfo.totalRecords, 3);
  const [e1, e2, e3] = all.events.edges.map((e: { node: unknown }) => e.node);
  t.deepEqual(e1, {
    id: gid('Event', 'e1'),
    name: 'Fire Safety',
    price: { amount: 450, financialUnit: { symbol: '£' } },
    classroomStart: '2027-05-03T09:00:00+01:00',
    classroomEnd: '2027-05-03T17:00:00+01:00',
    lmsStart: null,
    lmsEnd: null,
    start: '2027-05-03T09:00:00+01:00',
    end: '2027-05-03T17:00:00+01:00',
    deliveryMethod: 'classroom',
    remainingPlaces: 7,
    location: { id: gid('Location', 'london'), name: 'London' },
    tax: { id: e1.tax.id, effectiveRate: 20, name: 'VAT' },
    course: { id: gid('Course', 'fireSafety'), code: 'FS-1', name: 'Fire Safety' },
  });
  t.like(e2, {
    price: { amount: 99, financialUnit: { symbol: '€' } },
    deliveryMethod: 'blended',
    lmsStart: '2027-05-20T00:00:00+02:00',
    remainingPlaces: null,
    location: { name: 'Paris' },
  });
  t.like(e3, { remainingPlaces: 0, price: null });
  const load = await data('query ($filters: [EventFieldFilter]!) { events(filters: $filters) { edges { node { id name } } } }', {
    filters: [{ field: 'id', operation: 'eq', value: gid('Event', 'e2') }],
  });
  t.deepEqual(load.events.edges, [{ node: { id: gid('Event', 'e2'), name: 'Sécurité incendie' } }]);
  const hidden = await data('query ($filters: [EventFieldFilter]!) { events(filters: $filters) { edges { node { id } } } }', {
    filters: [{ field: 'id', operation: 'eq', value: gid('Event', 'hidden') }],
  });
  t.deepEqual(hidden.events.edges, [], 'a private event is not listed');
  const byCode = await data(Q, { filters: [{ field: 'courseCode', operation: 'eq', value: 'AB-1' }] });
  t.deepEqual(
    byCode.events.edges.map((e: { node: { id: string } }) => e.node.id),
    [gid('Event', 'e3')],
  );
  const byStart = await data(Q, {
    order: { field: 'start', direction: 'desc' },
    filters: [{ field: 'start', operation: 'ge', value: '2027-06-01T00:00:00+00:00' }],
  });
  t.deepEqual(
    byStart.events.edges.map((e: { node: { id: string } }) => e.node.id),
    [gid('Event', 'e3'), gid('Event', 'e2')],
  );
});

test.serial('categories, learningPaths and locations as the SDK and the plugins ask for them', async (t) => {
  const cats = await data(
    'query ($order: CategoryFieldOrder, $filters: [CategoryFieldFilter]!) { categories(first: 10, offset: 0, order: $order, filters: $filters) { pageInfo { totalRecords } edges { node { id name shortDescription parent { id name } } } } }',
    {
      order: { field: 'name', direction: 'asc' },
      filters: [],
    },
  );
  t.deepEqual(cats.categories.edges, [
    {
      node: {
        id: gid('Category', 'fire'),
        name: 'Fire',
        shortDescription: 'Fire courses',
        parent: { id: gid('Category', 'safety'), name: 'Safety' },
      },
    },
    { node: { id: gid('Category', 'safety'), name: 'Safety', shortDescription: 'Staying safe at work', parent: null } },
  ]);
  const hist = await data('{ categories(first: 1000) { edges { node { id name } } } }');
  t.is(hist.categories.edges.length, 2);
  const oneCat = await data('query ($filters: [CategoryFieldFilter]!) { categories(filters: $filters) { edges { node { name } } } }', {
    filters: [{ field: 'id', operation: 'eq', value: gid('Category', 'safety') }],
  });
  t.deepEqual(oneCat.categories.edges, [{ node: { name: 'Safety' } }]);

  const paths = await data(
    'query ($order: LearningPathFieldOrder, $filters: [LearningPathFieldFilter!]!) { learningPaths(first: 10, offset: 0, order: $order, filters: $filters) { pageInfo { totalRecords } edges { node { id name price { amount financialUnit { symbol } } start end } } } }',
    {
      order: { field: 'name', direction: 'asc' },
      filters: [],
    },
  );
  t.deepEqual(paths.learningPaths.edges, [
    {
      node: {
        id: gid('LearningPath', 'bundle'),
        name: 'Bundle Deal',
        price: null,
        start: '2027-07-03T09:00:00+01:00',
        end: '2027-07-03T12:00:00+01:00',
      },
    },
    {
      node: {
        id: gid('LearningPath', 'safetyPath'),
        name: 'Safety Path',
        price: { amount: 700, financialUnit: { symbol: '£' } },
        start: '2027-05-03T09:00:00+01:00',
        end: '2027-06-02T17:00:00+02:00',
      },
    },
  ]);
  const onePath = await data(
    'query ($filters: [LearningPathFieldFilter!]!) { learningPaths(filters: $filters) { edges { node { name } } } }',
    { filters: [{ field: 'id', operation: 'eq', value: gid('LearningPath', 'bundle') }] },
  );
  t.deepEqual(onePath.learningPaths.edges, [{ node: { name: 'Bundle Deal' } }]);

  const locations = await data('{ locations { edges { node { id name } } } }');
  t.deepEqual(locations.locations.edges, [
    { node: { id: gid('Location', 'london'), name: 'London' } },
    { node: { id: gid('Location', 'paris'), name: 'Paris' } },
  ]);
});

test.serial(
  'wire habits: undeclared variables, {} or no variables, anonymous operations, unquoted enums, leading whitespace, a single object for a list',
  async (t) => {
    // `search` sent but not declared (the plugin's catalogue call).
    t.is((await catalogue([], { search: 'fire' })).catalogue.pageInfo.totalRecords, 5);
    t.is((await weblink({ query: '{ locations { edges { node { name } } } }', variables: {} })).status, 200);
    const none = await weblink({ query: '{ locations { edges { node { name } } } }' });
    t.is(none.status, 200);
    t.falsy(none.json.errors);
    const literal = await data(`

    query { courses(order: {field: name, direction: desc}, filters: [{field: name, operation: eq, value: "Abseiling"} {field: code operation: like value: "AB%"}]) { edges { node { name } } } }`);
    t.deepEqual(literal.courses.edges, [{ node: { name: 'Abseiling' } }]);
    const single = await data('query ($filters: [CourseFieldFilter]) { courses(filters: $filters) { edges { node { name } } } }', {
      filters: { field: 'name', operation: 'eq', value: 'Abseiling' },
    });
    t.deepEqual(single.courses.edges, [{ node: { name: 'Abseiling' } }]);
    const singleLiteral = await data(
      '{ catalogue(filters: {field: type, operation: eq, value: "LearningPath"}) { pageInfo { totalRecords } } }',
    );
    t.is(singleLiteral.catalogue.pageInfo.totalRecords, 2);
    // Non-null list variants of one input type all validate.
    for (const type of ['[EventFieldFilter!]!', '[EventFieldFilter]!', '[EventFieldFilter]', '[EventFieldFilter!]']) {
      const res = await weblink({
        query: `query ($filters: ${type}) { events(filters: $filters) { pageInfo { totalRecords } } }`,
        variables: { filters: [] },
      });
      t.is(res.json.data?.events.pageInfo.totalRecords, 3, `${type}: ${res.text}`);
    }
  },
);

test.serial('a filter field or operation the list does not take is a clear GraphQL error', async (t) => {
  const unknownField = await weblink({
    query: '{ catalogue(filters: [{field: colour, operation: eq, value: "red"}]) { pageInfo { totalRecords } } }',
  });
  t.regex(unknownField.json.errors[0].message, /colour/);
  t.is(unknownField.json.data, undefined);
  const wrongOperation = await weblink({
    query: '{ catalogue(filters: [{field: dayOfWeek, operation: ge, value: "Mon"}]) { pageInfo { totalRecords } } }',
  });
  t.regex(wrongOperation.json.errors[0].message, /dayOfWeek takes in, eq/);
  const badDay = await weblink({
    query: '{ catalogue(filters: [{field: dayOfWeek, operation: in, values: ["Funday"]}]) { pageInfo { totalRecords } } }',
  });
  t.regex(badDay.json.errors[0].message, /one of Mon, Tue/);
  const badStart = await weblink({
    query: '{ catalogue(filters: [{field: start, operation: ge, value: "soon"}]) { pageInfo { totalRecords } } }',
  });
  t.regex(badStart.json.errors[0].message, /date-time/);
  // An offset no zone has is the caller's mistake, named as such (PostgreSQL would refuse it with a bare 400).
  const badOffset = await weblink({
    query: '{ catalogue(filters: [{field: start, operation: ge, value: "2027-05-04T00:00:00+99:99"}]) { pageInfo { totalRecords } } }',
  });
  t.is(badOffset.json.errors[0].extensions.code, 'BAD_USER_INPUT');
  t.regex(badOffset.json.errors[0].message, /offset between -14:00 and \+14:00/);
  const farEast = await weblink({
    query: '{ catalogue(filters: [{field: start, operation: ge, value: "2027-05-04T00:00:00+14:00"}]) { pageInfo { totalRecords } } }',
  });
  t.falsy(farEast.json.errors, farEast.text);
});

test.serial('a catalogue page costs as many SQL statements with 20 items as with 2', async (t) => {
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const normal = (await db('price_levels').where({ name: 'Normal' }).first('id')).id as number;
    const made = (await db('course_templates')
      .insert(
        Array.from({ length: 24 }, (_, i) => ({
          title: `Zz course ${String(i).padStart(2, '0')}`,
          code: `ZZ-${i}`,
          lifecycle_state: 'published',
          category_id: ids.fire,
          image_document_id: null,
        })),
      )
      .returning('id')) as { id: number }[];
    await db('prices').insert(
      made.map(({ id }) => ({ course_template_id: id, price_level_id: normal, currency_code: 'GBP', amount: '10.00' })),
    );
    const paths = (await db('learning_paths')
      .insert(Array.from({ length: 10 }, (_, i) => ({ name: `Zz path ${i}`, lifecycle_state: 'active', category_id: ids.safety })))
      .returning('id')) as { id: number }[];
    await db('learning_path_objectives').insert(
      paths.flatMap(({ id }) => [
        { learning_path_id: id, position: 1, event_id: ids.e1 },
        { learning_path_id: id, position: 2, course_template_id: made[0]!.id },
      ]),
    );
  });
  const statementsFor = async (first: number, headers: Record<string, string> = {}) => {
    const { sql, result: d } = await readStatements(f.ctx.rt.knex, () =>
      data(catalogueQuery(first), { filters: [], customFieldFilters: [], offset: 9, order: { field: 'name', direction: 'desc' } }, headers),
    );
    return { count: sql.length, items: d.catalogue.edges.length };
  };
  const small = await statementsFor(2);
  const large = await statementsFor(20);
  t.is(small.items, 2);
  t.is(large.items, 20);
  t.is(large.count, small.count, `statements: ${small.count} for 2, ${large.count} for 20`);
  // With the content locale: translations are joined into the statements that read their records (the page's, and
  // the courses its objectives name), and the header's check is cached per instance: no statement of its own.
  const french = {
    small: await statementsFor(2, { 'weblink-content-locale': frLocale }),
    large: await statementsFor(20, { 'weblink-content-locale': frLocale }),
  };
  t.is(french.large.count, french.small.count, `with the header: ${french.small.count} for 2, ${french.large.count} for 20`);
  t.is(french.large.count, large.count, `with the header ${french.large.count}, without ${large.count}`);
  t.log(`statements per catalogue page: ${large.count}`);
});

test('when the WordPress catalogue query gives `first` in a variable, then it is costed at that page size and passes the cost limit', async (t) => {
  const res = await weblink({ query: catalogueQuery('$first'), variables: { filters: [], customFieldFilters: [], first: 20, offset: 0 } });
  t.falsy(res.json.errors, res.text.slice(0, 300));
});
