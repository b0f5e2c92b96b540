import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { request } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { readStatements } from '../helpers/statements.js';

/**
 * Events as the Core API's real integrations call them (real-clients.md section 3): the `events`
 * list with the filters, `order` and `orderBy` they send and the fields they select,
 * `event { update delete }` with every input key, and `CourseTemplate.events` with a nested
 * filter; through real HTTP with real bearer tokens.
 */
let f: GraphQLFixture;
let riverside: string;
let harbour: string;
let fireSafety: string;
let manualHandling: string;
/** The events every list test sees, by title. */
const ev: Record<string, { id: string; legacyId: number }> = {};

const A = 'Fire Safety - June';
const B = 'Fire Safety - July';
const C = 'First Aid 25S';
const D = 'Manual Handling 25S';
const E = 'Online Law 25S';

const legacy = (id: string) => Number(Buffer.from(id, 'base64').toString().split(':')[1]);

async function createEvent(input: Record<string, unknown>): Promise<{ id: string; legacyId: number }> {
  const d = await f.data(
    f.admin,
    'mutation ($input: ClassroomEventCreateInput!) { event { createClassroom(input: $input) { event { id legacyId } errors { label message } } } }',
    { input },
  );
  if (d.event.createClassroom.errors.length) throw new Error(JSON.stringify(d.event.createClassroom.errors));
  return d.event.createClassroom.event;
}
async function book(eventId: number, people: number): Promise<void> {
  for (let i = 0; i < people; i++) {
    const contact = (await f.api('POST', 'crm/contacts', { first_name: `Learner${i}`, last_name: `Of${eventId}` })).json;
    const res = await f.api('POST', 'event/delegates', { event_id: eventId, contact_id: contact.id });
    if (res.status >= 300) throw new Error(res.text);
  }
}
const UPDATE = (selection: string) =>
  `mutation ($eventId: ID!, $input: EventUpdateInput!) { event { update(eventId: $eventId, input: $input) { errors { label message value } event { ${selection} } } } }`;
async function update(eventId: string, input: Record<string, unknown>, selection = 'id', token = f.admin) {
  return (await f.gql(token, UPDATE(selection), { eventId, input })).json;
}

test.serial.before(async () => {
  f = await graphqlFixture('gce');
  const made = await f.data(
    f.admin,
    `mutation {
    a: location { create(input: {name: "Riverside Centre", addressTown: "London", addressCountryId: "GB", timeZoneName: "Europe/London"}) { location { id } } }
    b: location { create(input: {name: "Harbour House", addressTown: "Paris", addressCountryId: "FR", timeZoneName: "Europe/Paris"}) { location { id } } }
    fs: courseTemplate { create(input: {title: "Fire Safety", code: "FS"}) { courseTemplate { id } } }
    mh: courseTemplate { create(input: {title: "Manual Handling", code: "MH"}) { courseTemplate { id } } } }`,
  );
  riverside = made.a.create.location.id;
  harbour = made.b.create.location.id;
  fireSafety = made.fs.create.courseTemplate.id;
  manualHandling = made.mh.create.courseTemplate.id;
  for (const [key, type] of [
    ['websale', 'BOOLEAN'],
    ['email_sent', 'TEXT'],
  ]) {
    const d = await f.data(
      f.admin,
      `mutation { customFieldDefinition { create(input: {key: "${key}", label: "${key}", type: ${type}, appliesTo: EVENT}) { errors { message } } } }`,
    );
    if (d.customFieldDefinition.create.errors.length) throw new Error(JSON.stringify(d));
  }
  const classroom = { eventType: 'public' };
  ev[A] = await createEvent({
    ...classroom,
    title: A,
    code: 'FS-25',
    courseTemplateId: fireSafety,
    locationId: riverside,
    timeZoneName: 'Europe/London',
    classroomStartDateTime: '2027-06-10T09:00',
    classroomEndDateTime: '2027-06-10T17:00',
    maxPlaces: 12,
    minPlaces: 2,
  });
  ev[B] = await createEvent({
    ...classroom,
    title: B,
    code: 'FS-25',
    courseTemplateId: fireSafety,
    timeZoneName: 'America/New_York',
    classroomStartDateTime: '2027-07-15T09:00',
    classroomEndDateTime: '2027-07-15T12:00',
    lifecycleState: 'draft',
  });
  ev[C] = await createEvent({
    ...classroom,
    title: C,
    code: 'FA-25S',
    timeZoneName: 'Europe/London',
    classroomStartDateTime: '2027-06-09T09:00',
    classroomEndDateTime: '2027-06-09T17:00',
    maxPlaces: 2,
  });
  ev[D] = await createEvent({
    ...classroom,
    title: D,
    code: 'MH-25S',
    courseTemplateId: manualHandling,
    timeZoneName: 'UTC',
    classroomStartDateTime: '2027-05-03T10:00',
    classroomEndDateTime: '2027-05-03T12:00',
  });
  ev[E] = await createEvent({ ...classroom, title: E, code: 'OL-25S', courseTemplateId: manualHandling, timeZoneName: 'Europe/London' });
  // An online event, with what only the REST API (venue) or the data (its LMS period) sets.
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    // The venue it names (events' venue_id is a venue's since migration 018).
    await db('venues').insert({ id: 25, name: 'Hall 3' });
    await db('events').where({ id: ev[E]!.legacyId }).update({
      delivery_method: 'lms',
      lms_start: '2027-09-01T09:00',
      lms_end: '2027-12-01T17:00',
      registration_deadline: '2027-08-25',
      venue_id: 25,
      venue: 'Hall 3',
    });
  });
  const cancelled = await update(ev[D]!.id, { lifecycleState: 'cancelled' });
  if (cancelled.errors || cancelled.data.event.update.errors.length) throw new Error(JSON.stringify(cancelled));
  await book(ev[A]!.legacyId, 1);
  await book(ev[C]!.legacyId, 2);
});
test.after.always(async () => f?.close());

