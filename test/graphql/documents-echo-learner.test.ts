import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { insertDocument } from '../../src/modules/documents/documents.data.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { readStatements } from '../helpers/statements.js';

/**
 * What webhooks' stored payload queries read (real-clients.md section 5.A, issue 24): `echo`
 * (the WordPress plugin's delete webhooks), `documents(filters)` with each document's course
 * templates and learning paths (its Document Updated webhook), and `node(id)` on a Document and
 * on a Learner (a named delegate: the sync service's Learner Created / Cancelled).
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const gid = (type: string, name: string) => toGlobalId(type, ids[name]!);

/** The plugin's stored query for Document Updated, verbatim. */
const PLUGIN_DOCUMENTS = `query($objectid: String!) { documents(filters: [{field: id, operation: eq, value: $objectid}]) { edges { node { id courseTemplates { edges { node { id } } } learningPaths { edges { node { id } } } } } } }`;
/** The plugin's stored query for its delete webhooks, verbatim. */
const PLUGIN_ECHO = `query($objectid: String!) { echo(value: $objectid) }`;
const LEARNER = `query($id: ID!) { node(id: $id) { id __typename ... on Learner { legacyId lifecycleState contact { id firstName } event { id title } } } }`;
const DOCUMENT = `query($id: ID!) { node(id: $id) { id __typename ... on Document { legacyId name url courseTemplates { edges { node { id title } } } learningPaths { edges { node { id name } } } } } }`;

test.serial.before(async () => {
  f = await graphqlFixture('gdel');
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const one = async (table: string, row: Record<string, unknown>) =>
      ((await db(table).insert(row).returning('id')) as { id: number }[])[0]!.id;
    ids.banner = (await insertDocument(db, { name: 'banner.png', folder: 'Courses', url: 'https://cdn.example/banner.png' })).id;
    ids.lonely = (await insertDocument(db, { name: 'lonely.png', url: 'https://cdn.example/lonely.png' })).id;
    ids.paths = (await insertDocument(db, { name: 'paths.jpg', url: 'https://cdn.example/paths.jpg' })).id;
    ids.excel = await one('course_templates', { title: 'Excel', image_document_id: ids.banner });
    ids.word = await one('course_templates', { title: 'Word', image_document_id: ids.banner });
    ids.plain = await one('course_templates', { title: 'No picture' });
    ids.safety = await one('learning_paths', { name: 'Safety', lifecycle_state: 'active', image_document_id: ids.banner });
    ids.leader = await one('learning_paths', { name: 'Leadership', lifecycle_state: 'active', image_document_id: ids.paths });
  });
  // The learner is made as integrations make one: a contact placed on an event through REST.
  const tpl = (await f.api('POST', 'event/event_templates', { title: 'First aid' })).json;
  const event = (await f.api('POST', 'event/public_events', { event_template_id: tpl.id, classroom_start: '2027-03-01T09:00:00' })).json;
  const contact = (await f.api('POST', 'crm/contacts', { first_name: 'Ada', last_name: 'Lovelace' })).json;
  const other = (await f.api('POST', 'crm/contacts', { first_name: 'Bob', last_name: 'Cancelled' })).json;
  const placed = await f.api('POST', 'event/delegates', { event_id: event.id, contact_id: contact.id });
  if (placed.status !== 201 && placed.status !== 200) throw new Error(`delegate: ${placed.status} ${placed.text}`);
  const gone = (await f.api('POST', 'event/delegates', { event_id: event.id, contact_id: other.id })).json;
  ids.event = event.id;
  ids.contact = contact.id;
  ids.learner = placed.json.id;
  ids.cancelled = gone.id;
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    // No API cancels a delegate yet: the row is as the cancellation (to come) leaves it.
    await db('delegates').where({ id: ids.cancelled }).update({ cancelled_date: '2027-02-01' });
    // Places bought without names are not a learner.
    ids.unnamed = ((await db('delegates').insert({ event_id: ids.event, num_places: 3 }).returning('id')) as { id: number }[])[0]!.id;
  });
});
test.after.always(async () => f?.close());

