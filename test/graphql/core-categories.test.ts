import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { insertCategories } from '../../src/modules/categories/categories.data.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Core `learningCategories` as integrations call it (real-clients.md section 3): the REST API's
 * event categories, listed with `[LearningCategoryFieldGraphFilter]!` and
 * `LearningCategoryFieldGraphOrder`, each `{ id legacyId name description parentCategory }`.
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const gid = (name: string) => toGlobalId('LearningCategory', ids[name]!);

test.serial.before(async () => {
  f = await graphqlFixture('gcat');
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const [software, management] = await insertCategories(db, [
      { name: 'Software', priority: 1, introduction: 'Office tools and programming' },
      { name: 'Management', priority: 2, introduction: null },
    ]);
    ids.software = software!.id;
    ids.management = management!.id;
    const [spreadsheets, leadership] = await insertCategories(db, [
      { name: 'Spreadsheets', priority: 1, introduction: 'Excel and friends', parent_id: ids.software },
      { name: 'Leadership', priority: 1, introduction: 'Leading teams', parent_id: ids.management },
    ]);
    ids.spreadsheets = spreadsheets!.id;
    ids.leadership = leadership!.id;
  });
});
test.after.always(async () => f?.close());

const LIST = `query ($order: LearningCategoryFieldGraphOrder $filters: [LearningCategoryFieldGraphFilter]!) {
  learningCategories(first: 25 offset: 0 order: $order filters: $filters) {
    pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }
    edges { node { id legacyId name description parentCategory { id legacyId name description } } }
  }
}`;

test.serial(
  'when an integration lists categories by name with no filters, then each comes with its introduction as description and its parent',
  async (t) => {
    const d = await f.data(f.admin, LIST, { filters: [], order: { field: 'name', direction: 'asc' } });
    const nodes = d.learningCategories.edges.map((e: { node: unknown }) => e.node);
    t.deepEqual(nodes, [
      {
        id: gid('leadership'),
        legacyId: ids.leadership,
        name: 'Leadership',
        description: 'Leading teams',
        parentCategory: { id: gid('management'), legacyId: ids.management, name: 'Management', description: null },
      },
      { id: gid('management'), legacyId: ids.management, name: 'Management', description: null, parentCategory: null },
      { id: gid('software'), legacyId: ids.software, name: 'Software', description: 'Office tools and programming', parentCategory: null },
      {
        id: gid('spreadsheets'),
        legacyId: ids.spreadsheets,
        name: 'Spreadsheets',
        description: 'Excel and friends',
        parentCategory: { id: gid('software'), legacyId: ids.software, name: 'Software', description: 'Office tools and programming' },
      },
    ]);
    t.like(d.learningCategories.pageInfo, { totalRecords: 4, hasNextPage: false, hasPreviousPage: false });
    t.is(Buffer.from(nodes[0].id, 'base64').toString(), `LearningCategory:${ids.leadership}`);
  },
);

test.serial('when an integration looks one category up by an id filter, then it gets that one only', async (t) => {
  const d = await f.data(
    f.admin,
    `query ($filters: [LearningCategoryFieldGraphFilter]!) { learningCategories(filters: $filters) { edges { node { id legacyId name description parentCategory { id name } } } } }`,
    {
      filters: [{ field: 'id', operation: 'eq', value: gid('spreadsheets') }],
    },
  );
  t.deepEqual(d.learningCategories.edges, [
    {
      node: {
        id: gid('spreadsheets'),
        legacyId: ids.spreadsheets,
        name: 'Spreadsheets',
        description: 'Excel and friends',
        parentCategory: { id: gid('software'), name: 'Software' },
      },
    },
  ]);
});

test.serial('when categories are ordered by id and paged with first and offset, then pages follow the ids', async (t) => {
  const page = async (offset: number) =>
    (
      await f.data(
        f.admin,
        `query ($order: LearningCategoryFieldGraphOrder $filters: [LearningCategoryFieldGraphFilter]!) { learningCategories(first: 3 offset: ${offset} order: $order filters: $filters) { pageInfo { totalRecords hasNextPage hasPreviousPage } edges { node { legacyId } } } }`,
        {
          filters: [],
          order: { field: 'id', direction: 'asc' },
        },
      )
    ).learningCategories;
  const first = await page(0);
  const second = await page(3);
  t.deepEqual(
    first.edges.map((e: { node: { legacyId: number } }) => e.node.legacyId),
    [ids.software, ids.management, ids.spreadsheets],
  );
  t.like(first.pageInfo, { totalRecords: 4, hasNextPage: true, hasPreviousPage: false });
  t.deepEqual(
    second.edges.map((e: { node: { legacyId: number } }) => e.node.legacyId),
    [ids.leadership],
  );
  t.like(second.pageInfo, { hasNextPage: false, hasPreviousPage: true });
  const desc = await f.data(f.admin, `{ learningCategories(order: {field: name, direction: desc}) { edges { node { name } } } }`);
  t.deepEqual(
    desc.learningCategories.edges.map((e: { node: { name: string } }) => e.node.name),
    ['Spreadsheets', 'Software', 'Management', 'Leadership'],
  );
});

test.serial('when categories are filtered on name, description, parent and legacy id, then only those that match come', async (t) => {
  const names = async (filters: unknown[]) =>
    (
      await f.data(
        f.admin,
        `query ($filters: [LearningCategoryFieldGraphFilter]!) { learningCategories(filters: $filters, order: {field: name, direction: asc}) { edges { node { name } } } }`,
        { filters },
      )
    ).learningCategories.edges.map((e: { node: { name: string } }) => e.node.name);
  t.deepEqual(await names([{ field: 'name', operation: 'like', value: '%s%' }]), ['Leadership', 'Software', 'Spreadsheets']);
  t.deepEqual(await names([{ field: 'description', operation: 'like', value: '%excel%' }]), ['Spreadsheets']);
  t.deepEqual(await names([{ field: 'parentCategory', operation: 'eq', value: gid('software') }]), ['Spreadsheets']);
  t.deepEqual(await names([{ field: 'parentCategory', operation: 'isnull' }]), ['Management', 'Software']);
  t.deepEqual(await names([{ field: 'legacyId', operation: 'in', values: [String(ids.management), String(ids.leadership)] }]), [
    'Leadership',
    'Management',
  ]);
});

test.serial('when node(id:) is given a category id, then it answers the LearningCategory', async (t) => {
  const d = await f.data(
    f.admin,
    `query ($id: ID!) { node(id: $id) { __typename ... on LearningCategory { name parentCategory { name } } } }`,
    { id: gid('leadership') },
  );
  t.deepEqual(d.node, { __typename: 'LearningCategory', name: 'Leadership', parentCategory: { name: 'Management' } });
});

test.serial('when a role lacks CATEGORY_VIEW, then listing categories is refused, as REST refuses it', async (t) => {
  const token = await f.tokenFor(f.tenant, 'templates-only', ['COURSE_TEMPLATE_VIEW']);
  const res = await f.gql(token, `{ learningCategories { edges { node { name } } } }`);
  t.is(res.json.data, null);
  t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
  t.regex(res.json.errors[0].message, /CATEGORY_VIEW/);
  const viewer = await f.tokenFor(f.tenant, 'viewer');
  t.is((await f.data(viewer, `{ learningCategories { pageInfo { totalRecords } } }`)).learningCategories.pageInfo.totalRecords, 4);
});