const titles = (d: { events: { edges: { node: { title: string } }[] } }) => d.events.edges.map((e) => e.node.title);
const listed = async (filters: unknown[]) =>
  titles(
    await f.data(
      f.admin,
      'query ($filters: [EventFieldGraphFilter]) { events(filters: $filters, first: 100) { edges { node { title } } } }',
      { filters },
    ),
  );

test.serial(
  'when events are listed with the fields an SDK selects (order and filters as variables), then each field answers its value',
  async (t) => {
    const d = await f.data(
      f.admin,
      `query ($order: EventFieldGraphOrder $filters: [EventFieldGraphFilter]!) { events(first: 25 offset: 0 order: $order filters: $filters) {
      pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }
      edges { node { id title status price classroomStart classroomEnd lmsStart lmsEnd start end bookedPlaces remainingPlaces maxPlaces
        location { id name } courseTemplate { id code title } } } } }`,
      { filters: [], order: { field: 'id', direction: 'desc' } },
    );
    t.deepEqual(titles(d), [E, D, C, B, A]);
    t.like(d.events.pageInfo, { totalRecords: 5, hasNextPage: false, hasPreviousPage: false });
    const byTitle = Object.fromEntries(d.events.edges.map((e: { node: { title: string } }) => [e.node.title, e.node]));
    t.deepEqual(byTitle[A], {
      id: ev[A]!.id,
      title: A,
      status: 'Active',
      price: null,
      classroomStart: '2027-06-10T08:00:00Z',
      classroomEnd: '2027-06-10T16:00:00Z',
      lmsStart: null,
      lmsEnd: null,
      start: '2027-06-10T08:00:00Z',
      end: '2027-06-10T16:00:00Z',
      bookedPlaces: 1,
      remainingPlaces: 11,
      maxPlaces: 12,
      location: { id: riverside, name: 'Riverside Centre' },
      courseTemplate: { id: fireSafety, code: 'FS', title: 'Fire Safety' },
    });
    // New York in July is four hours behind UTC; a draft is not Active; no maximum, no places left counted.
    t.like(byTitle[B], {
      status: 'Draft',
      start: '2027-07-15T13:00:00Z',
      end: '2027-07-15T16:00:00Z',
      bookedPlaces: 0,
      remainingPlaces: null,
      location: null,
    });
    t.like(byTitle[C], { status: 'Active', bookedPlaces: 2, remainingPlaces: 0, courseTemplate: null });
    t.like(byTitle[D], { status: 'Cancelled', start: '2027-05-03T10:00:00Z' });
    // An online event: its LMS period is its period (London in December is on UTC).
    t.like(byTitle[E], {
      classroomStart: null,
      lmsStart: '2027-09-01T08:00:00Z',
      lmsEnd: '2027-12-01T17:00:00Z',
      start: '2027-09-01T08:00:00Z',
      end: '2027-12-01T17:00:00Z',
    });
  },
);

