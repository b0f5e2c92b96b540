import test, { type ExecutionContext } from 'ava';
import { GRAPHIQL_PLACEHOLDER, GRAPHIQL_TOKEN_HINT } from '../../src/app/graphql-endpoint.js';
import { request, type HttpResult } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * The Core GraphQL API as real integrations call it over the wire (real-clients.md §4): where
 * they put the document and variables (a POST with the document in the URL, a GET with a JSON
 * body, variables as a string of JSON), what they add (undeclared variables, extra keys and URL
 * parameters), and how they write documents (anonymous, indented, unquoted enums, trailing
 * commas, lists without commas, one object for a list). Those clients fail on any top-level
 * `errors` key, so every answer here is checked to have none. Then GraphiQL's page and headers.
 */
let f: GraphQLFixture;
const ids: Record<string, string> = {};

/** What n8n sends when a workflow does not set an Accept header. */
const N8N_ACCEPT = 'application/json,text/html,application/xhtml+xml,application/xml,text/*;q=0.9, image/*;q=0.8, */*;q=0.7';

test.serial.before(async () => {
  f = await graphqlFixture('gwh');
  const template = async (input: Record<string, unknown>) => {
    const d = await f.data(
      f.admin,
      'mutation ($input: CourseTemplateCreateInput!) { courseTemplate { create(input: $input) { courseTemplate { id } errors { message } } } }',
      { input },
    );
    return d.courseTemplate.create.courseTemplate.id as string;
  };
  ids.excel = await template({ title: 'Excel Basics', code: 'XL1', lifecycleState: 'published' });
  ids.macros = await template({ title: 'Excel Macros', code: 'XL2', lifecycleState: 'published' });
  ids.word = await template({ title: 'Word Basics', code: 'WD1', lifecycleState: 'draft' });
  for (const code of ['WH-1', 'WH-2', 'WH-3']) {
    const d = await f.data(
      f.admin,
      `mutation { event { createClassroom(input: {courseTemplateId: "${ids.excel}", eventType: public, timeZoneName: "Europe/London", code: "${code}", title: "Excel ${code}"}) { event { id } errors { message } } } }`,
    );
    if (d.event.createClassroom.errors.length) throw new Error(JSON.stringify(d));
  }
});
test.after.always(async () => f?.close());

/** A request to `/graphql` with the admin's token, shaped by the test. */
function send(opts: {
  method?: string;
  path?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}): Promise<HttpResult> {
  return request(f.port, {
    method: opts.method ?? 'POST',
    path: opts.path ?? '/graphql',
    headers: { authorization: `Bearer ${f.admin}`, ...opts.headers },
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    ...(opts.rawBody !== undefined ? { rawBody: opts.rawBody } : {}),
  });
}

