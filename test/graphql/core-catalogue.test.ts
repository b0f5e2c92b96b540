import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { readStatements } from '../helpers/statements.js';

/**
 * The Core `catalogue` as the PHP SDK's Catalogue::loadAll sends it (real-clients.md section 3):
 * `$order: CatalogueItemFieldGraphOrder`, `$filters: [CatalogueItemFieldGraphFilter]!`,
 * `$customFieldFilters: [CustomFieldFilter]!`, `search` written as an argument and also sent as
 * an undeclared variable, nodes `... on CourseTemplate` / `... on LearningPath` (whole records).
 * It lists every course template and learning path the caller may view, in any lifecycle state.
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const ct = (key: string) => toGlobalId('CourseTemplate', ids[key]!);
const lp = (key: string) => toGlobalId('LearningPath', ids[key]!);
let tagline: string;

test.serial.before(async () => {
  f = await graphqlFixture('cca');
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const one = async (table: string, row: Record<string, unknown>) =>
      ((await db(table).insert(row).returning('id')) as { id: number }[])[0]!.id;
    ids.category = await one('categories', { name: 'Fire', priority: 1 });
    ids.other = await one('categories', { name: 'Office', priority: 2 });
    ids.fire = await one('course_templates', {
      title: 'Fire Safety',
      code: 'FS-1',
      lifecycle_state: 'published',
      category_id: ids.category,
      course_text1: '<p>Three days.</p>',
    });
    ids.aid = await one('course_templates', {
      title: 'First Aid at Work',
      code: 'FA-1',
      lifecycle_state: 'published',
      category_id: ids.other,
    });
    ids.forklift = await one('course_templates', { title: 'Forklift Basics', code: 'FK-1', lifecycle_state: 'draft' });
    ids.cancelled = await one('course_templates', { title: 'Cancelled Course', code: 'XX-1', lifecycle_state: 'cancelled' });
    ids.safety = await one('learning_paths', {
      name: 'Safety at work',
      description: 'Fire and first aid',
      code: 'LP-SAFE',
      lifecycle_state: 'active',
      is_bundle: true,
      category_id: ids.category,
    });
    ids.leader = await one('learning_paths', { name: 'Leadership', code: 'LP-LEAD', lifecycle_state: 'draft' });
    ids.archived = await one('learning_paths', { name: 'Archived path', lifecycle_state: 'retired' });
    ids.tagline = await one('custom_field_definitions', { key: 'tagline', label: 'Tagline', type: 'text', applies_to: 'course_template' });
    ids.level = await one('custom_field_definitions', { key: 'level', label: 'Level', type: 'number', applies_to: 'learning_path' });
    await db('course_template_field_values').insert([
      { course_template_id: ids.fire, definition_id: ids.tagline, value: 'Stay safe' },
      { course_template_id: ids.aid, definition_id: ids.tagline, value: 'Be ready' },
      { course_template_id: ids.forklift, definition_id: ids.tagline, value: 'Lift right' },
    ]);
    await db('learning_path_field_values').insert({ learning_path_id: ids.safety, definition_id: ids.level, value: '2' });
  });
  tagline = toGlobalId('CustomFieldDefinition', ids.tagline!);
});
test.after.always(async () => f?.close());

const NODE = `__typename
  ... on CourseTemplate { id legacyId lifecycleState code title courseText1 customFieldValues { definitionKey definitionLocator value } }
  ... on LearningPath { id legacyId name description customFieldValues { definitionKey value } }`;

/** The SDK's query: order, filters and custom field filters as variables, `search: ""` and the page written in. */
const LOAD_ALL = `query($order: CatalogueItemFieldGraphOrder $filters: [CatalogueItemFieldGraphFilter]! $customFieldFilters: [CustomFieldFilter]!) {
catalogue(order: $order first: 25 offset: 0 search: "" filters: $filters customFieldFilters: $customFieldFilters) {
pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }
edges { node { ${NODE} } } } }`;

type Edge = { node: { __typename: string; title?: string; name?: string } };
const names = (conn: { edges: Edge[] }) => conn.edges.map((e) => e.node.title ?? e.node.name);

/** The catalogue through the SDK's query, with `search` sent as an undeclared variable as the SDK sends it. */
async function loadAll(filters: unknown[] = [], customFieldFilters: unknown[] = [], token = f.admin) {
  const res = await f.gql(token, LOAD_ALL, { search: '', filters, customFieldFilters, order: { field: 'name', direction: 'asc' } });
  return res;
}