test.serial('when the plugin asks echo to answer its value, then it answers the value as given', async (t) => {
  const value = toGlobalId('CourseTemplate', 12);
  t.deepEqual((await f.gql(f.admin, PLUGIN_ECHO, { objectid: value })).json, { data: { echo: value } });
  // Any role that has a token may: it reads nothing.
  const nothing = await f.tokenFor(f.tenant, 'nothing', ['LOCALE_VIEW']);
  t.deepEqual((await f.gql(nothing, PLUGIN_ECHO, { objectid: 'not an id: any text' })).json, { data: { echo: 'not an id: any text' } });
  // A token is still needed.
  t.is((await f.gql('not-a-token', PLUGIN_ECHO, { objectid: 'x' })).status, 401);
});

test.serial(
  "when the plugin's Document Updated query runs for a document, then it answers the document with the templates and paths that show it",
  async (t) => {
    const res = await f.gql(f.admin, PLUGIN_DOCUMENTS, { objectid: gid('Document', 'banner') });
    t.deepEqual(res.json, {
      data: {
        documents: {
          edges: [
            {
              node: {
                id: gid('Document', 'banner'),
                courseTemplates: {
                  edges: [{ node: { id: gid('CourseTemplate', 'excel') } }, { node: { id: gid('CourseTemplate', 'word') } }],
                },
                learningPaths: { edges: [{ node: { id: gid('LearningPath', 'safety') } }] },
              },
            },
          ],
        },
      },
    });
    // A document nothing shows answers empty lists; an id of nothing here, or of another type, no document.
    t.deepEqual((await f.data(f.admin, PLUGIN_DOCUMENTS, { objectid: gid('Document', 'lonely') })).documents.edges[0].node, {
      id: gid('Document', 'lonely'),
      courseTemplates: { edges: [] },
      learningPaths: { edges: [] },
    });
    for (const objectid of [toGlobalId('Document', 99999), gid('CourseTemplate', 'excel')])
      t.deepEqual((await f.data(f.admin, PLUGIN_DOCUMENTS, { objectid })).documents.edges, [], objectid);
    // What is no id at all is refused by name, as every list's id filter does.
    const garbage = await f.gql(f.admin, PLUGIN_DOCUMENTS, { objectid: 'garbage' });
    t.is(garbage.json.errors[0].extensions.code, 'BAD_USER_INPUT');
    t.regex(garbage.json.errors[0].message, /'garbage' is not an id/);
  },
);

test.serial('when documents are listed with filters, paging and nested lists, then they answer as other lists do', async (t) => {
  const d = await f.data(
    f.admin,
    `{ all: documents { edges { node { name } } pageInfo { totalRecords hasNextPage } }
       some: documents(filters: [{field: id, operation: in, values: ["${gid('Document', 'banner')}", "${gid('Document', 'paths')}"]}], first: 1, offset: 1) {
         edges { node { name learningPaths(first: 1) { edges { node { name } } pageInfo { totalRecords } } } } pageInfo { totalRecords hasPreviousPage }
       }
       named: documents(filters: [{field: name, operation: eq, value: "lonely.png"}]) { edges { node { name } } }
       like: documents(filters: [{field: name, operation: like, value: "%.PNG"}], order: {field: name, direction: desc}) { edges { node { name folder { name } } } } }`,
  );
  t.deepEqual(d.all, {
    edges: [{ node: { name: 'banner.png' } }, { node: { name: 'lonely.png' } }, { node: { name: 'paths.jpg' } }],
    pageInfo: { totalRecords: 3, hasNextPage: false },
  });
  t.deepEqual(d.some, {
    edges: [{ node: { name: 'paths.jpg', learningPaths: { edges: [{ node: { name: 'Leadership' } }], pageInfo: { totalRecords: 1 } } } }],
    pageInfo: { totalRecords: 2, hasPreviousPage: true },
  });
  t.deepEqual(d.named.edges, [{ node: { name: 'lonely.png' } }]);
  t.deepEqual(d.like.edges, [
    { node: { name: 'lonely.png', folder: null } },
    { node: { name: 'banner.png', folder: { name: 'Courses' } } },
  ]);
});