test.serial(
  'when a sync service pages events by title word and lifecycle state, then it reads their state, places, dates and custom fields',
  async (t) => {
    const query = `query Sync($sitting: String!, $state: String!, $first: Int!, $offset: Int) {
    events(filters: [{ field: title, operation: wordlike, value: $sitting }, { field: lifecycleState, operation: eq, value: $state }] first: $first offset: $offset) {
      pageInfo { totalRecords hasNextPage }
      edges { node { id title lifecycleState cancelledAt isSoldOut learningMode maxPlaces minPlaces location { id } venue { id } courseTemplate { id }
        timeZoneName lmsStart lmsEnd registrationDeadline updatedAt customFieldValues { definitionKey value } } } } }`;
    // The state as the sync service spells it by default: upper case.
    const first = await f.data(f.admin, query, { sitting: '25S', state: 'PUBLISHED', first: 1, offset: 0 });
    t.deepEqual(first.events.pageInfo, { totalRecords: 2, hasNextPage: true });
    t.like(first.events.edges[0].node, {
      title: C,
      lifecycleState: 'published',
      cancelledAt: null,
      isSoldOut: true,
      learningMode: 'CLASSROOM',
      maxPlaces: 2,
      minPlaces: null,
      location: null,
      venue: null,
      courseTemplate: null,
    });
    const second = await f.data(f.admin, query, { sitting: '25S', state: 'published', first: 1, offset: 1 });
    t.deepEqual(second.events.pageInfo, { totalRecords: 2, hasNextPage: false });
    const online = second.events.edges[0].node;
    t.like(online, {
      title: E,
      isSoldOut: false,
      learningMode: 'LMS',
      venue: { id: toGlobalId('Venue', 25) },
      courseTemplate: { id: manualHandling },
      timeZoneName: 'Europe/London',
      lmsStart: '2027-09-01T08:00:00Z',
      lmsEnd: '2027-12-01T17:00:00Z',
      registrationDeadline: '2027-08-25T22:59:59Z',
      customFieldValues: [],
    });
    t.regex(online.updatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // The cancelled one, through node(id:) as a webhook payload reads it.
    const node = (
      await f.data(
        f.admin,
        'query ($objectid: ID!) { node(id: $objectid) { id ... on Event { title lifecycleState cancelledAt isSoldOut } } }',
        { objectid: ev[D]!.id },
      )
    ).node;
    t.like(node, { title: D, lifecycleState: 'cancelled', isSoldOut: false });
    t.regex(node.cancelledAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  },
);

test.serial('when events are filtered on each field clients name, then each filter keeps exactly the events it describes', async (t) => {
  const cases: [unknown, string[]][] = [
    [{ field: 'id', operation: 'eq', value: ev[C]!.id }, [C]],
    [{ field: 'title', operation: 'wordlike', value: '25S' }, [C, D, E]],
    [{ field: 'code', operation: 'eq', value: 'FS-25' }, [A, B]],
    [{ field: 'status', operation: 'eq', value: 'Active' }, [A, C, E]],
    [{ field: 'status', operation: 'eq', value: 'cancelled' }, [D]],
    [{ field: 'status', operation: 'in', values: ['Draft', 'Cancelled'] }, [B, D]],
    [{ field: 'isActive', operation: 'eq', value: 'true' }, [A, C, E]],
    [{ field: 'lifecycleState', operation: 'eq', value: 'published' }, [A, C, E]],
    [{ field: 'lifecycleState', operation: 'ne', value: 'PUBLISHED' }, [B, D]],
    [{ field: 'start', operation: 'ge', value: '2027-06-10' }, [A, B, E]],
    [{ field: 'start', operation: 'ge', value: '2027-06-10T08:00:01Z' }, [B, E]],
    [{ field: 'start', operation: 'lt', value: '2027-06-10T10:00:00+02:00' }, [C, D]],
    [{ field: 'end', operation: 'le', value: '2027-06-10T16:00:00Z' }, [A, C, D]],
    [{ field: 'timeZonedStart', operation: 'ge', value: '2027-07-15T09:00' }, [B, E]],
    [{ field: 'timeZonedEnd', operation: 'lt', value: '2027-06-10' }, [C, D]],
    [{ field: 'classroomStart', operation: 'lt', value: '2027-06-01' }, [D]],
    [{ field: 'classroomEnd', operation: 'isnull' }, [E]],
    [{ field: 'lmsStart', operation: 'notnull' }, [E]],
    [{ field: 'lmsEnd', operation: 'ge', value: '2027-12-01T17:00:00Z' }, [E]],
    [{ field: 'courseTemplateTitle', operation: 'like', value: 'manual%' }, [D, E]],
    [{ field: 'courseTemplateCode', operation: 'eq', value: 'FS' }, [A, B]],
    [{ field: 'locationName', operation: 'eq', value: 'Riverside Centre' }, [A]],
    [{ field: 'locationId', operation: 'eq', value: riverside }, [A]],
    [{ field: 'isSoldOut', operation: 'eq', value: 'true' }, [C]],
    [{ field: 'hasPlacesRemaining', operation: 'eq', value: 'false' }, [C]],
    [{ field: 'remainingPlaces', operation: 'le', value: '0' }, [C]],
    [{ field: 'remainingPlaces', operation: 'isnull' }, [B, D, E]],
    [{ field: 'bookedPlaces', operation: 'eq', value: '1' }, [A]],
    [{ field: 'bookedPlaces', operation: 'ge', value: '1' }, [A, C]],
    [{ field: 'maxPlaces', operation: 'ge', value: '10' }, [A]],
    [{ field: 'minPlaces', operation: 'eq', value: '2' }, [A]],
    [{ field: 'learningMode', operation: 'eq', value: 'LMS' }, [E]],
    [{ field: 'learningMode', operation: 'eq', value: 'classroom' }, [A, B, C, D]],
    [{ field: 'textSearch', operation: 'eq', value: 'fire june' }, [A]],
    [{ field: 'textSearch', operation: 'eq', value: 'riverside' }, [A]],
    [{ field: 'eventOrCourseCodeOrTitle', operation: 'eq', value: 'fs' }, [A, B]],
    [{ field: 'eventOrCourseCodeOrTitle', operation: 'like', value: '%handling%' }, [D, E]],
    [{ field: 'dayOfWeek', operation: 'eq', value: 'Monday' }, [D]],
    [{ field: 'dayOfWeek', operation: 'in', values: ['Thu', '3'] }, [A, B, C, E]],
    [{ field: 'cancelledAt', operation: 'notnull' }, [D]],
    [{ field: 'createdAt', operation: 'ge', value: '2020-01-01T00:00:00Z' }, [A, B, C, D, E]],
    [{ field: 'updatedAt', operation: 'lt', value: '2020-01-01' }, []],
  ];
  for (const [filter, expected] of cases) t.deepEqual(await listed([filter]), expected, JSON.stringify(filter));
  // The filters of a client that asks for active events from a date, in the URL's query.
  const res = await request(f.port, {
    method: 'POST',
    path: `/graphql?query=${encodeURIComponent('query getEvents { events(filters: [{ field: lifecycleState, operation: eq, value: "published" },{ field: isActive, operation: eq, value: "true" },{ field: start, operation: ge, value: "2027-06-01" }], first: 10, offset: 0) { pageInfo {hasNextPage endCursor} edges { node { title isActive bookedPlaces reserved maxPlaces targetFillRate } } } }')}`,
    host: `localhost:${f.port}`,
    headers: { authorization: `Bearer ${f.admin}` },
  });
  t.is(res.status, 200, res.text);
  t.deepEqual(
    res.json.data.events.edges.map((e: { node: unknown }) => e.node),
    [
      { title: A, isActive: true, bookedPlaces: 1, reserved: 0, maxPlaces: 12, targetFillRate: null },
      { title: C, isActive: true, bookedPlaces: 2, reserved: 0, maxPlaces: 2, targetFillRate: null },
      { title: E, isActive: true, bookedPlaces: 0, reserved: 0, maxPlaces: null, targetFillRate: null },
    ],
  );
  t.false(res.json.data.events.pageInfo.hasNextPage);
});

test.serial(
  'when a filter is malformed or names what Lectern does not keep, then the request fails with a message naming it',
  async (t) => {
    const fails = async (filters: unknown[]) =>
      (
        await f.gql(f.admin, 'query ($filters: [EventFieldGraphFilter]) { events(filters: $filters) { edges { node { id } } } }', {
          filters,
        })
      ).json.errors[0].message as string;
    t.regex(
      await fails([{ field: 'status', operation: 'eq', value: 'Sleeping' }]),
      /status: 'Sleeping' is not one of Active, Draft, Cancelled/,
    );
    t.regex(await fails([{ field: 'start', operation: 'ge', value: 'June' }]), /start: 'June' is not a date-time/);
    t.regex(await fails([{ field: 'dayOfWeek', operation: 'eq', value: 'Someday' }]), /dayOfWeek: 'Someday' is not one of Mon/);
    t.regex(await fails([{ field: 'textSearch', operation: 'gt', value: 'x' }]), /textSearch takes eq, like, contains/);
    t.regex(await fails([{ field: 'bookedPlaces', operation: 'eq', value: 'two' }]), /not a whole number/);
    t.regex(await fails([{ field: 'bookingAccountId', operation: 'eq', value: 'x' }]), /EventFilterField/);
  },
);

test.serial('when events are ordered by orderBy (a list) or order, then they come in that order; both at once is refused', async (t) => {
  const query = (args: string) => `query ev { events(${args}) { edges { node { id code title learningMode start end timeZoneName } } } }`;
  // As a workflow sends it: a literal orderBy list, an operation name and extra body keys.
  const res = await request(f.port, {
    method: 'POST',
    path: '/graphql?staff=123',
    host: `localhost:${f.port}`,
    headers: { authorization: `Bearer ${f.admin}` },
    body: {
      query: query('orderBy: [{field: code, direction: asc}, {field: timeZonedStart, direction: desc}]'),
      operationName: 'ev',
      staff: '123',
    },
  });
  t.is(res.status, 200, res.text);
  t.deepEqual(titles(res.json.data), [C, B, A, D, E]);
  t.like(res.json.data.events.edges[1].node, {
    code: 'FS-25',
    learningMode: 'CLASSROOM',
    start: '2027-07-15T13:00:00Z',
    end: '2027-07-15T16:00:00Z',
    timeZoneName: 'America/New_York',
  });
  t.deepEqual(titles(await f.data(f.admin, query('orderBy: [{field: code}, {field: timeZonedStart}]'))), [C, A, B, D, E]);
  t.deepEqual(titles(await f.data(f.admin, query('orderBy: [{field: start, direction: desc}]'))), [E, B, A, C, D]);
  t.deepEqual(titles(await f.data(f.admin, query('orderBy: {field: title, direction: asc}'))), [B, A, C, D, E]);
  t.deepEqual(titles(await f.data(f.admin, query('order: {field: timeZonedStart, direction: asc}'))), [D, C, A, B, E]);
  t.deepEqual(
    titles(
      await f.data(f.admin, query('order: {field: id, direction: desc}, filters: [{field: title, operation: wordlike, value: "25S"}]')),
    ),
    [E, D, C],
  );
  const both = await f.gql(f.admin, query('order: {field: id}, orderBy: [{field: code}]'));
  t.regex(both.json.errors[0].message, /either order or orderBy/);
  t.is(both.json.data, null);
});

test.serial(
  "when a course template list asks for each template's events with a nested status filter, then each template answers its active events",
  async (t) => {
    // A page of 50, as the PHP SDK asks for it: each template's events count at their default page of 20.
    const query = `query ($order: CourseTemplateFieldGraphOrder $filters: [CourseTemplateFieldGraphFilter]! $eventsFilters: [EventFieldGraphFilter]!) {
    courseTemplates(order: $order first: 50 offset: 0 filters: $filters) { pageInfo { totalRecords }
      edges { node { id legacyId lifecycleState code title events(filters: $eventsFilters) { edges { node { id title price status location { id name } } } } } } } }`;
    const d = await f.data(f.admin, query, {
      filters: [{ field: 'code', operation: 'in', values: ['FS', 'MH'] }],
      order: { field: 'title', direction: 'asc' },
      eventsFilters: [{ field: 'status', operation: 'eq', value: 'Active' }],
    });
    t.deepEqual(
      d.courseTemplates.edges.map((e: { node: { code: string; events: unknown } }) => [e.node.code, e.node.events]),
      [
        [
          'FS',
          {
            edges: [
              { node: { id: ev[A]!.id, title: A, price: null, status: 'Active', location: { id: riverside, name: 'Riverside Centre' } } },
            ],
          },
        ],
        ['MH', { edges: [{ node: { id: ev[E]!.id, title: E, price: null, status: 'Active', location: null } }] }],
      ],
    );
    // Pages, order and totals per template.
    const paged = await f.data(
      f.admin,
      `query ($id: ID!) { courseTemplate(id: $id) {
    all: events { pageInfo { totalRecords } edges { node { title } } }
    second: events(first: 1, offset: 1, orderBy: [{field: start, direction: asc}]) { pageInfo { totalRecords hasNextPage hasPreviousPage } edges { node { title } } }
    none: events(first: 0) { pageInfo { totalRecords hasNextPage } edges { node { title } } }
    past: events(filters: [{field: start, operation: ge, value: "2030-01-01"}], offset: 1) { pageInfo { totalRecords } edges { node { title } } } } }`,
      { id: fireSafety },
    );
    t.deepEqual(paged.courseTemplate, {
      all: { pageInfo: { totalRecords: 2 }, edges: [{ node: { title: A } }, { node: { title: B } }] },
      second: { pageInfo: { totalRecords: 2, hasNextPage: false, hasPreviousPage: true }, edges: [{ node: { title: B } }] },
      none: { pageInfo: { totalRecords: 2, hasNextPage: true }, edges: [] },
      past: { pageInfo: { totalRecords: 0 }, edges: [] },
    });
  },
);

test.serial('when a page of course templates lists their events, then it takes as many statements for 10 templates as for 2', async (t) => {
  const ids = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const templates = await db('course_templates')
      .insert(Array.from({ length: 10 }, (_, i) => ({ title: `Batch ${i}`, code: `BT-${i}` })))
      .returning('id');
    await db('events').insert(
      templates.map((tpl: { id: number }) => ({ course_template_id: tpl.id, title: `Batch event ${tpl.id}`, code: 'BT' })),
    );
    return templates.map((tpl: { id: number }) => tpl.id);
  });
  const query = `query ($first: Int) { courseTemplates(first: $first, filters: [{field: code, operation: like, value: "BT-%"}], order: {field: code}) { edges { node { code
    events(filters: [{field: status, operation: eq, value: "Active"}]) { pageInfo { totalRecords } edges { node { title status bookedPlaces } } } } } } }`;
  const statements = async (first: number) => {
    const { sql, result: d } = await readStatements(f.ctx.rt.knex, () => f.data(f.admin, query, { first }));
    return {
      count: sql.length,
      templates: d.courseTemplates.edges as { node: { events: { pageInfo: { totalRecords: number }; edges: unknown[] } } }[],
    };
  };
  // The token and its user are read on first use only (then cached): counted after that.
  await statements(1);
  const small = await statements(2);
  const large = await statements(10);
  t.is(large.templates.length, 10);
  t.true(large.templates.every((e) => e.node.events.pageInfo.totalRecords === 1 && e.node.events.edges.length === 1));
  t.is(large.count, small.count, `statements: ${small.count} for 2 templates, ${large.count} for 10`);
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    await db('events').whereIn('course_template_id', ids).delete();
    await db('course_templates').whereIn('id', ids).delete();
  });
});