test.serial(
  'when the SDK loads the catalogue, then it lists every course template and learning path by name, whatever their state, as whole records',
  async (t) => {
    const res = await loadAll();
    t.is(res.status, 200);
    t.falsy(res.json.errors);
    const { catalogue } = res.json.data;
    t.deepEqual(catalogue.pageInfo, {
      startCursor: catalogue.pageInfo.startCursor,
      endCursor: catalogue.pageInfo.endCursor,
      totalRecords: 7,
      hasNextPage: false,
      hasPreviousPage: false,
    });
    t.deepEqual(
      catalogue.edges.map((e: Edge) => [e.node.__typename, e.node.title ?? e.node.name]),
      [
        ['LearningPath', 'Archived path'],
        ['CourseTemplate', 'Cancelled Course'],
        ['CourseTemplate', 'Fire Safety'],
        ['CourseTemplate', 'First Aid at Work'],
        ['CourseTemplate', 'Forklift Basics'],
        ['LearningPath', 'Leadership'],
        ['LearningPath', 'Safety at work'],
      ],
    );
    t.deepEqual(catalogue.edges[2].node, {
      __typename: 'CourseTemplate',
      id: ct('fire'),
      legacyId: ids.fire,
      lifecycleState: 'published',
      code: 'FS-1',
      title: 'Fire Safety',
      courseText1: '<p>Three days.</p>',
      customFieldValues: [{ definitionKey: 'tagline', definitionLocator: tagline, value: 'Stay safe' }],
    });
    t.deepEqual(catalogue.edges[6].node, {
      __typename: 'LearningPath',
      id: lp('safety'),
      legacyId: ids.safety,
      name: 'Safety at work',
      description: 'Fire and first aid',
      customFieldValues: [{ definitionKey: 'level', value: '2' }],
    });
  },
);

test.serial('when search is given as an argument or a variable, then only items whose name or code holds it are listed', async (t) => {
  const literal = await f.data(f.admin, `{ catalogue(search: "SAF") { edges { node { ${NODE} } } pageInfo { totalRecords } } }`);
  t.deepEqual(names(literal.catalogue), ['Fire Safety', 'Safety at work']);
  const variable = await f.data(
    f.admin,
    `query ($search: String) { catalogue(search: $search, order: {field: code, direction: desc}) { edges { node { ${NODE} } } } }`,
    { search: 'fa-1' },
  );
  t.deepEqual(names(variable.catalogue), ['First Aid at Work']);
  // Wildcards are taken literally.
  const wild = await f.data(f.admin, `{ catalogue(search: "%") { edges { node { __typename } } pageInfo { totalRecords } } }`);
  t.is(wild.catalogue.pageInfo.totalRecords, 0);
});

test.serial('when filters are given, then they all hold: type, lifecycle state, code, learning category, bundle flag and id', async (t) => {
  const by = async (filters: unknown[]) => {
    const res = await loadAll(filters);
    if (res.json.errors) throw new Error(res.text);
    return names(res.json.data.catalogue);
  };
  t.deepEqual(await by([{ field: 'type', operation: 'eq', value: 'LearningPath' }]), ['Archived path', 'Leadership', 'Safety at work']);
  t.deepEqual(await by([{ field: 'lifecycleState', operation: 'in', values: ['published', 'active'] }]), [
    'Fire Safety',
    'First Aid at Work',
    'Safety at work',
  ]);
  t.deepEqual(
    await by([
      { field: 'code', operation: 'like', value: 'F%' },
      { field: 'lifecycleState', operation: 'eq', value: 'published' },
    ]),
    ['Fire Safety', 'First Aid at Work'],
  );
  t.deepEqual(await by([{ field: 'learningCategoryId', operation: 'eq', value: toGlobalId('LearningCategory', ids.category!) }]), [
    'Fire Safety',
    'Safety at work',
  ]);
  t.deepEqual(await by([{ field: 'isBundle', operation: 'eq', value: 'true' }]), ['Safety at work']);
  t.deepEqual(await by([{ field: 'id', operation: 'in', values: [ct('aid'), lp('leader'), toGlobalId('Location', ids.aid!)] }]), [
    'First Aid at Work',
    'Leadership',
  ]);
  t.deepEqual(await by([{ field: 'id', operation: 'eq', value: lp('safety') }]), ['Safety at work']);
  t.deepEqual(await by([{ field: 'id', operation: 'notin', values: [ct('fire'), lp('safety'), lp('archived')] }]), [
    'Cancelled Course',
    'First Aid at Work',
    'Forklift Basics',
    'Leadership',
  ]);
  t.deepEqual(await by([{ field: 'name', operation: 'wordlike', value: 'work' }]), ['First Aid at Work', 'Safety at work']);
});