test.serial('when a page of documents reads their templates and paths, then the statements do not grow with the page', async (t) => {
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    for (let i = 0; i < 30; i++) {
      const doc = await insertDocument(db, { name: `bulk-${String(i).padStart(2, '0')}.png`, url: `https://cdn.example/bulk-${i}.png` });
      await db('course_templates').insert({ title: `Bulk ${i}`, image_document_id: doc.id });
      await db('learning_paths').insert({ name: `Bulk ${i}`, lifecycle_state: 'active', image_document_id: doc.id });
    }
  });
  await f.ctx.rt.changes.ensureStarted();
  const statementsFor = async (first: number) => {
    const { sql, result: d } = await readStatements(f.ctx.rt.knex, () =>
      f.data(
        f.admin,
        `query ($first: Int) { documents(first: $first, filters: [{field: name, operation: like, value: "bulk-%"}]) { edges { node { id courseTemplates { edges { node { id title } } } learningPaths { edges { node { id name } } } } } } }`,
        { first },
      ),
    );
    for (const e of d.documents.edges) {
      t.is(e.node.courseTemplates.edges.length, 1);
      t.is(e.node.learningPaths.edges.length, 1);
    }
    return { count: sql.length, edges: d.documents.edges.length, sql };
  };
  await statementsFor(2);
  const small = await statementsFor(2);
  const large = await statementsFor(30);
  t.is(small.edges, 2);
  t.is(large.edges, 30);
  t.is(large.count, small.count, `${small.sql.join('\n')}\n--\n${large.sql.join('\n')}`);
});

test.serial('when node(id) is asked for a document, then it answers the document and what shows it', async (t) => {
  t.deepEqual((await f.gql(f.admin, DOCUMENT, { id: gid('Document', 'banner') })).json, {
    data: {
      node: {
        id: gid('Document', 'banner'),
        __typename: 'Document',
        legacyId: ids.banner,
        name: 'banner.png',
        url: 'https://cdn.example/banner.png',
        courseTemplates: {
          edges: [
            { node: { id: gid('CourseTemplate', 'excel'), title: 'Excel' } },
            { node: { id: gid('CourseTemplate', 'word'), title: 'Word' } },
          ],
        },
        learningPaths: { edges: [{ node: { id: gid('LearningPath', 'safety'), name: 'Safety' } }] },
      },
    },
  });
  t.deepEqual((await f.gql(f.admin, DOCUMENT, { id: toGlobalId('Document', 99999) })).json, { data: { node: null } });
});

test.serial('when node(id) is asked for a learner, then it answers its state, contact and event', async (t) => {
  t.deepEqual((await f.gql(f.admin, LEARNER, { id: gid('Learner', 'learner') })).json, {
    data: {
      node: {
        id: gid('Learner', 'learner'),
        __typename: 'Learner',
        legacyId: ids.learner,
        lifecycleState: 'active',
        contact: { id: gid('Contact', 'contact'), firstName: 'Ada' },
        event: { id: gid('Event', 'event'), title: 'First aid' },
      },
    },
  });
  t.like((await f.data(f.admin, LEARNER, { id: gid('Learner', 'cancelled') })).node, {
    id: gid('Learner', 'cancelled'),
    lifecycleState: 'cancelled',
    contact: { firstName: 'Bob' },
  });
  // A row of places bought without names is no learner; nor is an id of nothing.
  for (const id of [gid('Learner', 'unnamed'), toGlobalId('Learner', 99999)])
    t.deepEqual((await f.gql(f.admin, LEARNER, { id })).json, { data: { node: null } }, id);
});