const FIELDS = `id title inheritsTitle code lifecycleState isCancelled status isActive cancelledAt isSoldOut hasPlacesRemaining internalNotes externalNotes
  location { name } courseTemplate { code } timeZoneName classroomStart minPlaces maxPlaces targetFillRate registrationDeadline registrationOpensAt
  remoteMeeting { url } customFieldValues { definitionKey value } updatedAt`;

test.serial('when an event is updated with each input key in turn, then each changes what it names and nothing else', async (t) => {
  const { id } = await createEvent({
    eventType: 'public',
    title: 'Update me',
    code: 'UPD-1',
    courseTemplateId: fireSafety,
    timeZoneName: 'Europe/London',
    classroomStartDateTime: '2027-06-10T09:00',
    maxPlaces: 10,
  });
  const steps: [Record<string, unknown>, Record<string, unknown>][] = [
    [{ title: 'Fire Safety - June (moved)' }, { title: 'Fire Safety - June (moved)', inheritsTitle: false }],
    [{ code: 'UPD-2' }, { code: 'UPD-2' }],
    [{ locationId: harbour }, { location: { name: 'Harbour House' } }],
    // The local time stays 09:00: in Paris that is 07:00 UTC.
    [{ timeZoneName: 'Europe/Paris' }, { timeZoneName: 'Europe/Paris', classroomStart: '2027-06-10T07:00:00Z' }],
    [{ minPlaces: 3 }, { minPlaces: 3 }],
    [{ maxPlaces: 14 }, { maxPlaces: 14 }],
    [{ targetFillRate: 75 }, { targetFillRate: 75 }],
    [{ courseTemplateId: manualHandling }, { courseTemplate: { code: 'MH' } }],
    [{ registrationDeadline: '2027-06-01' }, { registrationDeadline: '2027-06-01T21:59:59Z' }],
    [{ registrationOpensAt: '2027-05-01T09:00' }, { registrationOpensAt: '2027-05-01T07:00:00Z' }],
    [{ internalNotes: 'moved room\nsee Jo' }, { internalNotes: 'moved room\nsee Jo' }],
    [{ externalNotes: 'Bring boots' }, { externalNotes: 'Bring boots' }],
    [{ remoteMeetingUrl: 'https://meet.example.com/fire' }, { remoteMeeting: { url: 'https://meet.example.com/fire' } }],
    [{ isSoldOut: true }, { isSoldOut: true, hasPlacesRemaining: false }],
    [
      {
        customFieldValues: [
          { definitionKey: 'websale', value: 'true' },
          { definitionKey: 'email_sent', value: 'no' },
        ],
      },
      {
        customFieldValues: [
          { definitionKey: 'websale', value: 'true' },
          { definitionKey: 'email_sent', value: 'no' },
        ],
      },
    ],
    [{ lifecycleState: 'draft' }, { lifecycleState: 'draft', status: 'Draft', isActive: false }],
    [
      { lifecycleState: 'published' },
      { lifecycleState: 'published', status: 'Active', isActive: true, isCancelled: false, cancelledAt: null },
    ],
  ];
  let before = (await f.data(f.admin, `query ($id: ID!) { node(id: $id) { ... on Event { ${FIELDS} } } }`, { id })).node;
  for (const [input, changed] of steps) {
    const res = await update(id, input, FIELDS);
    t.deepEqual(res.data.event.update.errors, [], JSON.stringify(input));
    const after = res.data.event.update.event;
    const { updatedAt: _a, ...rest } = after;
    const { updatedAt: _b, ...was } = before;
    t.deepEqual(rest, { ...was, ...changed }, JSON.stringify(input));
    before = after;
  }
  // null clears what may be empty.
  const cleared = await update(
    id,
    {
      code: null,
      locationId: null,
      targetFillRate: null,
      registrationDeadline: null,
      remoteMeetingUrl: null,
      internalNotes: null,
      customFieldValues: [{ definitionKey: 'email_sent', value: null }],
    },
    FIELDS,
  );
  t.like(cleared.data.event.update.event, {
    code: null,
    location: null,
    targetFillRate: null,
    registrationDeadline: null,
    remoteMeeting: null,
    internalNotes: null,
    customFieldValues: [{ definitionKey: 'websale', value: 'true' }],
  });
  // The REST API sees the same row: sold out by hand, its new title and places.
  const rest = (await f.api('GET', `event/public_events/${legacy(id)}`)).json;
  t.like(rest, { title: 'Fire Safety - June (moved)', delegates_max: 14, is_sold_out: true, is_cancelled: false });
});

