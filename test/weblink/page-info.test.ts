import test from 'ava';
import { request } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * `pageInfo` that never misleads (issue 23, finding 6): `hasPreviousPage` says whether there are
 * records before the page's start, on WebLink and on Core, also for a page asked past the end.
 */
let f: GraphQLFixture;

const weblink = async (query: string, variables: Record<string, unknown> = {}) => {
  const res = await request(f.port, {
    method: 'POST',
    path: '/weblink/graphql',
    host: `${f.tenant.slug}.localhost`,
    body: { query, variables },
  });
  if (res.status !== 200 || res.json.errors) throw new Error(`${res.status} ${res.text}`);
  return res.json.data;
};

test.serial.before(async () => {
  f = await graphqlFixture('wpi');
  for (const title of ['Abseiling', 'Bookkeeping', 'Coaching']) {
    const d = await f.data(
      f.admin,
      'mutation ($title: String!) { courseTemplate { create(input: {title: $title, lifecycleState: published}) { errors { message } } } }',
      { title },
    );
    if (d.courseTemplate.create.errors.length) throw new Error(JSON.stringify(d));
  }
});
test.after.always(async () => f?.close());

const COURSES = `query ($filters: [CourseFieldFilter]!, $offset: Int, $after: String) { courses(filters: $filters, first: 2, offset: $offset, after: $after) {
  pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage } edges { node { name } } } }`;
const NONE = [{ field: 'name', operation: 'eq', value: 'No such course' }];

test.serial(
  'when a WebLink list that matches nothing is asked from an offset, then hasPreviousPage is false: there is no record before the page',
  async (t) => {
    const d = await weblink(COURSES, { filters: NONE, offset: 20 });
    t.deepEqual(d.courses, {
      pageInfo: { startCursor: null, endCursor: null, totalRecords: 0, hasNextPage: false, hasPreviousPage: false },
      edges: [],
    });
  },
);

test.serial(
  'when a WebLink page is asked past the end of a list that has records, then it is empty and hasPreviousPage is true: all of them are before it',
  async (t) => {
    const d = await weblink(COURSES, { filters: [], offset: 20 });
    t.deepEqual(d.courses, {
      pageInfo: { startCursor: null, endCursor: null, totalRecords: 3, hasNextPage: false, hasPreviousPage: true },
      edges: [],
    });
  },
);

test.serial(
  'when WebLink pages run from the first to the last, then hasPreviousPage is false on the first and true after it, hasNextPage the other way round',
  async (t) => {
    const first = await weblink(COURSES, { filters: [] });
    t.deepEqual([first.courses.pageInfo.hasPreviousPage, first.courses.pageInfo.hasNextPage, first.courses.edges.length], [false, true, 2]);
    const second = await weblink(COURSES, { filters: [], after: first.courses.pageInfo.endCursor });
    t.deepEqual(
      [
        second.courses.pageInfo.hasPreviousPage,
        second.courses.pageInfo.hasNextPage,
        second.courses.edges.map((e: { node: { name: string } }) => e.node.name),
      ],
      [true, false, ['Coaching']],
    );
  },
);

test.serial('when a Core list that matches nothing is asked from an offset, then hasPreviousPage is false there too', async (t) => {
  const d = await f.data(
    f.admin,
    'query { courseTemplates(filters: [{field: title, operation: eq, value: "No such course"}], offset: 40) { pageInfo { totalRecords hasNextPage hasPreviousPage } edges { node { id } } } }',
  );
  t.deepEqual(d.courseTemplates, { pageInfo: { totalRecords: 0, hasNextPage: false, hasPreviousPage: false }, edges: [] });
});