test.serial("when another instance's token asks for these records, then it reads none of them", async (t) => {
  const other = await f.ctx.freshTenant('gdelb');
  const theirs = await f.tokenFor(other, 'admin');
  for (const [query, id] of [
    [LEARNER, gid('Learner', 'learner')],
    [DOCUMENT, gid('Document', 'banner')],
  ] as const)
    t.deepEqual((await f.gql(theirs, query, { id })).json, { data: { node: null } }, id);
  t.deepEqual((await f.data(theirs, PLUGIN_DOCUMENTS, { objectid: gid('Document', 'banner') })).documents.edges, []);
});

test.serial(
  'permissions: a learner needs DELEGATE_VIEW, documents a course template or learning path VIEW, their lists their own',
  async (t) => {
    const forbidden = (
      res: { json: { data: unknown; errors: { message: string; extensions: { code: string } }[] } },
      permission: RegExp,
    ) => {
      t.is(res.json.errors[0]!.extensions.code, 'FORBIDDEN');
      t.regex(res.json.errors[0]!.message, permission);
    };
    const events = await f.tokenFor(f.tenant, 'events', ['EVENT_VIEW', 'CONTACT_VIEW']);
    const noLearner = await f.gql(events, LEARNER, { id: gid('Learner', 'learner') });
    t.deepEqual(noLearner.json.data, { node: null });
    forbidden(noLearner, /DELEGATE_VIEW/);
    const noDocuments = await f.gql(events, PLUGIN_DOCUMENTS, { objectid: gid('Document', 'banner') });
    t.is(noDocuments.json.data, null);
    forbidden(noDocuments, /COURSE_TEMPLATE_VIEW/);

    // Delegates without events or contacts: the learner, its contact and event refused one by one.
    const delegates = await f.tokenFor(f.tenant, 'delegates', ['DELEGATE_VIEW']);
    const bare = await f.gql(delegates, LEARNER, { id: gid('Learner', 'learner') });
    t.like(bare.json.data.node, { id: gid('Learner', 'learner'), lifecycleState: 'active', contact: null, event: null });
    t.deepEqual(bare.json.errors.map((e: { extensions: { code: string } }) => e.extensions.code).sort(), ['FORBIDDEN', 'FORBIDDEN']);

    // Paths only: the document and its paths; its templates refused (null, with an error).
    const paths = await f.tokenFor(f.tenant, 'paths', ['LEARNING_PATH_VIEW']);
    const onlyPaths = await f.gql(paths, PLUGIN_DOCUMENTS, { objectid: gid('Document', 'banner') });
    t.deepEqual(onlyPaths.json.data.documents.edges[0].node, {
      id: gid('Document', 'banner'),
      courseTemplates: null,
      learningPaths: { edges: [{ node: { id: gid('LearningPath', 'safety') } }] },
    });
    forbidden(onlyPaths, /COURSE_TEMPLATE_VIEW/);
    const templates = await f.tokenFor(f.tenant, 'templates', ['COURSE_TEMPLATE_VIEW']);
    const onlyTemplates = await f.gql(templates, PLUGIN_DOCUMENTS, { objectid: gid('Document', 'banner') });
    t.is(onlyTemplates.json.data.documents.edges[0].node.courseTemplates.edges.length, 2);
    t.is(onlyTemplates.json.data.documents.edges[0].node.learningPaths, null);
    forbidden(onlyTemplates, /LEARNING_PATH_VIEW/);
    // node(id) reads a document with either view permission, as documents and downloadDocument do.
    const node = await f.gql(templates, DOCUMENT, { id: gid('Document', 'banner') });
    t.like(node.json.data.node, { name: 'banner.png', learningPaths: null });
    forbidden(node, /LEARNING_PATH_VIEW/);
    const byPath = await f.gql(paths, DOCUMENT, { id: gid('Document', 'banner') });
    t.like(byPath.json.data.node, { name: 'banner.png', courseTemplates: null });
    forbidden(byPath, /COURSE_TEMPLATE_VIEW/);
  },
);