test.serial(
  'when an event is cancelled and taken back, then its status, isCancelled and cancelledAt follow, for the REST API too',
  async (t) => {
    const { id } = await createEvent({ eventType: 'public', title: 'Cancel me', timeZoneName: 'UTC' });
    // As a sync service sets it: the state in a variable of type EventLifecycleState, a trailing comma.
    const cancel = await f.gql(
      f.admin,
      'mutation setEventActive($eventId: ID!, $lifecycleState: EventLifecycleState!) { event { update(eventId: $eventId, input: { lifecycleState: $lifecycleState, }) { errors { label value message } } } }',
      { eventId: id, lifecycleState: 'cancelled' },
    );
    t.deepEqual(cancel.json, { data: { event: { update: { errors: [] } } } });
    const read = async () =>
      (
        await f.data(f.admin, 'query ($id: ID!) { node(id: $id) { ... on Event { lifecycleState isCancelled status cancelledAt } } }', {
          id,
        })
      ).node;
    const cancelled = await read();
    t.like(cancelled, { lifecycleState: 'cancelled', isCancelled: true, status: 'Cancelled' });
    t.regex(cancelled.cancelledAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    t.true(Math.abs(Date.parse(cancelled.cancelledAt) - Date.now()) < 5 * 60000);
    t.like((await f.api('GET', `event/public_events/${legacy(id)}`)).json, { is_cancelled: true });
    // Cancelling again keeps the first time.
    await update(id, { lifecycleState: 'cancelled' });
    t.is((await read()).cancelledAt, cancelled.cancelledAt);
    // As a scheduler publishes it: an enum literal.
    const published = await f.data(
      f.admin,
      `mutation PublishEvent { event { update(eventId: "${id}" input: { lifecycleState: published }) { event { id legacyId lifecycleState } errors { label message value } } } }`,
    );
    t.deepEqual(published.event.update, { event: { id, legacyId: legacy(id), lifecycleState: 'published' }, errors: [] });
    t.deepEqual(await read(), { lifecycleState: 'published', isCancelled: false, status: 'Active', cancelledAt: null });
    // The REST API cancels it too: cancelledAt is set as it does.
    await f.api('PUT', `event/public_events/${legacy(id)}`, { is_cancelled: true });
    const viaRest = await read();
    t.like(viaRest, { status: 'Cancelled', isCancelled: true });
    t.truthy(viaRest.cancelledAt);
  },
);

test.serial('when integrations send their update forms (sold out, notes, custom fields), then each is written', async (t) => {
  const { id } = await createEvent({ eventType: 'public', title: 'CB1-01-24S', timeZoneName: 'Europe/London' });
  const soldOut = await f.data(
    f.admin,
    'mutation setEventSoldOut($eventId: ID!, $isSoldOut: Boolean!) { event { update(eventId: $eventId, input: { isSoldOut: $isSoldOut }) { event { id } errors { label value message } } } }',
    { eventId: id, isSoldOut: true },
  );
  t.deepEqual(soldOut.event.update, { event: { id }, errors: [] });
  // A literal with a trailing comma and blank lines; only the label of errors selected.
  const notes = await f.data(
    f.admin,
    `mutation EventUpdate{ event{ update( eventId:"${id}", input:{ internalNotes:"Instructor accepted: Jane Doe",


  }){ errors{ label } event{ id } } } }`,
  );
  t.deepEqual(notes.event.update, { errors: [], event: { id } });
  // An anonymous mutation: a custom field by key in the document, its value in a variable; no errors selected.
  const value = await f.data(
    f.admin,
    'mutation ($eventId: ID!, $emailSentValue: String!) { event { update(eventId: $eventId, input: { customFieldValues: [ { definitionKey: "email_sent", value: $emailSentValue } ] }) { event { id } } } }',
    { eventId: id, emailSentValue: 'true' },
  );
  t.deepEqual(value.event.update, { event: { id } });
  // Two custom fields and a title in one literal.
  const both = await f.data(
    f.admin,
    `mutation { event { update(eventId: "${id}", input: { customFieldValues: [{definitionKey: "email_sent", value: "24S"},{definitionKey: "websale", value: "false"}] title:"CB1-01-24S (2)" }) { event { id } errors { label value message } } } }`,
  );
  t.deepEqual(both.event.update.errors, []);
  const read = (
    await f.data(
      f.admin,
      'query ($id: ID!) { node(id: $id) { ... on Event { title isSoldOut internalNotes customFieldValues { definitionKey value definition { key label } } } } }',
      { id },
    )
  ).node;
  t.deepEqual(read, {
    title: 'CB1-01-24S (2)',
    isSoldOut: true,
    internalNotes: 'Instructor accepted: Jane Doe',
    customFieldValues: [
      { definitionKey: 'websale', value: 'false', definition: { key: 'websale', label: 'websale' } },
      { definitionKey: 'email_sent', value: '24S', definition: { key: 'email_sent', label: 'email_sent' } },
    ],
  });
  // The workflow's form: the whole input in a variable.
  const mcp = await f.data(
    f.admin,
    'mutation mcpUpdateEvent($eventId: ID!, $input: EventUpdateInput!) { event { update(eventId: $eventId, input: $input) { errors { label message value } event { id title code start end lifecycleState maxPlaces } } } }',
    {
      eventId: id,
      input: { title: 'Fire Safety - June (moved)', maxPlaces: 14, lifecycleState: 'published', internalNotes: 'moved room' },
    },
  );
  t.deepEqual(mcp.event.update, {
    errors: [],
    event: { id, title: 'Fire Safety - June (moved)', code: null, start: null, end: null, lifecycleState: 'published', maxPlaces: 14 },
  });
});

test.serial('when an update is refused, then the errors name each field with the value given, and nothing is written', async (t) => {
  const { id } = await createEvent({
    eventType: 'public',
    title: 'Refuse me',
    code: 'REF-1',
    timeZoneName: 'Europe/London',
    maxPlaces: 10,
    minPlaces: 2,
  });
  const snapshot = () =>
    withTenant(f.ctx.rt.knex, f.tenant, async (db) => ({
      row: await db('events')
        .where({ id: legacy(id) })
        .first(),
      values: await db('event_field_values').where({ event_id: legacy(id) }),
    }));
  const before = await snapshot();
  const missing = toGlobalId('Location', 999999);
  const cases: [Record<string, unknown>, string, RegExp, string | null][] = [
    [{ title: '' }, 'title', /1 to 255/, ''],
    [{ title: null }, 'title', /1 to 255/, null],
    [{ code: 'A\nB' }, 'code', /one line/, 'A\nB'],
    [{ locationId: missing }, 'locationId', /Location not found/, missing],
    [{ courseTemplateId: riverside }, 'courseTemplateId', /Course Template not found/, riverside],
    [{ timeZoneName: 'Mars/Olympus' }, 'timeZoneName', /IANA/, 'Mars/Olympus'],
    [{ timeZoneName: null }, 'timeZoneName', /IANA/, null],
    [{ maxPlaces: -1 }, 'maxPlaces', /from 0 to/, '-1'],
    [{ maxPlaces: 1 }, 'maxPlaces', /not be less than minPlaces/, '1'],
    [{ minPlaces: 11 }, 'minPlaces', /must not exceed maxPlaces/, '11'],
    [{ targetFillRate: 101 }, 'targetFillRate', /0 to 100/, '101'],
    [{ registrationDeadline: '2027-13-01' }, 'registrationDeadline', /a date such as/, '2027-13-01'],
    [{ registrationOpensAt: '2027-05-01T09:00:00Z' }, 'registrationOpensAt', /without a zone/, '2027-05-01T09:00:00Z'],
    [{ remoteMeetingUrl: 'ftp://files.example.com' }, 'remoteMeetingUrl', /http or https/, 'ftp://files.example.com'],
    [{ lifecycleState: null }, 'lifecycleState', /draft, published, cancelled/, null],
    [{ isSoldOut: null }, 'isSoldOut', /true or false/, null],
    [{ internalNotes: 'x'.repeat(10001) }, 'internalNotes', /at most 10000/, 'x'.repeat(10001)],
    [{ customFieldValues: [{ definitionKey: 'nope', value: 'x' }] }, 'customFieldValues[0].definitionKey', /does not exist/, 'nope'],
    [{ customFieldValues: [{ definitionKey: 'websale', value: 'maybe' }] }, 'customFieldValues[0].value', /'true' or 'false'/, 'maybe'],
  ];
  for (const [input, label, message, value] of cases) {
    const res = await update(id, {
      ...input,
      title: 'title' in input ? input.title : 'Written?',
      lifecycleState: 'lifecycleState' in input ? input.lifecycleState : 'cancelled',
    });
    const { event, errors } = res.data.event.update;
    t.is(event, null, JSON.stringify(input));
    t.deepEqual(
      errors.map((e: { label: string }) => e.label),
      [label],
      JSON.stringify(input),
    );
    t.regex(errors[0].message, message);
    t.is(errors[0].value, value);
  }
  t.deepEqual(await snapshot(), before);
  for (const eventId of ['garbage', riverside, toGlobalId('Event', 999999)]) {
    t.deepEqual((await update(eventId, { title: 'x' })).data.event.update, {
      event: null,
      errors: [{ label: 'eventId', message: 'Event not found', value: eventId }],
    });
  }
  const badEnum = await f.gql(f.admin, UPDATE('id'), { eventId: id, input: { lifecycleState: 'archived' } });
  t.regex(badEnum.json.errors[0].message, /EventLifecycleState/);
});

test.serial(
  'when events are deleted, then they are gone; an event with delegates or orders, or one not found, refuses the whole call',
  async (t) => {
    const make = (title: string) => createEvent({ eventType: 'public', title, timeZoneName: 'UTC' });
    const [one, two, held, ordered] = [await make('Delete 1'), await make('Delete 2'), await make('Held'), await make('Ordered')];
    await book(held.legacyId, 1);
    await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      const [contact] = await db('contacts').insert({ first_name: 'Buyer', last_name: 'One' }).returning('id');
      const [order] = await db('opportunities').insert({ state: 'received', contact_id: contact.id }).returning('id');
      await db('opportunity_lines').insert({
        opportunity_id: order.id,
        position: 1,
        kind: 'event',
        event_id: ordered.legacyId,
        quantity: 1,
        unit_price: 10,
      });
    });
    const DELETE =
      'mutation deleteEvents($eventids: [ID]!) { event { delete(input: { eventIds: $eventids }) { eventIds errors { label message value } } } }';
    const exists = (e: { id: string }) =>
      f.data(f.admin, 'query ($id: ID!) { node(id: $id) { id } }', { id: e.id }).then((d) => d.node !== null);

    const refused = (await f.data(f.admin, DELETE, { eventids: [one.id, held.id, ordered.id, 'garbage', null, two.id] })).event.delete;
    t.deepEqual(refused, {
      eventIds: [],
      errors: [
        { label: 'eventIds[1]', message: 'Event has delegates and cannot be deleted (cancel it instead)', value: held.id },
        { label: 'eventIds[2]', message: 'Event is on orders and cannot be deleted (cancel it instead)', value: ordered.id },
        { label: 'eventIds[3]', message: 'Event not found', value: 'garbage' },
        { label: 'eventIds[4]', message: 'An event id is required', value: null },
      ],
    });
    t.deepEqual(await Promise.all([one, two, held, ordered].map(exists)), [true, true, true, true]);

    const done = (await f.data(f.admin, DELETE, { eventids: [one.id, two.id, one.id] })).event.delete;
    t.deepEqual(done, { eventIds: [one.id, two.id], errors: [] });
    t.deepEqual(await Promise.all([one, two].map(exists)), [false, false]);
    t.is((await f.api('GET', `event/public_events/${one.legacyId}`)).status, 404);
    // Deleted already: not found.
    t.deepEqual((await f.data(f.admin, DELETE, { eventids: [one.id] })).event.delete.errors, [
      { label: 'eventIds[0]', message: 'Event not found', value: one.id },
    ]);
    // As the sync service reads the answer: errors only, empty on success.
    t.deepEqual(
      (
        await f.data(f.admin, 'mutation ($ids: [ID]!) { event { delete(input: {eventIds: $ids}) { errors { label message value } } } }', {
          ids: [],
        })
      ).event.delete,
      { errors: [] },
    );
    const tooMany = (await f.data(f.admin, DELETE, { eventids: Array.from({ length: 101 }, () => one.id) })).event.delete;
    t.deepEqual(
      tooMany.errors.map((e: { label: string }) => e.label),
      ['eventIds'],
    );
  },
);

