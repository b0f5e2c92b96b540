import test, { type ExecutionContext } from 'ava';
import { MAX_RECORDS_PER_REQUEST } from '../../src/kit/graphql/context.js';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * The records one request may answer from lists (MAX_RECORDS_PER_REQUEST). Lists clients read
 * whole, without `first` (a path's objectives, a template's prices), count once in the static
 * cost limit, so objectives leading to templates leading to their events could multiply an answer
 * to a hundred megabytes. Every list spends the records it answers from one budget per request;
 * past it the request answers one clear error instead, and pages as integrations send them pass.
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const paths: Record<'few' | 'many' | 'sdk', number[]> = { few: [], many: [], sdk: [] };

test.serial.before(async () => {
  f = await graphqlFixture('budget');
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const one = async (table: string, row: Record<string, unknown>) =>
      ((await db(table).insert(row).returning('id')) as { id: number }[])[0]!.id;
    // A template with 100 events, and two prices.
    ids.popular = await one('course_templates', { title: 'Popular course', code: 'POP', lifecycle_state: 'published' });
    await db('events').insert(
      Array.from({ length: 100 }, (_, i) => ({
        course_template_id: ids.popular,
        title: `Popular ${String(i).padStart(3, '0')}`,
        code: 'POP',
        lifecycle_state: 'published',
      })),
    );
    const normal = (await db('price_levels').where({ name: 'Normal' }).first('id')).id as number;
    await db('prices').insert([
      { course_template_id: ids.popular, price_level_id: normal, currency_code: 'GBP', amount: '100.00' },
      { course_template_id: ids.popular, price_level_id: normal, currency_code: 'EUR', amount: '120.00' },
    ]);
    const pathsOf = async (prefix: string, count: number, objectives: number) => {
      const made = (await db('learning_paths')
        .insert(
          Array.from({ length: count }, (_, i) => ({
            name: `${prefix} ${String(i).padStart(3, '0')}`,
            code: prefix,
            lifecycle_state: 'active',
          })),
        )
        .returning('id')) as { id: number }[];
      await db('learning_path_objectives').insert(
        made.flatMap(({ id }) =>
          Array.from({ length: objectives }, (_, i) => ({ learning_path_id: id, position: i + 1, course_template_id: ids.popular })),
        ),
      );
      return made.map((p) => p.id);
    };
    // 3 paths x 100 objectives x 100 events: 30,000 events.
    paths.few = await pathsOf('FEW', 3, 100);
    // 100 paths x 100 objectives: 10,000 objectives, 20,000 prices.
    paths.many = await pathsOf('MANY', 100, 100);
    // What a website's learning paths look like: a few steps each, a template with an active and a draft event.
    ids.fire = await one('course_templates', { title: 'Fire Safety', code: 'FS', lifecycle_state: 'published' });
    ids.drill = await one('events', { title: 'Fire drill', code: 'FS', course_template_id: ids.fire, lifecycle_state: 'published' });
    ids.draftDrill = await one('events', {
      title: 'Fire drill (draft)',
      code: 'FS',
      course_template_id: ids.fire,
      lifecycle_state: 'draft',
    });
    ids.safe = await one('learning_paths', { name: 'Safety at work', code: 'SDK', lifecycle_state: 'active' });
    ids.lead = await one('learning_paths', { name: 'Leadership', code: 'SDK', lifecycle_state: 'active' });
    await db('learning_path_objectives').insert([
      { learning_path_id: ids.safe, position: 1, course_template_id: ids.fire },
      { learning_path_id: ids.safe, position: 2, event_id: ids.drill },
      { learning_path_id: ids.lead, position: 1, course_template_id: ids.popular },
    ]);
  });
});
test.after.always(async () => f?.close());

const byCode = (code: string) => [{ field: 'code', operation: 'eq', value: code }];
const pool = () => (f.ctx.rt.knex.client as { pool: { numUsed(): number; numPendingAcquires(): number } }).pool;

