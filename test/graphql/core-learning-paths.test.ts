import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { readStatements } from '../helpers/statements.js';

/**
 * Core GraphQL learning paths as integrations call them (real-clients.md section 3): the
 * `learningPaths` list with `[LearningPathFieldGraphFilter]!` and `LearningPathFieldGraphOrder`
 * (websites list `lifecycleState eq "active"`, look one up by `id eq`), the path's code, state and
 * bundle flag, its objectives (`CourseObjective { courseTemplate }`, `EventObjective { event }`,
 * `pageInfo { totalRecords }`), image, category, prices, custom fields and account associations,
 * a page's SQL statements, and the writes of code, state, flag and objectives.
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const gid = (type: string, key: string) => toGlobalId(type, ids[key]!);

test.serial.before(async () => {
  f = await graphqlFixture('clp');
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const one = async (table: string, row: Record<string, unknown>) =>
      ((await db(table).insert(row).returning('id')) as { id: number }[])[0]!.id;
    ids.fire = await one('course_templates', { title: 'Fire Safety', code: 'FS-1', lifecycle_state: 'published' });
    ids.ropes = await one('course_templates', { title: 'Abseiling', code: 'AB-1', lifecycle_state: 'published' });
    ids.london = await one('locations', { name: 'London', time_zone_name: 'Europe/London' });
    ids.drill = await one('events', {
      title: 'Fire drill, May',
      type: 'public',
      lifecycle_state: 'published',
      course_template_id: ids.fire,
      location_id: ids.london,
      time_zone_name: 'Europe/London',
      classroom_start: '2027-05-03T09:00',
      classroom_end: '2027-05-03T17:00',
      start_date: '2027-05-03',
      end_date: '2027-05-03',
    });
    ids.image = await one('documents', {
      name: 'safety.jpg',
      description: 'Hard hats',
      folder: 'Paths',
      url: 'https://cdn.example/safety.jpg',
      revision_number: 2,
    });
    ids.topCategory = await one('categories', { name: 'Safety', priority: 1, introduction: 'Staying safe at work' });
    ids.category = await one('categories', { name: 'Fire', priority: 1, introduction: 'Fire courses', parent_id: ids.topCategory });
    ids.safety = await one('learning_paths', {
      name: 'Safety at work',
      description: 'Fire and heights',
      code: 'LP-SAFE',
      lifecycle_state: 'active',
      is_bundle: true,
      image_document_id: ids.image,
      category_id: ids.category,
    });
    ids.leader = await one('learning_paths', { name: 'Leadership', code: 'LP-LEAD', lifecycle_state: 'active' });
    ids.old = await one('learning_paths', { name: 'Archived path', lifecycle_state: 'retired' });
    ids.draft = await one('learning_paths', { name: 'Coming soon', lifecycle_state: 'draft' });
    const objective = (path: number, position: number, target: Record<string, number>) =>
      one('learning_path_objectives', { learning_path_id: path, position, ...target });
    // Inserted out of order: the path answers them by position.
    ids.o3 = await objective(ids.safety, 3, { course_template_id: ids.ropes });
    ids.o1 = await objective(ids.safety, 1, { course_template_id: ids.fire });
    ids.o2 = await objective(ids.safety, 2, { event_id: ids.drill });
    ids.o4 = await objective(ids.leader, 1, { course_template_id: ids.fire });
    ids.normal = (await db('price_levels').where({ name: 'Normal' }).first('id')).id as number;
    ids.vat = await one('tax_types', { name: 'VAT', rate: 20 });
    ids.company = await one('companies', { name: 'Acme Europe' });
    ids.region = await one('regions', { code: 'EU', name: 'Europe', company_id: ids.company, default_tax_type_id: ids.vat });
    ids.audience = await one('custom_field_definitions', {
      key: 'audience',
      label: 'Audience',
      type: 'text',
      applies_to: 'learning_path',
      is_translatable: false,
    });
    await db('learning_path_field_values').insert({ learning_path_id: ids.safety, definition_id: ids.audience, value: 'Site managers' });
    ids.gbp = await one('prices', { learning_path_id: ids.safety, price_level_id: ids.normal, currency_code: 'GBP', amount: '450.00' });
    ids.eur = await one('prices', {
      learning_path_id: ids.safety,
      price_level_id: ids.normal,
      currency_code: 'EUR',
      region_id: ids.region,
      amount: '520.50',
    });
  });
});
test.after.always(async () => f?.close());

const LIST = `query ($order: LearningPathFieldGraphOrder, $filters: [LearningPathFieldGraphFilter]!) {
  learningPaths(first: 10, offset: 0, order: $order, filters: $filters) {
    pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }
    edges { node {
      id legacyId lifecycleState code name description isBundle
      learningObjectives {
        pageInfo { totalRecords }
        edges { node { id __typename
          ... on CourseObjective { courseTemplate { id code title } }
          ... on EventObjective { event { id title location { name } } }
        } }
      }
    } }
  }
}`;

const BY_ID = `query ($filters: [LearningPathFieldGraphFilter]!) {
  learningPaths(filters: $filters) { edges { node { id name code isBundle lifecycleState learningObjectives { pageInfo { totalRecords } } } } }
}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- responses are asserted field by field
const names = (d: any): string[] => d.learningPaths.edges.map((e: { node: { name: string } }) => e.node.name);

test.serial(
  'when a website lists the active learning paths by name, then it gets each with its code, state, bundle flag and objectives in order',
  async (t) => {
    const d = await f.data(f.admin, LIST, {
      filters: [{ field: 'lifecycleState', operation: 'eq', value: 'active' }],
      order: { field: 'name', direction: 'asc' },
    });
    t.deepEqual(names(d), ['Leadership', 'Safety at work']);
    t.like(d.learningPaths.pageInfo, { totalRecords: 2, hasNextPage: false, hasPreviousPage: false });
    const safety = d.learningPaths.edges[1].node;
    t.like(safety, {
      id: gid('LearningPath', 'safety'),
      legacyId: ids.safety,
      lifecycleState: 'active',
      code: 'LP-SAFE',
      name: 'Safety at work',
      description: 'Fire and heights',
      isBundle: true,
    });
    t.is(safety.learningObjectives.pageInfo.totalRecords, 3);
    t.deepEqual(
      safety.learningObjectives.edges.map((e: { node: unknown }) => e.node),
      [
        {
          id: gid('LearningObjective', 'o1'),
          __typename: 'CourseObjective',
          courseTemplate: { id: gid('CourseTemplate', 'fire'), code: 'FS-1', title: 'Fire Safety' },
        },
        {
          id: gid('LearningObjective', 'o2'),
          __typename: 'EventObjective',
          event: { id: gid('Event', 'drill'), title: 'Fire drill, May', location: { name: 'London' } },
        },
        {
          id: gid('LearningObjective', 'o3'),
          __typename: 'CourseObjective',
          courseTemplate: { id: gid('CourseTemplate', 'ropes'), code: 'AB-1', title: 'Abseiling' },
        },
      ],
    );
    const leader = d.learningPaths.edges[0].node;
    t.like(leader, { code: 'LP-LEAD', isBundle: false, description: null });
    t.is(leader.learningObjectives.pageInfo.totalRecords, 1);
    t.is(leader.learningObjectives.edges[0].node.courseTemplate.title, 'Fire Safety');
  },
);

const PICTURES_AND_PRICES = `query ($filters: [LearningPathFieldGraphFilter]!) { learningPaths(filters: $filters) { edges { node {
  image { id name description folder { name } latest { revisionNumber } }
  imageGallery { edges { node { id name latest { revisionNumber } } } }
  learningCategories { edges { node { id legacyId name description parentCategory { id legacyId name description } } } }
  prices { edges { node { amount priceLevel { id name } financialUnit { name __typename ... on Currency { symbol } } region { code name company { name } defaultTax { effectiveRate } } } } }
  customFieldValues { definitionKey definitionLocator value }
  accountAssociations { edges { node { account { id name } associationType { id name } } } }
} } } }`;

test.serial(
  'when a website reads a path with its image, gallery, category, prices, custom fields and account associations, then it gets them as on a course template',
  async (t) => {
    const d = await f.data(f.admin, PICTURES_AND_PRICES, {
      filters: [{ field: 'id', operation: 'eq', value: gid('LearningPath', 'safety') }],
    });
    const path = d.learningPaths.edges[0].node;
    const image = { id: gid('Document', 'image'), name: 'safety.jpg', latest: { revisionNumber: 2 } };
    t.deepEqual(path.image, { ...image, description: 'Hard hats', folder: { name: 'Paths' } });
    t.deepEqual(path.imageGallery.edges, [{ node: image }]);
    t.deepEqual(path.learningCategories.edges, [
      {
        node: {
          id: gid('LearningCategory', 'category'),
          legacyId: ids.category,
          name: 'Fire',
          description: 'Fire courses',
          parentCategory: {
            id: gid('LearningCategory', 'topCategory'),
            legacyId: ids.topCategory,
            name: 'Safety',
            description: 'Staying safe at work',
          },
        },
      },
    ]);
    const normal = { id: gid('PriceLevel', 'normal'), name: 'Normal' };
    t.deepEqual(path.prices.edges, [
      {
        node: {
          amount: '520.50',
          priceLevel: normal,
          financialUnit: { name: 'Euro', __typename: 'Currency', symbol: '€' },
          region: { code: 'EU', name: 'Europe', company: { name: 'Acme Europe' }, defaultTax: { effectiveRate: 20 } },
        },
      },
      {
        node: {
          amount: '450.00',
          priceLevel: normal,
          financialUnit: { name: 'British Pound', __typename: 'Currency', symbol: '£' },
          region: null,
        },
      },
    ]);
    t.deepEqual(path.customFieldValues, [
      { definitionKey: 'audience', definitionLocator: gid('CustomFieldDefinition', 'audience'), value: 'Site managers' },
    ]);
    // Lectern keeps no accounts: the list is there, empty.
    t.deepEqual(path.accountAssociations, { edges: [] });
    const bare = await f.data(f.admin, PICTURES_AND_PRICES, {
      filters: [{ field: 'id', operation: 'eq', value: gid('LearningPath', 'leader') }],
    });
    t.deepEqual(bare.learningPaths.edges[0].node, {
      image: null,
      imageGallery: { edges: [] },
      learningCategories: { edges: [] },
      prices: { edges: [] },
      customFieldValues: [],
      accountAssociations: { edges: [] },
    });
  },
);

test.serial('when an integration gives no filters and orders by id, then it gets every state, draft and retired paths too', async (t) => {
  const d = await f.data(f.admin, LIST, { filters: [], order: { field: 'id', direction: 'desc' } });
  t.deepEqual(names(d), ['Coming soon', 'Archived path', 'Leadership', 'Safety at work']);
  t.deepEqual(
    d.learningPaths.edges.map((e: { node: { lifecycleState: string } }) => e.node.lifecycleState),
    ['draft', 'retired', 'active', 'active'],
  );
  t.is(d.learningPaths.edges[0].node.learningObjectives.pageInfo.totalRecords, 0);
  t.deepEqual(d.learningPaths.edges[0].node.learningObjectives.edges, []);
});

test.serial('when an integration looks a path up by its id, then it gets that one path (and none for an id of another type)', async (t) => {
  const d = await f.data(f.admin, BY_ID, { filters: [{ field: 'id', operation: 'eq', value: gid('LearningPath', 'safety') }] });
  t.deepEqual(d.learningPaths.edges, [
    {
      node: {
        id: gid('LearningPath', 'safety'),
        name: 'Safety at work',
        code: 'LP-SAFE',
        isBundle: true,
        lifecycleState: 'active',
        learningObjectives: { pageInfo: { totalRecords: 3 } },
      },
    },
  ]);
  const other = await f.data(f.admin, BY_ID, { filters: [{ field: 'id', operation: 'eq', value: gid('CourseTemplate', 'fire') }] });
  t.deepEqual(other.learningPaths.edges, []);
});

test.serial('when a webhook payload query names the path in a literal filter with a String variable, then it gets the path', async (t) => {
  const d = await f.data(
    f.admin,
    'query path($objectid: String!) { learningPaths(filters: [{field: id, operation: eq, value: $objectid}]) { edges { node { id } } } }',
    { objectid: gid('LearningPath', 'leader') },
  );
  t.deepEqual(d.learningPaths.edges, [{ node: { id: gid('LearningPath', 'leader') } }]);
});

test.serial('when paths are filtered by code, name, bundle flag, state list or category, then only those match', async (t) => {
  const list = async (filters: unknown[]) => names(await f.data(f.admin, LIST, { filters, order: { field: 'name', direction: 'asc' } }));
  t.deepEqual(await list([{ field: 'code', operation: 'eq', value: 'LP-LEAD' }]), ['Leadership']);
  t.deepEqual(await list([{ field: 'name', operation: 'like', value: '%work%' }]), ['Safety at work']);
  t.deepEqual(await list([{ field: 'isBundle', operation: 'eq', value: 'true' }]), ['Safety at work']);
  t.deepEqual(
    await list([
      { field: 'isBundle', operation: 'eq', value: 'false' },
      { field: 'lifecycleState', operation: 'in', values: ['draft', 'retired'] },
    ]),
    ['Archived path', 'Coming soon'],
  );
  t.deepEqual(
    await list([
      { field: 'code', operation: 'isnull' },
      { field: 'lifecycleState', operation: 'ne', value: 'draft' },
    ]),
    ['Archived path'],
  );
  t.deepEqual(await list([{ field: 'learningCategoryId', operation: 'eq', value: gid('LearningCategory', 'category') }]), [
    'Safety at work',
  ]);
  t.deepEqual(await list([{ field: 'learningCategoryId', operation: 'eq', value: gid('LearningCategory', 'topCategory') }]), []);
});

test.serial('when a filter names a state learning paths do not have, then the error says which they have', async (t) => {
  const res = await f.gql(f.admin, LIST, { filters: [{ field: 'lifecycleState', operation: 'eq', value: 'published' }] });
  t.regex(res.json.errors[0].message, /one of draft, active, retired/);
  t.is(res.json.data, null);
});

test.serial(
  'when a role may see learning paths but not course templates, then it sees the objectives but not the templates they lead to',
  async (t) => {
    const token = await f.tokenFor(f.tenant, 'paths-only', ['LEARNING_PATH_VIEW', 'EVENT_VIEW', 'LOCATION_VIEW']);
    const res = await f.gql(
      token,
      BY_ID.replace(
        'learningObjectives { pageInfo { totalRecords } }',
        'learningObjectives { edges { node { id ... on CourseObjective { courseTemplate { title } } ... on EventObjective { event { title } } } } }',
      ),
      {
        filters: [{ field: 'id', operation: 'eq', value: gid('LearningPath', 'safety') }],
      },
    );
    const objectives = res.json.data.learningPaths.edges[0].node.learningObjectives.edges.map((e: { node: unknown }) => e.node);
    t.deepEqual(objectives, [
      { id: gid('LearningObjective', 'o1'), courseTemplate: null },
      { id: gid('LearningObjective', 'o2'), event: { title: 'Fire drill, May' } },
      { id: gid('LearningObjective', 'o3'), courseTemplate: null },
    ]);
    t.true(res.json.errors.length >= 1);
    t.true(res.json.errors.every((e: { message: string }) => /COURSE_TEMPLATE_VIEW/.test(e.message)));
  },
);

test.serial('when a page of paths with objectives is read, then it costs as many SQL statements for 20 paths as for 2', async (t) => {
  const made = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const paths = (await db('learning_paths')
      .insert(
        Array.from({ length: 24 }, (_, i) => ({
          name: `Zz path ${String(i).padStart(2, '0')}`,
          code: `ZZ-${i}`,
          lifecycle_state: 'active',
          image_document_id: ids.image,
          category_id: i % 2 ? ids.category : ids.topCategory,
        })),
      )
      .returning('id')) as { id: number }[];
    await db('prices').insert(
      paths.map(({ id }, i) => ({
        learning_path_id: id,
        price_level_id: ids.normal,
        currency_code: 'GBP',
        region_id: i % 2 ? ids.region : null,
        amount: `${100 + i}.00`,
      })),
    );
    await db('learning_path_objectives').insert(
      paths.flatMap(({ id }, i) => [
        { learning_path_id: id, position: 1, event_id: ids.drill },
        { learning_path_id: id, position: 2, course_template_id: i % 2 ? ids.fire : ids.ropes },
      ]),
    );
    return paths.map((p) => p.id);
  });
  const query = LIST.replace('first: 10', 'first: $first')
    .replace('query (', 'query ($first: Int, ')
    .replace(
      'isBundle',
      `isBundle ${PICTURES_AND_PRICES.slice(PICTURES_AND_PRICES.indexOf('image {'), PICTURES_AND_PRICES.lastIndexOf('} } } }'))}`,
    );
  const statementsFor = async (first: number) => {
    const { sql: statements, result: d } = await readStatements(f.ctx.rt.knex, () =>
      f.data(f.admin, query, {
        first,
        filters: [{ field: 'name', operation: 'like', value: 'Zz%' }],
        order: { field: 'name', direction: 'asc' },
      }),
    );
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
    const nodes = d.learningPaths.edges.map((e: any) => e.node);
    t.true(
      nodes.every(
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
        (n: any) =>
          n.learningObjectives.edges.length === 2 &&
          n.image.name === 'safety.jpg' &&
          n.learningCategories.edges.length === 1 &&
          n.prices.edges.length === 1,
      ),
    );
    return { count: statements.length, paths: d.learningPaths.edges.length };
  };
  try {
    // The token and its user are read on first use only (then cached): counted after that.
    await statementsFor(1);
    const small = await statementsFor(2);
    const large = await statementsFor(20);
    t.is(small.paths, 2);
    t.is(large.paths, 20);
    t.is(large.count, small.count, `statements: ${small.count} for 2, ${large.count} for 20`);
    t.log(`statements per page of paths: ${large.count}`);
  } finally {
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('learning_paths').whereIn('id', made).delete());
  }
});

test.serial(
  'when a path has more than 100 objectives (stored before the limit), then it shows the first 100 and counts them all',
  async (t) => {
    const path = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      const id = (
        (await db('learning_paths').insert({ name: 'Marathon', lifecycle_state: 'draft' }).returning('id')) as { id: number }[]
      )[0]!.id;
      await db('learning_path_objectives').insert(
        Array.from({ length: 101 }, (_, i) => ({
          learning_path_id: id,
          position: i + 1,
          course_template_id: i % 2 ? ids.fire : ids.ropes,
        })),
      );
      return id;
    });
    try {
      const d = await f.data(
        f.admin,
        'query ($filters: [LearningPathFieldGraphFilter]!) { learningPaths(filters: $filters) { edges { node { learningObjectives { pageInfo { totalRecords hasNextPage } edges { node { id } } } } } } }',
        {
          filters: [{ field: 'id', operation: 'eq', value: toGlobalId('LearningPath', path) }],
        },
      );
      const objectives = d.learningPaths.edges[0].node.learningObjectives;
      t.deepEqual(objectives.pageInfo, { totalRecords: 101, hasNextPage: true });
      t.is(objectives.edges.length, 100);
    } finally {
      await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('learning_paths').where({ id: path }).delete());
    }
  },
);

const CREATE =
  'mutation ($input: LearningPathCreateInput!) { learningPaths { create(input: $input) { learningPath { id name code lifecycleState isBundle } errors { label value message } } } }';
const UPDATE =
  'mutation ($id: ID!, $input: LearningPathUpdateInput!) { learningPaths { update(learningPathId: $id, input: $input) { learningPath { id name code lifecycleState isBundle } errors { label value message } } } }';

test.serial(
  'when a path is created with a code, a state and the bundle flag, then it has them; without them it is active, not a bundle, with no code',
  async (t) => {
    const made = (await f.data(f.admin, CREATE, { input: { name: 'First aid', code: 'LP-AID', lifecycleState: 'draft', isBundle: true } }))
      .learningPaths.create;
    t.deepEqual(made.errors, []);
    t.like(made.learningPath, { name: 'First aid', code: 'LP-AID', lifecycleState: 'draft', isBundle: true });
    const plain = (await f.data(f.admin, CREATE, { input: { name: 'Plain path' } })).learningPaths.create;
    t.like(plain.learningPath, { code: null, lifecycleState: 'active', isBundle: false });
    const read = await f.data(f.admin, BY_ID, { filters: [{ field: 'id', operation: 'eq', value: made.learningPath.id }] });
    t.like(read.learningPaths.edges[0].node, { code: 'LP-AID', lifecycleState: 'draft', isBundle: true });
  },
);

test.serial('when a path is updated, then only the settings given change, and a null code clears it', async (t) => {
  const id = (await f.data(f.admin, CREATE, { input: { name: 'Updatable', code: 'LP-UP', isBundle: true } })).learningPaths.create
    .learningPath.id;
  const activated = (await f.data(f.admin, UPDATE, { id, input: { lifecycleState: 'retired' } })).learningPaths.update;
  t.deepEqual(activated.errors, []);
  t.like(activated.learningPath, { name: 'Updatable', code: 'LP-UP', lifecycleState: 'retired', isBundle: true });
  const cleared = (await f.data(f.admin, UPDATE, { id, input: { code: null, isBundle: false, name: 'Renamed' } })).learningPaths.update;
  t.like(cleared.learningPath, { name: 'Renamed', code: null, lifecycleState: 'retired', isBundle: false });
});

test.serial(
  'when a write gives a bad code, a null state or a null bundle flag, then it answers the errors and writes nothing',
  async (t) => {
    const id = (await f.data(f.admin, CREATE, { input: { name: 'Guarded', code: 'LP-G' } })).learningPaths.create.learningPath.id;
    const bad = (
      await f.data(f.admin, UPDATE, { id, input: { name: 'Changed', code: 'two\nlines', lifecycleState: null, isBundle: null } })
    ).learningPaths.update;
    t.is(bad.learningPath, null);
    t.deepEqual(bad.errors, [
      { label: 'code', value: 'two\nlines', message: 'code must be one line of at most 64 characters' },
      { label: 'lifecycleState', value: null, message: 'lifecycleState must be one of draft, active, retired' },
      { label: 'isBundle', value: null, message: 'isBundle must be true or false' },
    ]);
    const long = (await f.data(f.admin, CREATE, { input: { name: 'Long code', code: 'x'.repeat(65) } })).learningPaths.create;
    t.is(long.learningPath, null);
    t.is(long.errors[0].label, 'code');
    const read = await f.data(f.admin, BY_ID, { filters: [{ field: 'id', operation: 'eq', value: id }] });
    t.like(read.learningPaths.edges[0].node, { name: 'Guarded', code: 'LP-G', lifecycleState: 'active', isBundle: false });
    const wrongState = await f.gql(f.admin, UPDATE, { id, input: { lifecycleState: 'published' } });
    t.regex(wrongState.json.errors[0].message, /LearningPathLifecycleState/);
  },
);

const OBJECTIVES =
  'learningObjectives { pageInfo { totalRecords } edges { node { __typename ... on CourseObjective { courseTemplate { title } } ... on EventObjective { event { title } } } } }';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
const steps = (path: any) =>
  path.learningObjectives.edges.map(
    (e: { node: { courseTemplate?: { title: string }; event?: { title: string } } }) =>
      e.node.courseTemplate?.title ?? `event: ${e.node.event?.title}`,
  );

test.serial('when a path is written with objectives, then it has them in that order, and an update replaces or keeps them', async (t) => {
  const create = CREATE.replace('isBundle }', `isBundle ${OBJECTIVES} }`);
  const update = UPDATE.replace('isBundle }', `isBundle ${OBJECTIVES} }`);
  const made = (
    await f.data(f.admin, create, {
      input: {
        name: 'Stepwise',
        learningObjectives: [
          { eventId: gid('Event', 'drill') },
          { courseTemplateId: gid('CourseTemplate', 'ropes') },
          { courseTemplateId: gid('CourseTemplate', 'fire') },
        ],
      },
    })
  ).learningPaths.create;
  t.deepEqual(made.errors, []);
  t.deepEqual(steps(made.learningPath), ['event: Fire drill, May', 'Abseiling', 'Fire Safety']);
  const id = made.learningPath.id;
  const renamed = (await f.data(f.admin, update, { id, input: { name: 'Stepwise 2' } })).learningPaths.update;
  t.deepEqual(steps(renamed.learningPath), ['event: Fire drill, May', 'Abseiling', 'Fire Safety']);
  const replaced = (
    await f.data(f.admin, update, { id, input: { learningObjectives: [{ courseTemplateId: gid('CourseTemplate', 'fire') }] } })
  ).learningPaths.update;
  t.deepEqual(steps(replaced.learningPath), ['Fire Safety']);
  const read = await f.data(f.admin, BY_ID, { filters: [{ field: 'id', operation: 'eq', value: id }] });
  t.is(read.learningPaths.edges[0].node.learningObjectives.pageInfo.totalRecords, 1);
  const emptied = (await f.data(f.admin, update, { id, input: { learningObjectives: [] } })).learningPaths.update;
  t.deepEqual(emptied.learningPath.learningObjectives, { pageInfo: { totalRecords: 0 }, edges: [] });
});

test.serial(
  'when objectives name nothing, the wrong type, or both or neither target, then the errors name them with the ids sent and nothing is written',
  async (t) => {
    const id = (
      await f.data(f.admin, CREATE, {
        input: { name: 'Careful', learningObjectives: [{ courseTemplateId: gid('CourseTemplate', 'fire') }] },
      })
    ).learningPaths.create.learningPath.id;
    const missing = toGlobalId('CourseTemplate', 999999);
    const eventAsTemplate = gid('Event', 'drill');
    const res = (
      await f.data(f.admin, UPDATE, {
        id,
        input: {
          name: 'Changed',
          learningObjectives: [
            { courseTemplateId: missing },
            { courseTemplateId: eventAsTemplate },
            { courseTemplateId: gid('CourseTemplate', 'ropes'), eventId: gid('Event', 'drill') },
            {},
            { eventId: 'not-an-id' },
          ],
        },
      })
    ).learningPaths.update;
    t.is(res.learningPath, null);
    t.deepEqual(res.errors, [
      { label: 'learningObjectives[0].courseTemplateId', value: missing, message: 'Course Template not found' },
      { label: 'learningObjectives[1].courseTemplateId', value: eventAsTemplate, message: 'Course Template not found' },
      { label: 'learningObjectives[2]', value: null, message: 'learningObjectives[2] names either a courseTemplateId or an eventId' },
      { label: 'learningObjectives[3]', value: null, message: 'learningObjectives[3] names either a courseTemplateId or an eventId' },
      { label: 'learningObjectives[4].eventId', value: 'not-an-id', message: 'Event not found' },
    ]);
    const read = await f.data(f.admin, BY_ID.replace('learningObjectives { pageInfo { totalRecords } }', OBJECTIVES), {
      filters: [{ field: 'id', operation: 'eq', value: id }],
    });
    t.is(read.learningPaths.edges[0].node.name, 'Careful');
    t.deepEqual(steps(read.learningPaths.edges[0].node), ['Fire Safety']);
    const tooMany = (
      await f.data(f.admin, UPDATE, {
        id,
        input: { learningObjectives: Array.from({ length: 101 }, () => ({ courseTemplateId: gid('CourseTemplate', 'fire') })) },
      })
    ).learningPaths.update;
    t.deepEqual(tooMany.errors, [
      { label: 'learningObjectives', value: '101', message: 'a learning path has at most 100 objectives (101 given)' },
    ]);
  },
);

test.serial('when a role that may edit paths but not see course templates names one in an objective, then it is refused', async (t) => {
  const token = await f.tokenFor(f.tenant, 'path-editor', ['LEARNING_PATH_VIEW', 'LEARNING_PATH_EDIT', 'EVENT_VIEW']);
  const refused = await f.gql(token, CREATE, {
    input: { name: 'Sneaky', learningObjectives: [{ courseTemplateId: gid('CourseTemplate', 'fire') }] },
  });
  t.regex(refused.json.errors[0].message, /COURSE_TEMPLATE_VIEW/);
  t.is(refused.json.data.learningPaths.create, null);
  const allowed = (await f.data(token, CREATE, { input: { name: 'Event path', learningObjectives: [{ eventId: gid('Event', 'drill') }] } }))
    .learningPaths.create;
  t.deepEqual(allowed.errors, []);
  const names = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('learning_paths').whereIn('name', ['Sneaky', 'Event path']).pluck('name'),
  );
  t.deepEqual(names, ['Event path']);
});