test.serial(
  "permissions: update and delete need EVENT_EDIT; a template's events need EVENT_VIEW, the template itself is still answered",
  async (t) => {
    const viewer = await f.tokenFor(f.tenant, 'event-viewer', ['EVENT_VIEW']);
    const upd = await f.gql(viewer, UPDATE('id'), { eventId: ev[A]!.id, input: { title: 'No' } });
    t.is(upd.json.errors[0].extensions.code, 'FORBIDDEN');
    t.regex(upd.json.errors[0].message, /EVENT_EDIT/);
    const del = await f.gql(viewer, 'mutation ($ids: [ID]!) { event { delete(input: {eventIds: $ids}) { errors { message } } } }', {
      ids: [ev[A]!.id],
    });
    t.regex(del.json.errors[0].message, /EVENT_EDIT/);
    // Naming a template or a location reads them: their VIEW permission too.
    const editor = await f.tokenFor(f.tenant, 'event-editor', ['EVENT_VIEW', 'EVENT_EDIT']);
    t.regex(
      (await f.gql(editor, UPDATE('id'), { eventId: ev[A]!.id, input: { courseTemplateId: manualHandling } })).json.errors[0].message,
      /COURSE_TEMPLATE_VIEW/,
    );
    t.regex(
      (await f.gql(editor, UPDATE('id'), { eventId: ev[A]!.id, input: { locationId: harbour } })).json.errors[0].message,
      /LOCATION_VIEW/,
    );
    t.is((await f.data(f.admin, 'query ($id: ID!) { node(id: $id) { ... on Event { title } } }', { id: ev[A]!.id })).node.title, A);

    const templatesOnly = await f.tokenFor(f.tenant, 'templates-only', ['COURSE_TEMPLATE_VIEW']);
    const res = await f.gql(templatesOnly, 'query ($id: ID!) { courseTemplate(id: $id) { title events { edges { node { id } } } } }', {
      id: fireSafety,
    });
    t.deepEqual(res.json.data, { courseTemplate: { title: 'Fire Safety', events: null } });
    t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
    t.regex(res.json.errors[0].message, /EVENT_VIEW/);
  },
);