/** Refused for its size: every error is the budget's, saying what to do, and nothing of the database's insides. */
function refusedForSize(
  t: ExecutionContext,
  res: { status: number; text: string; json: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] } },
) {
  t.is(res.status, 200, res.text.slice(0, 300));
  const errors = res.json.errors ?? [];
  t.is(errors.length, 1, 'the request answers one error');
  t.is(res.json.data, null, 'and none of what was read before the budget ran out');
  const codes = new Set(errors.map((e) => e.extensions?.code));
  t.deepEqual([...codes], ['ANSWER_TOO_LARGE']);
  const [error] = errors;
  t.regex(error!.message, /at most 20,000 records/);
  t.regex(error!.message, /smaller pages/);
  t.is(error!.extensions?.limit, MAX_RECORDS_PER_REQUEST);
  t.true(
    errors.every(
      (e) =>
        e.message === error!.message &&
        Object.keys(e.extensions ?? {})
          .sort()
          .join() === 'code,limit',
    ),
    'every list it stopped says the same',
  );
  t.notRegex(res.text, /select |from "|knex|postgres|\.ts:\d+|stacktrace/i);
}

test.serial(
  'when objectives lead to a template with many events past the record budget, then the request answers ANSWER_TOO_LARGE and stops at the budget',
  async (t) => {
    t.is(MAX_RECORDS_PER_REQUEST, 20_000);
    const query = `query ($filters: [LearningPathFieldGraphFilter]!) {
    learningPaths(first: 3, filters: $filters) { edges { node { name learningObjectives { edges { node { id
      ... on CourseObjective { courseTemplate { id events(first: 100) { edges { node { id title } } } } }
    } } } } } } }`;
    const res = await f.gql(f.admin, query, { filters: byCode('FEW') });
    refusedForSize(t, res);
    // Not the 30,000 events: at most what the budget allows.
    const titles = (res.text.match(/"title":/g) ?? []).length;
    t.true(titles <= MAX_RECORDS_PER_REQUEST, `${titles} events answered`);
    t.true(res.text.length < 4_000_000, `${res.text.length} bytes answered`);
    // The request's transaction ended: its connection is back in the pool, and the next request answers.
    t.is(pool().numUsed(), 0);
    t.is(pool().numPendingAcquires(), 0);
    const next = await f.data(
      f.admin,
      `query ($filters: [LearningPathFieldGraphFilter]!) { learningPaths(first: 1, filters: $filters) { edges { node { name learningObjectives { pageInfo { totalRecords } } } } } }`,
      { filters: byCode('FEW') },
    );
    t.deepEqual(next.learningPaths.edges, [{ node: { name: 'FEW 000', learningObjectives: { pageInfo: { totalRecords: 100 } } } }]);
  },
);

test.serial(
  "when whole lists (objectives, their templates' prices) multiply past the record budget, then the request answers ANSWER_TOO_LARGE",
  async (t) => {
    const query = `query ($filters: [LearningPathFieldGraphFilter]!) {
    learningPaths(first: 100, filters: $filters) { edges { node { name learningObjectives { edges { node {
      ... on CourseObjective { courseTemplate { publicPrices { edges { node { amount } } } } }
    } } } } } } }`;
    refusedForSize(t, await f.gql(f.admin, query, { filters: byCode('MANY') }));
    t.is(pool().numUsed(), 0);
  },
);

test.serial('when a page answers many records but fewer than the budget, then it answers them all', async (t) => {
  // 100 paths and their 10,000 objectives.
  const d = await f.data(
    f.admin,
    `query ($filters: [LearningPathFieldGraphFilter]!) { learningPaths(first: 100, filters: $filters, order: {field: name}) { edges { node { name learningObjectives { edges { node { id } } } } } } }`,
    { filters: byCode('MANY') },
  );
  t.is(d.learningPaths.edges.length, 100);
  t.is(d.learningPaths.edges[99].node.name, 'MANY 099');
  t.true(
    d.learningPaths.edges.every(
      (e: { node: { learningObjectives: { edges: unknown[] } } }) => e.node.learningObjectives.edges.length === 100,
    ),
  );
  // One template's 100 events for each of 100 objectives: 10,101 records.
  const events = await f.data(
    f.admin,
    `query ($filters: [LearningPathFieldGraphFilter]!) { learningPaths(first: 1, filters: $filters) { edges { node { learningObjectives { edges { node {
    ... on CourseObjective { courseTemplate { events(first: 100) { edges { node { title } } } } } } } } } } } }`,
    { filters: byCode('FEW') },
  );
  const objectives = events.learningPaths.edges[0].node.learningObjectives.edges;
  t.is(objectives.length, 100);
  t.true(
    objectives.every(
      (o: { node: { courseTemplate: { events: { edges: { node: { title: string } }[] } } } }) =>
        o.node.courseTemplate.events.edges.length === 100 && o.node.courseTemplate.events.edges[99]!.node.title === 'Popular 099',
    ),
  );
});

test.serial(
  "when the PHP SDK reads a page of learning paths with their objectives' templates and active events (its example, less the location: too deep), then the page answers as before",
  async (t) => {
    const d = await f.data(
      f.admin,
      `query ($order: LearningPathFieldGraphOrder $filters: [LearningPathFieldGraphFilter]! $eventsFilters: [EventFieldGraphFilter]!) {
      learningPaths(first: 50 offset: 0 order: $order filters: $filters) {
        pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }
        edges { node { id name learningObjectives { edges { node { id __typename
          ... on CourseObjective { courseTemplate { id events(filters: $eventsFilters) { edges { node { id title status } } } } }
        } } } } }
      } }`,
      {
        filters: byCode('SDK'),
        order: { field: 'name', direction: 'asc' },
        eventsFilters: [{ field: 'status', operation: 'eq', value: 'Active' }],
      },
    );
    t.like(d.learningPaths.pageInfo, { totalRecords: 2, hasNextPage: false, hasPreviousPage: false });
    const [lead, safe] = d.learningPaths.edges.map((e: { node: unknown }) => e.node);
    t.is(lead.name, 'Leadership');
    // The popular template's first 20 events (the default page), all active.
    const popular = lead.learningObjectives.edges[0].node.courseTemplate;
    t.is(popular.id, toGlobalId('CourseTemplate', ids.popular!));
    t.is(popular.events.edges.length, 20);
    t.deepEqual(popular.events.edges[0].node, { id: popular.events.edges[0].node.id, title: 'Popular 000', status: 'Active' });
    t.is(safe.name, 'Safety at work');
    t.deepEqual(
      safe.learningObjectives.edges.map((e: { node: { __typename: string } }) => e.node.__typename),
      ['CourseObjective', 'EventObjective'],
    );
    t.deepEqual(safe.learningObjectives.edges[0].node.courseTemplate, {
      id: toGlobalId('CourseTemplate', ids.fire!),
      events: { edges: [{ node: { id: toGlobalId('Event', ids.drill!), title: 'Fire drill', status: 'Active' } }] },
    });
  },
);

/** What a request wrote that outlives it: the paths named `name`, background jobs, outbox rows and queued jobs of the tenant. */
async function written(name: string) {
  await f.ctx.rt.dispatcher.drain();
  const [paths, jobs] = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => [
    Number((await db('learning_paths').where({ name }).count('* as n').first())!.n),
    Number((await db('background_jobs').count('* as n').first())!.n),
  ]);
  const outbox = Number((await f.ctx.rt.knex('platform.outbox').where({ tenant_id: f.tenant.id }).count('* as n').first())!.n);
  const queued = (
    await f.ctx.rt.queues
      .queue('course-templates', f.tenant.id)
      .getJobs(['waiting', 'prioritized', 'active', 'delayed', 'completed', 'failed'])
  ).filter((j) => j.data.tenantId === f.tenant.id).length;
  return { paths, jobs, outbox, queued };
}