test.serial(
  'when custom field filters are given (by key or by the global id), then items with that value of their own are listed',
  async (t) => {
    const by = async (customFieldFilters: unknown[], filters: unknown[] = []) => {
      const res = await loadAll(filters, customFieldFilters);
      if (res.json.errors) throw new Error(res.text);
      return names(res.json.data.catalogue);
    };
    t.deepEqual(await by([{ id: 'tagline', operation: 'eq', value: 'Stay safe' }]), ['Fire Safety']);
    t.deepEqual(await by([{ id: tagline, operation: 'like', value: '%r%' }]), ['First Aid at Work', 'Forklift Basics']);
    t.deepEqual(
      await by([{ id: tagline, operation: 'in', values: ['Be ready', 'Stay safe'] }], [{ field: 'code', operation: 'eq', value: 'FA-1' }]),
      ['First Aid at Work'],
    );
    t.deepEqual(await by([{ id: toGlobalId('CustomFieldDefinition', ids.level!), value: '2' }]), ['Safety at work']);
    t.deepEqual(await by([{ id: 'no_such_field', operation: 'eq', value: 'x' }]), []);
  },
);

test.serial('when a filter or custom field filter is malformed, then the request fails with a clear BAD_USER_INPUT error', async (t) => {
  const cases: [unknown[], unknown[], RegExp][] = [
    [[{ field: 'code', operation: 'eq' }], [], /needs `value`/],
    [[{ field: 'id', operation: 'eq', value: 'garbage' }], [], /not an id of this API/],
    [[{ field: 'learningCategoryId', operation: 'eq', value: 'nope' }], [], /not an id of this API/],
    [[], [{ id: 'tagline', operation: 'gt', value: 'x' }], /customFieldFilters\[0\]: takes eq, like or in/],
    [[], [{ id: 'tagline', operation: 'in' }], /in needs a non-empty `values`/],
  ];
  for (const [filters, customFieldFilters, message] of cases) {
    const res = await loadAll(filters, customFieldFilters);
    t.is(res.json.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', res.text);
    t.regex(res.json.errors[0].message, message);
    t.is(res.json.data, null);
  }
  const unknownField = await f.gql(f.admin, LOAD_ALL, {
    filters: [{ field: 'colour', operation: 'eq', value: 'x' }],
    customFieldFilters: [],
  });
  t.regex(unknownField.json.errors[0].message, /"colour".*CatalogueItemFilterField/);
});

test.serial(
  'when a caller may view only learning paths, or only course templates, then it sees that kind only; with neither, FORBIDDEN',
  async (t) => {
    const paths = await f.tokenFor(f.tenant, 'paths', ['LEARNING_PATH_VIEW']);
    const onlyPaths = (await loadAll([], [], paths)).json.data.catalogue;
    t.deepEqual(names(onlyPaths), ['Archived path', 'Leadership', 'Safety at work']);
    t.is(onlyPaths.pageInfo.totalRecords, 3);
    const templates = await f.tokenFor(f.tenant, 'templates', ['COURSE_TEMPLATE_VIEW']);
    t.deepEqual(names((await loadAll([], [], templates)).json.data.catalogue), [
      'Cancelled Course',
      'Fire Safety',
      'First Aid at Work',
      'Forklift Basics',
    ]);
    const neither = await f.tokenFor(f.tenant, 'events', ['EVENT_VIEW']);
    const refused = await loadAll([], [], neither);
    t.is(refused.json.errors[0].extensions.code, 'FORBIDDEN');
    t.is(refused.json.data, null);
  },
);

test.serial(
  'when a client pages with first and offset, or with after, then the pages follow one another with their pageInfo',
  async (t) => {
    const PAGE = `query ($first: Int, $offset: Int, $after: String) { catalogue(first: $first, offset: $offset, after: $after, order: {field: name, direction: desc}) {
    pageInfo { endCursor totalRecords hasNextPage hasPreviousPage } edges { node { ${NODE} } } } }`;
    const first = (await f.data(f.admin, PAGE, { first: 3, offset: 0 })).catalogue;
    t.deepEqual(names(first), ['Safety at work', 'Leadership', 'Forklift Basics']);
    t.like(first.pageInfo, { totalRecords: 7, hasNextPage: true, hasPreviousPage: false });
    const second = (await f.data(f.admin, PAGE, { first: 3, after: first.pageInfo.endCursor })).catalogue;
    t.deepEqual(names(second), ['First Aid at Work', 'Fire Safety', 'Cancelled Course']);
    const last = (await f.data(f.admin, PAGE, { first: 3, offset: 6 })).catalogue;
    t.deepEqual(names(last), ['Archived path']);
    t.like(last.pageInfo, { totalRecords: 7, hasNextPage: false, hasPreviousPage: true });
  },
);

test.serial('when a page of the catalogue is read, then it takes as many statements for 2 items as for 7', async (t) => {
  const count = async (first: number) => {
    const { sql, result: d } = await readStatements(f.ctx.rt.knex, () =>
      f.data(f.admin, `query ($first: Int) { catalogue(first: $first) { edges { node { ${NODE} } } } }`, { first }),
    );
    t.is(d.catalogue.edges.length, first);
    return sql.length;
  };
  // The token and its user are read on first use only (then cached): counted after that.
  await count(1);
  const small = await count(2);
  const large = await count(7);
  t.is(large, small);
  t.true(large <= 10, `statements: ${large}`);
});