test.serial('another instance reaches none of it: its update, delete and lists do not see these events', async (t) => {
  const other = await f.ctx.freshTenant('gceb');
  const theirs = await f.tokenFor(other, 'admin');
  t.deepEqual((await f.gql(theirs, UPDATE('id'), { eventId: ev[A]!.id, input: { title: 'Taken' } })).json.data.event.update, {
    event: null,
    errors: [{ label: 'eventId', message: 'Event not found', value: ev[A]!.id }],
  });
  const del = await f.data(
    theirs,
    'mutation ($ids: [ID]!) { event { delete(input: {eventIds: $ids}) { eventIds errors { label message } } } }',
    { ids: [ev[B]!.id] },
  );
  t.deepEqual(del.event.delete, { eventIds: [], errors: [{ label: 'eventIds[0]', message: 'Event not found' }] });
  t.deepEqual(
    (await f.data(theirs, '{ events(filters: [{field: status, operation: eq, value: "Active"}]) { edges { node { id } } } }')).events.edges,
    [],
  );
  t.like(await f.data(f.admin, 'query ($id: ID!) { node(id: $id) { ... on Event { title } } }', { id: ev[A]!.id }), { node: { title: A } });
  t.true(await f.data(f.admin, 'query ($id: ID!) { node(id: $id) { id } }', { id: ev[B]!.id }).then((d) => d.node !== null));
});