test.serial(
  "when a mutation's answer goes past the record budget, then nothing the request wrote is kept (nor its outbox rows sent), and the answer says so",
  async (t) => {
    const name = 'Too large to answer';
    const input = {
      name,
      learningObjectives: Array.from({ length: 100 }, () => ({ courseTemplateId: toGlobalId('CourseTemplate', ids.popular!) })),
    };
    // 100 objectives, each with its template's 100 events twice: 20,100 records. The re-apply job
    // before it writes a background job and an outbox row, in the same request.
    const selection = (events: string) =>
      `learningPath { id learningObjectives { edges { node { ... on CourseObjective { courseTemplate { ${events} } } } } } }`;
    const mutation = (events: string) => `mutation ($input: LearningPathCreateInput!, $template: ID!) {
    courseTemplate { applyToEvents(courseTemplateId: $template) { backgroundJob { id } errors { message } } }
    learningPaths { create(input: $input) { ${selection(events)} errors { message } } } }`;
    const twice = 'a: events(first: 100) { edges { node { id } } } b: events(first: 100) { edges { node { id } } }';
    const variables = { input, template: toGlobalId('CourseTemplate', ids.fire!) };

    const res = await f.gql(f.admin, mutation(twice), variables);
    t.deepEqual(await written(name), { paths: 0, jobs: 0, outbox: 0, queued: 0 });
    t.is(res.status, 200, res.text.slice(0, 300));
    t.is(res.json.data, null);
    const errors = res.json.errors as { message: string; extensions: { code: string } }[];
    t.deepEqual(
      errors.map((e) => e.extensions.code),
      ['ANSWER_TOO_LARGE', 'MUTATION_ROLLED_BACK'],
    );
    t.regex(errors[1]!.message, /Nothing was written/);
    t.regex(errors[1]!.message, /fewer nested records/);
    t.is(pool().numUsed(), 0);

    // Sent again with an answer within the budget, it is written once, with its id answered.
    const again = await f.data(f.admin, mutation('a: events(first: 100) { edges { node { id } } }'), variables);
    t.regex(again.learningPaths.create.learningPath.id, /\S/);
    t.is(again.learningPaths.create.learningPath.learningObjectives.edges.length, 100);
    t.like(await written(name), { paths: 1, jobs: 1, outbox: 1, queued: 1 });
  },
);