/** The data of an answer that must be a success: 200, JSON, and no `errors` key at all. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are asserted field by field
function ok(t: ExecutionContext, res: HttpResult): any {
  t.is(res.status, 200, res.text.slice(0, 500));
  t.regex(String(res.headers['content-type']), /^application\/json/);
  t.false(res.json === undefined || 'errors' in res.json, res.text.slice(0, 500));
  return res.json?.data;
}

const codes = (connection: { edges: { node: { code: string } }[] }) => connection.edges.map((e) => e.node.code);

test.serial(
  'when a POST has no body and the document in ?query= with other URL parameters, then it runs and pages by first and offset',
  async (t) => {
    const page = (offset: number) =>
      `query getEvents { events(filters: [{ field: code, operation: like, value: "WH-%" }], order: {field: code, direction: asc}, first: 2, offset: ${offset}) { pageInfo { hasNextPage endCursor } edges { node { id code } } } }`;
    const url = (offset: number) => `/graphql?${new URLSearchParams({ query: page(offset), staff: 'Q29udGFjdDox' })}`;
    const first = ok(t, await send({ path: url(0), headers: { accept: N8N_ACCEPT } }));
    t.deepEqual(codes(first.events), ['WH-1', 'WH-2']);
    t.true(first.events.pageInfo.hasNextPage);
    // n8n's pagination rewrites the offset in the URL for the next page; with an empty JSON body this time.
    const second = ok(t, await send({ path: url(2), headers: { 'content-type': 'application/json' }, rawBody: '' }));
    t.deepEqual(codes(second.events), ['WH-3']);
    t.false(second.events.pageInfo.hasNextPage);
    // Variables and the operation's name may come with it in the URL too (variables as JSON, as in a GET).
    const named = ok(
      t,
      await send({
        path: `/graphql?${new URLSearchParams({ query: 'query a { hello } query b($first: Int) { courseTemplates(first: $first, order: {field: code}) { edges { node { code } } } }', operationName: 'b', variables: '{"first": 1}' })}`,
      }),
    );
    t.deepEqual(named, { courseTemplates: { edges: [{ node: { code: 'WD1' } }] } });
  },
);

test.serial('when a POST body has a document, then the URL does not replace it', async (t) => {
  const d = ok(
    t,
    await send({
      path: `/graphql?${new URLSearchParams({ query: '{ locales(first: 1) { edges { node { code } } } }' })}`,
      body: { query: '{ hello }' },
    }),
  );
  t.deepEqual(Object.keys(d), ['hello']);
});

test.serial(
  'when variables come as a string of JSON, then they are read as the object it holds; a string of anything else is a 400',
  async (t) => {
    // n8n body parameters: an anonymous mutation, its input written with trailing commas and blank lines.
    const mutation = `mutation ($id: ID!, $summary: String!) {
  courseTemplate {
    update(
      courseTemplateId: $id,
      input: {
        lmsSummary: $summary,

      },
    ) { courseTemplate { id code lmsSummary } errors { label message value } }
  }
}`;
    const d = ok(
      t,
      await send({ body: { query: mutation, variables: JSON.stringify({ id: ids.word, summary: 'Instructor declined: Jane Doe' }) } }),
    );
    t.deepEqual(d.courseTemplate.update, {
      courseTemplate: { id: ids.word, code: 'WD1', lmsSummary: 'Instructor declined: Jane Doe' },
      errors: [],
    });
    const read = ok(
      t,
      await send({ body: { query: 'query ($id: ID!) { courseTemplate(id: $id) { lmsSummary } }', variables: ` {"id": "${ids.word}"} ` } }),
    );
    t.is(read.courseTemplate.lmsSummary, 'Instructor declined: Jane Doe');
    for (const variables of ['nope', '[1, 2]', '"text"', 42, ['array']]) {
      const res = await send({ body: { query: '{ hello }', variables } });
      t.is(res.status, 400, JSON.stringify(variables));
      t.is(res.json.errors[0].extensions.code, 'BAD_REQUEST');
      t.regex(res.json.errors[0].message, /`variables` must be an object \(or a string of JSON of one\)/);
    }
  },
);

test.serial(
  'when the body has extra keys, operationName and no variables, and the URL extra parameters, then the named operation runs and the rest is ignored',
  async (t) => {
    const document = `query hi { hello }
query ev { courseTemplates(filters: [{field: code, operation: eq, value: "XL2"}]) { edges { node { code title } } } }`;
    const d = ok(
      t,
      await send({ path: '/graphql?staff=Q29udGFjdDox', body: { query: document, operationName: 'ev', staff: 'Q29udGFjdDox' } }),
    );
    t.deepEqual(d, { courseTemplates: { edges: [{ node: { code: 'XL2', title: 'Excel Macros' } }] } });
  },
);

test.serial('when variables are {}, null or left out, then a document without variables answers the same', async (t) => {
  const query = '{ courseTemplates(order: {field: code}) { edges { node { code } } } }';
  const answers = [];
  for (const body of [{ query, variables: {} }, { query, variables: null }, { query }]) answers.push(ok(t, await send({ body })));
  t.deepEqual(codes(answers[0].courseTemplates), ['WD1', 'XL1', 'XL2']);
  t.deepEqual(answers[1], answers[0]);
  t.deepEqual(answers[2], answers[0]);
});

test.serial(
  'when a GET carries its query in a JSON body, then it runs as a query; a mutation there is refused with 405 and nothing is written',
  async (t) => {
    const body = {
      query: 'query ($filters: [CourseTemplateFieldGraphFilter]) { courseTemplates(filters: $filters) { edges { node { code } } } }',
      variables: { filters: [{ field: 'code', operation: 'eq', value: 'XL1' }] },
    };
    // Not GraphiQL, whatever the Accept header says: the request has a body.
    const d = ok(t, await send({ method: 'GET', body, headers: { accept: N8N_ACCEPT } }));
    t.deepEqual(codes(d.courseTemplates), ['XL1']);
    const stringVariables = ok(t, await send({ method: 'GET', body: { ...body, variables: JSON.stringify(body.variables) } }));
    t.deepEqual(stringVariables, d);
    const mutation = await send({
      method: 'GET',
      body: {
        query: `mutation { courseTemplate { update(courseTemplateId: "${ids.excel}", input: {title: "Changed by a GET"}) { errors { message } } } }`,
      },
    });
    t.is(mutation.status, 405);
    t.is(mutation.headers.allow, 'POST');
    t.regex(mutation.json.errors[0].message, /mutation operation from a POST/);
    t.is((await f.data(f.admin, `{ courseTemplate(id: "${ids.excel}") { title } }`)).courseTemplate.title, 'Excel Basics');
    // A document in the URL wins over a body; a body that is not JSON is the 400 a POST's would be.
    const both = ok(t, await send({ method: 'GET', path: `/graphql?${new URLSearchParams({ query: '{ hello }' })}`, body }));
    t.deepEqual(Object.keys(both), ['hello']);
    const broken = await send({ method: 'GET', rawBody: '{"query": ', headers: { 'content-type': 'application/json' } });
    t.is(broken.status, 400);
    t.deepEqual(broken.json, (await send({ rawBody: '{"query": ', headers: { 'content-type': 'application/json' } })).json);
    t.is(broken.json.errors[0].extensions.code, 'INVALID_JSON');
  },
);

test.serial('when variables are sent that the operation does not declare, then they are ignored', async (t) => {
  const d = ok(
    t,
    await send({
      body: {
        query: 'query ($first: Int) { courseTemplates(first: $first, order: {field: code, direction: desc}) { edges { node { code } } } }',
        variables: { first: 1, search: '', offset: 'not a number' },
      },
    }),
  );
  t.deepEqual(codes(d.courseTemplates), ['XL2']);
});

test.serial('when one object is sent where a list of inputs is expected, then it is a list of one', async (t) => {
  const byVariable = ok(
    t,
    await send({
      body: {
        query: 'query ($filters: [CourseTemplateFieldGraphFilter]!) { courseTemplates(filters: $filters) { edges { node { code } } } }',
        variables: { filters: { field: 'code', operation: 'eq', value: 'WD1' } },
      },
    }),
  );
  t.deepEqual(codes(byVariable.courseTemplates), ['WD1']);
  const literal = ok(
    t,
    await send({
      body: {
        query:
          '{ courseTemplates(filters: {field: lifecycleState, operation: eq, value: "published"}, order: {field: code}) { edges { node { code } } } }',
      },
    }),
  );
  t.deepEqual(codes(literal.courseTemplates), ['XL1', 'XL2']);
  const values = ok(
    t,
    await send({
      body: { query: '{ courseTemplates(filters: [{field: code, operation: in, values: "XL2"}]) { edges { node { code } } } }' },
    }),
  );
  t.deepEqual(codes(values.courseTemplates), ['XL2']);
});

test.serial(
  'when documents are anonymous, start with blank lines, and write unquoted enums, trailing commas and lists without commas, then they run',
  async (t) => {
    const literal = `

      query {
  courseTemplates(
    filters: [
      {field: lifecycleState operation: eq value: "published"}
      {field: code, operation: like, value: "XL%",}
    ],
    order: {field: title, direction: desc,},
  ) { edges { node { code } } }
}`;
    t.deepEqual(codes(ok(t, await send({ body: { query: literal, variables: {} } })).courseTemplates), ['XL2', 'XL1']);
    const anonymous = ok(
      t,
      await send({
        body: {
          query:
            '\n  query ($order: CourseTemplateFieldGraphOrder) { courseTemplates(order: $order, first: 1) { edges { node { code } } } }',
          variables: { order: { field: 'code', direction: 'asc' } },
        },
      }),
    );
    t.deepEqual(codes(anonymous.courseTemplates), ['WD1']);
    t.regex(ok(t, await send({ body: { query: '\t{ hello }\n' } })).hello, /^Hello, admin-\d+@gwh\.test!$/);
    const locales = ok(
      t,
      await send({
        body: {
          query:
            '   query{ locales(filters: [{field: code operation: in values: ["en" "fr"]}] order: {field: code}) { edges { node { code } } } }',
        },
      }),
    );
    t.deepEqual(codes(locales.locales), ['en', 'fr']);
  },
);

test.serial(
  'when WebLink is called with the same habits, then it answers them the same way (one reading of requests for both APIs)',
  async (t) => {
    const host = `${f.tenant.slug}.localhost:${f.port}`;
    const viaGet = await request(f.port, {
      method: 'GET',
      path: '/weblink/graphql',
      host,
      headers: { accept: N8N_ACCEPT },
      body: { query: '{ locales { code } }', variables: '{"search": ""}' },
    });
    t.deepEqual(ok(t, viaGet), { locales: [{ code: 'en' }] });
    const viaUrl = await request(f.port, {
      method: 'POST',
      path: `/weblink/graphql/?${new URLSearchParams({ query: '\n { locales { code name } }' })}`,
      host,
    });
    t.deepEqual(ok(t, viaUrl), { locales: [{ code: 'en', name: 'English' }] });
  },
);

test.serial(
  'GraphiQL in development: the page keeps the placeholder token from the server and fetches the schema again once the headers change',
  async (t) => {
    const page = await request(f.port, { path: '/graphql', headers: { accept: 'text/html' } });
    t.is(page.status, 200);
    t.regex(String(page.headers['content-type']), /^text\/html/);
    const guard = page.text.indexOf('window.fetch = function');
    const graphiql = page.text.indexOf('var GraphQLHelixGraphiQL=');
    const init = page.text.indexOf('GraphQLHelixGraphiQL.init(');
    const refetch = page.text.indexOf('g.fetchSchema()');
    t.true(guard > 0 && guard < graphiql, 'the fetch guard is in place before GraphiQL keeps its fetch');
    t.true(refetch > init, 'the schema is fetched again after GraphiQL started');
    const inScript = (text: string) => JSON.stringify(text).replace(/</g, '\\u003c');
    t.true(page.text.includes(`placeholder = ${inScript(GRAPHIQL_PLACEHOLDER)}`));
    t.true(page.text.includes(`hint = ${inScript(GRAPHIQL_TOKEN_HINT)}`));
    // The placeholder, were it sent, is refused as the malformed header it is; the pasted token reads the schema.
    const placeholder = await request(f.port, {
      method: 'POST',
      path: '/graphql',
      headers: { authorization: GRAPHIQL_PLACEHOLDER },
      body: { query: '{ __schema { queryType { name } } }' },
    });
    t.is(placeholder.status, 401);
    t.regex(placeholder.json.errors[0].message, /not a bearer token/);
    const schema = ok(
      t,
      await send({
        body: { query: '{ __schema { queryType { name } mutationType { name } } __type(name: "Query") { fields { name } } }' },
      }),
    );
    t.deepEqual(schema.__schema, { queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } });
    t.true(schema.__type.fields.some((field: { name: string }) => field.name === 'courseTemplates'));
    // A GET with a document in the URL is the query, not the page.
    t.deepEqual(
      ok(t, await send({ method: 'GET', path: '/graphql?query=%7B%20hello%20%7D', headers: { accept: 'text/html,application/json' } })),
      { hello: (await f.data(f.admin, '{ hello }')).hello },
    );
  },
);
