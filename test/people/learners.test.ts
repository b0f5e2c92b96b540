import test from 'ava';
import type { Knex } from 'knex';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { insertedId } from '../helpers/harness.js';
import { readStatements } from '../helpers/statements.js';

/**
 * Learners (issue 25, real-clients.md section 5.B): the `learners` list as the PHP SDK and the n8n
 * workflows send it, a contact's learners and their events (the WordPress plugin's "my workshops"),
 * `learner { reactivate recordAttendances }` as the sync service and n8n send them, and
 * `event { registerContacts }` as the MCP server sends it; REST v2's delegates and these are the
 * same rows. Everything through HTTP with real tokens; read back through the API, and through the
 * tables where the API has no view of what was written.
 */
let f: GraphQLFixture;
let other: Tenant;
let otherToken: string;
const ids: Record<string, number> = {};
const gid = (type: string, name: string) => toGlobalId(type, ids[name]!);
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
/** Rows of the other tenant carry ids no row of this one has, so a leak could not pass for a row of this tenant. */
const FOREIGN = 9001;
const foreign = (type: string) => toGlobalId(type, FOREIGN);

const db = <T>(work: (db: Knex) => Promise<T>, tenant?: Tenant) => withTenant(f.ctx.rt.knex, tenant ?? f.tenant, work);
const one = insertedId;

/** The PHP SDK's learner lookup (psdk), verbatim but for whitespace. */
const PSDK = `query($filters: [LearnerFieldGraphFilter]!) { learners(filters: $filters) { edges { node { id legacyId lifecycleState createdAt isActive isCancelled expiresAt event { id legacyId title price } } } } }`;
/** The n8n workflow's learners of an event by e-mail (auto): inline filters without commas between them, `$offset: Int!`. */
const AUTO = (eventId: string, emails: string[]) =>
  `query Learners($offset: Int!) { learners(filters: [{field: eventId, operation: eq, value: "${eventId}"} {field: lifecycleState, operation: eq, value: "active"} {field: contactEmailAddress, operation: in, values: [${emails.map((e) => `"${e}"`).join(' ')}]}] offset: $offset) { pageInfo { hasNextPage } edges { node { id legacyId lifecycleState isActive contact { id legacyId emailAddress } } } } }`;
/** The contact tree of section 5.B with its learners' events (acted, wp), through node(id). */
const CONTACT_LEARNERS = `query($id: ID!, $status: String!) { node(id: $id) { ... on Contact { id learners(filters: [{field: lifecycleState, operation: eq, value: $status}]) { edges { node { id event { id code title bookedPlaces start reserved type location { id name } courseTemplate { id code title } } } } } } } }`;
const REACTIVATE = `mutation($learnerId: ID!) { learner { reactivate(input: { learnerId: $learnerId }) { errors { label value message } } } }`;
/** The sync service's attendance (acted): a list variable, or a single object in it. */
const RECORD = `mutation($input: [LearnerAttendanceInput!]!) { learner { recordAttendances(input: $input) { learner { id } errors { message value } } } }`;
/** The MCP server's registration (auto). */
const REGISTER = `mutation($eventId: ID!, $input: EventRegisterContactsInput!) { event { registerContacts(eventId: $eventId, input: $input) { errors { label message value } event { id title bookedPlaces remainingPlaces } } } }`;
const ATTENDANCE = `query($id: String!) { learners(filters: [{field: id, operation: eq, value: $id}]) { edges { node { attendance { sessionDetail { edges { node { session { id } attended recordedAt } } } } } } } }`;

test.serial.before(async () => {
  f = await graphqlFixture('lrn');
  await db(async (k) => {
    ids.location = await one(k, 'locations', { name: 'Riverside Training Centre' });
    ids.template = await one(k, 'course_templates', { title: 'First Aid at Work', code: 'FAW' });
    ids.firstAid = await one(k, 'events', {
      title: 'First Aid at Work',
      code: 'FAW-LON-1',
      course_template_id: ids.template,
      location_id: ids.location,
      delegates_max: 3,
      price: '395.50',
      time_zone_name: 'Europe/London',
      classroom_start: '2027-03-10T09:00:00',
      classroom_end: '2027-03-11T17:00:00',
    });
    ids.fire = await one(k, 'events', { title: 'Fire Safety', code: 'FS-1' });
    ids.gone = await one(k, 'events', { title: 'Cancelled course', lifecycle_state: 'cancelled', is_cancelled: true });
    const session = (event: string, day: number) =>
      one(k, 'sessions', {
        event_id: ids[event],
        title: `Day ${day}`,
        starts_at: `2027-03-${9 + day}T09:00:00Z`,
        ends_at: `2027-03-${9 + day}T17:00:00Z`,
        time_zone_name: 'Europe/London',
      });
    // Written out of order: attendance is listed in the order of the sessions.
    ids.day2 = await session('firstAid', 2);
    ids.day1 = await session('firstAid', 1);
    ids.fireDay = await session('fire', 1);
    for (const [name, email] of [
      ['ada', 'ada@example.test'],
      ['bob', 'BOB@Example.test'],
      ['cy', 'cy@example.test'],
      ['dee', 'dee@example.test'],
      ['eve', 'eve@example.test'],
      ['fay', 'fay@example.test'],
    ] as const)
      ids[name] = await one(k, 'contacts', { first_name: name, last_name: 'Learner', email });
  });
  // Learners as integrations make them today: REST v2 delegates.
  for (const name of ['ada', 'bob', 'cy']) {
    const res = await f.api('POST', 'event/delegates', { event_id: ids.firstAid, contact_id: ids[name] });
    if (res.status !== 200) throw new Error(`delegate: ${res.status} ${res.text}`);
    ids[`${name}L`] = res.json.id;
  }
  await db(async (k) => {
    // No API cancels a place yet: the row as a cancellation leaves it.
    await k('delegates').where({ id: ids.cyL }).update({ cancelled_date: '2027-02-01' });
    await k('delegates').where({ id: ids.adaL }).update({ expires_at: '2027-12-31 23:59:59' });
  });

  // Another instance, with rows whose ids this one does not have.
  other = await f.ctx.freshTenant('lrnb');
  otherToken = await f.tokenFor(other, 'admin');
  await db(async (k) => {
    await k('events').insert({ id: FOREIGN, title: 'Their course', delegates_max: 10 });
    await k('contacts').insert({ id: FOREIGN, first_name: 'Their', last_name: 'Contact', email: 'ada@example.test' });
    await k('delegates').insert({ id: FOREIGN, event_id: FOREIGN, contact_id: FOREIGN, cancelled_date: '2027-01-01' });
    await k('sessions').insert({
      id: FOREIGN,
      event_id: FOREIGN,
      title: 'Their day',
      starts_at: '2027-05-01T09:00:00Z',
      ends_at: '2027-05-01T17:00:00Z',
      time_zone_name: 'UTC',
    });
  }, other);
});
test.after.always(async () => f?.close());

test.serial('when the PHP SDK looks a learner up by id, then it answers its state, dates and event with its price', async (t) => {
  const res = await f.gql(f.admin, PSDK, { filters: [{ field: 'id', operation: 'eq', value: gid('Learner', 'adaL') }] });
  const [edge, ...rest] = res.json.data.learners.edges;
  t.deepEqual(rest, [], res.text);
  t.regex(edge.node.createdAt, INSTANT);
  t.deepEqual(
    { ...edge.node, createdAt: undefined },
    {
      id: gid('Learner', 'adaL'),
      legacyId: ids.adaL,
      lifecycleState: 'active',
      createdAt: undefined,
      isActive: true,
      isCancelled: false,
      expiresAt: '2027-12-31T23:59:59Z',
      event: { id: gid('Event', 'firstAid'), legacyId: ids.firstAid, title: 'First Aid at Work', price: '395.50' },
    },
  );
  // A cancelled learner says so three ways; an id of nothing, or of a place bought without names, answers no learner.
  const cancelled = await f.data(f.admin, PSDK, { filters: [{ field: 'id', operation: 'eq', value: gid('Learner', 'cyL') }] });
  t.like(cancelled.learners.edges[0].node, { lifecycleState: 'cancelled', isActive: false, isCancelled: true, expiresAt: null });
  const unnamed = await db(async (k) => one(k, 'delegates', { event_id: ids.fire, num_places: 2 }));
  for (const id of [toGlobalId('Learner', 99999), toGlobalId('Learner', unnamed), gid('Event', 'firstAid')])
    t.deepEqual((await f.data(f.admin, PSDK, { filters: [{ field: 'id', operation: 'eq', value: id }] })).learners.edges, [], id);
  await db((k) => k('delegates').where({ id: unnamed }).delete());
});

test.serial(
  "when the n8n workflow lists an event's active learners by e-mail with inline filters and an offset, then it answers those learners, whatever the addresses' case",
  async (t) => {
    const query = AUTO(gid('Event', 'firstAid'), ['ada@example.test', 'bob@example.test', 'cy@example.test', 'nobody@example.test']);
    const d = await f.data(f.admin, query, { offset: 0 });
    t.deepEqual(d.learners, {
      pageInfo: { hasNextPage: false },
      edges: ['ada', 'bob'].map((name) => ({
        node: {
          id: gid('Learner', `${name}L`),
          legacyId: ids[`${name}L`],
          lifecycleState: 'active',
          isActive: true,
          contact: {
            id: gid('Contact', name),
            legacyId: ids[name],
            emailAddress: name === 'bob' ? 'BOB@Example.test' : `${name}@example.test`,
          },
        },
      })),
    });
    // Paged: the first page says there is another.
    const paged = await f.data(
      f.admin,
      `{ learners(filters: [{field: eventId, operation: eq, value: "${gid('Event', 'firstAid')}"}], first: 1, offset: 1) { pageInfo { hasNextPage hasPreviousPage totalRecords } edges { node { legacyId } } } }`,
    );
    t.deepEqual(paged.learners, {
      pageInfo: { hasNextPage: true, hasPreviousPage: true, totalRecords: 3 },
      edges: [{ node: { legacyId: ids.bobL } }],
    });
    // The other filter fields: contactId, isCancelled, createdAt, lifecycleState in any case.
    const some = await f.data(
      f.admin,
      `{ a: learners(filters: [{field: contactId, operation: eq, value: "${gid('Contact', 'cy')}"}]) { edges { node { legacyId } } }
         b: learners(filters: [{field: isCancelled, operation: eq, value: "true"}]) { edges { node { legacyId } } }
         c: learners(filters: [{field: createdAt, operation: gt, value: "2999-01-01"}]) { edges { node { legacyId } } }
         d: learners(filters: [{field: lifecycleState, operation: eq, value: "CANCELLED"}]) { edges { node { legacyId } } } }`,
    );
    t.deepEqual(some, {
      a: { edges: [{ node: { legacyId: ids.cyL } }] },
      b: { edges: [{ node: { legacyId: ids.cyL } }] },
      c: { edges: [] },
      d: { edges: [{ node: { legacyId: ids.cyL } }] },
    });
    // The workflow sends its offset as a JSON string ("0"): numeric strings are read as the Int they write.
    const asString = await f.gql(f.admin, query, { offset: '0' });
    t.deepEqual(asString.json, { data: d }, asString.text);
  },
);

test.serial(
  "when a contact's learners are read with their events (the contact tree of section 5.B), then each event answers the fields clients select",
  async (t) => {
    const d = await f.data(f.admin, CONTACT_LEARNERS, { id: gid('Contact', 'ada'), status: 'active' });
    t.deepEqual(d.node, {
      id: gid('Contact', 'ada'),
      learners: {
        edges: [
          {
            node: {
              id: gid('Learner', 'adaL'),
              event: {
                id: gid('Event', 'firstAid'),
                code: 'FAW-LON-1',
                title: 'First Aid at Work',
                bookedPlaces: 2,
                start: '2027-03-10T09:00:00Z',
                reserved: 0,
                type: 'public',
                location: { id: gid('Location', 'location'), name: 'Riverside Training Centre' },
                courseTemplate: { id: gid('CourseTemplate', 'template'), code: 'FAW', title: 'First Aid at Work' },
              },
            },
          },
        ],
      },
    });
    // Filtered by state; with no arguments (the plugin's older query) every place of the contact.
    t.deepEqual((await f.data(f.admin, CONTACT_LEARNERS, { id: gid('Contact', 'cy'), status: 'active' })).node.learners.edges, []);
    const all = await f.data(
      f.admin,
      `query($id: ID!) { node(id: $id) { ... on Contact { learners { edges { node { lifecycleState } } } } } }`,
      {
        id: gid('Contact', 'cy'),
      },
    );
    t.deepEqual(all.node.learners.edges, [{ node: { lifecycleState: 'cancelled' } }]);
    // An event's learners, the same list.
    const event = await f.data(
      f.admin,
      `query($id: ID!) { node(id: $id) { ... on Event { learners(filters: [{field: isActive, operation: eq, value: "true"}]) { pageInfo { totalRecords } edges { node { contact { firstName } } } } } } }`,
      { id: gid('Event', 'firstAid') },
    );
    t.deepEqual(event.node.learners, {
      pageInfo: { totalRecords: 2 },
      edges: [{ node: { contact: { firstName: 'ada' } } }, { node: { contact: { firstName: 'bob' } } }],
    });
  },
);

test.serial(
  'when the WordPress plugin finds a contact by e-mail with its active learners ("my workshops"), then it answers the contact tree of section 5.B',
  async (t) => {
    const WP = `query ($email: String!, $status: String!) { contacts(filters: [{field: emailAddress, operation: eq, value: $email}]) { edges { node { id legacyId firstName lastName emailAddress learners(filters: [{field: lifecycleState, operation: eq, value: $status}]) { edges { node { id event { id code title bookedPlaces start reserved type location { id name } courseTemplate { id code title } } } } } } } pageInfo { hasNextPage endCursor totalRecords } } }`;
    const d = await f.data(f.admin, WP, { email: 'ada@example.test', status: 'active' });
    t.is(d.contacts.pageInfo.totalRecords, 1);
    const [edge] = d.contacts.edges;
    t.like(edge.node, { id: gid('Contact', 'ada'), legacyId: ids.ada, firstName: 'ada', emailAddress: 'ada@example.test' });
    t.deepEqual(
      edge.node.learners.edges.map((e: { node: { id: string; event: { code: string; bookedPlaces: number } } }) => [
        e.node.id,
        e.node.event.code,
        e.node.event.bookedPlaces,
      ]),
      [[gid('Learner', 'adaL'), 'FAW-LON-1', 2]],
    );
  },
);

test.serial('when the MCP server registers contacts on an event, then each is a learner and a REST delegate, all or none', async (t) => {
  const input = {
    contacts: [gid('Contact', 'dee'), gid('Contact', 'eve')],
    notes: 'Booked by phone',
    priceLevelId: toGlobalId('PriceLevel', 1),
    financialUnitId: 'Q3VycmVuY3k6R0JQ',
    amount: '120.00',
    brandId: toGlobalId('Brand', 1),
    communicationsContactId: gid('Contact', 'ada'),
    orderDate: '2027-01-15',
  };
  const res = await f.gql(f.admin, REGISTER, { eventId: gid('Event', 'fire'), input });
  t.deepEqual(res.json, {
    data: {
      event: {
        registerContacts: { errors: [], event: { id: gid('Event', 'fire'), title: 'Fire Safety', bookedPlaces: 2, remainingPlaces: null } },
      },
    },
  });
  // The same rows through REST v2: delegates with the notes and the communications contact kept.
  const rest = await f.api('GET', `event/delegates?event_id=${ids.fire}&_order=id`);
  t.deepEqual(
    rest.json.map((d: Record<string, unknown>) => [d.contact_id, d.notes, d.comms_contact_id, d.num_delegates, d.cancelled_date]),
    [
      [ids.dee, 'Booked by phone', ids.ada, 1, null],
      [ids.eve, 'Booked by phone', ids.ada, 1, null],
    ],
  );
  const learners = await f.data(
    f.admin,
    `{ learners(filters: [{field: eventId, operation: eq, value: "${gid('Event', 'fire')}"}]) { edges { node { legacyId isActive contact { firstName } } } } }`,
  );
  t.deepEqual(
    learners.learners.edges.map((e: { node: { legacyId: number; contact: { firstName: string } } }) => [
      e.node.legacyId,
      e.node.contact.firstName,
    ]),
    rest.json.map((d: { id: number; contact: { first_name: string } }) => [d.id, d.contact.first_name]),
  );

  const register = async (eventId: string, contacts: unknown[]) =>
    (await f.gql(f.admin, REGISTER, { eventId, input: { contacts } })).json.data.event.registerContacts;
  const fireCount = () => db(async (k) => Number((await k('delegates').where({ event_id: ids.fire }).count('* as n'))[0]!.n));
  // Registered already: a field error, nothing written (not even the others of the call).
  t.deepEqual(await register(gid('Event', 'fire'), [gid('Contact', 'fay'), gid('Contact', 'dee')]), {
    errors: [{ label: 'contacts', message: 'This contact is already registered on the event', value: gid('Contact', 'dee') }],
    event: null,
  });
  // A contact that is not there, or an id of another type, or given twice: the same.
  t.deepEqual(
    await register(gid('Event', 'fire'), [
      gid('Contact', 'fay'),
      toGlobalId('Contact', 99999),
      gid('Event', 'fire'),
      gid('Contact', 'fay'),
    ]),
    {
      errors: [
        { label: 'contacts', message: 'Contact not found', value: gid('Event', 'fire') },
        { label: 'contacts', message: 'This contact is listed more than once', value: gid('Contact', 'fay') },
      ],
      event: null,
    },
  );
  t.deepEqual((await register(gid('Event', 'fire'), [gid('Contact', 'fay'), toGlobalId('Contact', 99999)])).errors, [
    { label: 'contacts', message: 'Contact not found', value: toGlobalId('Contact', 99999) },
  ]);
  t.is(await fireCount(), 2);
  // Too few places: First Aid has 3, two of them taken (the third learner is cancelled).
  t.deepEqual(await register(gid('Event', 'firstAid'), [gid('Contact', 'dee'), gid('Contact', 'eve')]), {
    errors: [{ label: 'eventId', message: 'The event has 1 place(s) left; 2 wanted', value: gid('Event', 'firstAid') }],
    event: null,
  });
  t.deepEqual(await register(gid('Event', 'firstAid'), [gid('Contact', 'dee')]), {
    errors: [],
    event: { id: gid('Event', 'firstAid'), title: 'First Aid at Work', bookedPlaces: 3, remainingPlaces: 0 },
  });
  t.deepEqual((await register(gid('Event', 'firstAid'), [gid('Contact', 'eve')])).errors, [
    { label: 'eventId', message: 'The event is full: it has no places left (1 wanted)', value: gid('Event', 'firstAid') },
  ]);
  // No event, a cancelled one, no contacts.
  t.deepEqual((await register(toGlobalId('Event', 99999), [gid('Contact', 'fay')])).errors, [
    { label: 'eventId', message: 'Event not found', value: toGlobalId('Event', 99999) },
  ]);
  t.deepEqual((await register(gid('Event', 'gone'), [gid('Contact', 'fay')])).errors, [
    { label: 'eventId', message: 'The event is cancelled: it takes no learners', value: gid('Event', 'gone') },
  ]);
  t.deepEqual((await register(gid('Event', 'fire'), [])).errors, [
    { label: 'contacts', message: 'contacts must list at least one contact', value: null },
  ]);
  t.is(await fireCount(), 2);
  t.is(await db(async (k) => Number((await k('delegates').where({ event_id: ids.gone }).count('* as n'))[0]!.n)), 0);
});

test.serial('when the sync service reactivates a cancelled learner, then it is active again while the event has a place', async (t) => {
  const reactivate = async (learnerId: string) => (await f.gql(f.admin, REACTIVATE, { learnerId })).json;
  // First Aid is full (ada, bob, dee): capacity applies.
  t.deepEqual(await reactivate(gid('Learner', 'cyL')), {
    data: {
      learner: {
        reactivate: {
          errors: [{ label: 'learnerId', value: gid('Learner', 'cyL'), message: 'The event is full: it has no places left (1 wanted)' }],
        },
      },
    },
  });
  await db((k) => k('events').where({ id: ids.firstAid }).update({ delegates_max: 4 }));
  t.deepEqual(await reactivate(gid('Learner', 'cyL')), { data: { learner: { reactivate: { errors: [] } } } });
  const back = await f.data(f.admin, PSDK, { filters: [{ field: 'id', operation: 'eq', value: gid('Learner', 'cyL') }] });
  t.like(back.learners.edges[0].node, { lifecycleState: 'active', isActive: true, isCancelled: false });
  t.is((await f.api('GET', `event/delegates/${ids.cyL}`)).json.cancelled_date, null);
  // An active learner, no learner, an id of another type: field errors.
  const refused = async (id: string) => (await reactivate(id)).data.learner.reactivate.errors;
  t.deepEqual(await refused(gid('Learner', 'cyL')), [
    {
      label: 'learnerId',
      value: gid('Learner', 'cyL'),
      message: 'The learner is active already: only a cancelled learner can be reactivated',
    },
  ]);
  for (const id of [toGlobalId('Learner', 99999), gid('Contact', 'cy'), 'not an id'])
    t.deepEqual(await refused(id), [{ label: 'learnerId', value: id, message: 'Learner not found' }], id);
  // A contact who registered again after a cancellation holds the place already.
  const old = await db((k) => one(k, 'delegates', { event_id: ids.firstAid, contact_id: ids.ada, cancelled_date: '2027-01-01' }));
  await db((k) => k('events').where({ id: ids.firstAid }).update({ delegates_max: 10 }));
  t.deepEqual(await refused(toGlobalId('Learner', old)), [
    { label: 'learnerId', value: toGlobalId('Learner', old), message: "The learner's contact holds another active place on this event" },
  ]);
  await db((k) => k('delegates').where({ id: old }).delete());
});

test.serial(
  'when the sync service records attendance as a list, a single object or inline items, then each item answers its own payload and the attendance reads back',
  async (t) => {
    const attendance = async (learner: string) =>
      (await f.data(f.admin, ATTENDANCE, { id: gid('Learner', learner) })).learners.edges[0].node.attendance.sessionDetail.edges.map(
        (e: { node: { session: { id: string }; attended: boolean; recordedAt: string } }) => {
          if (!INSTANT.test(e.node.recordedAt)) throw new Error(`recordedAt ${e.node.recordedAt}`);
          return [e.node.session.id, e.node.attended];
        },
      );
    // A list: the second item's session is another event's, so it alone is refused.
    const res = await f.gql(f.admin, RECORD, {
      input: [
        { learnerId: gid('Learner', 'adaL'), sessionId: gid('Session', 'day2'), attended: true },
        { learnerId: gid('Learner', 'adaL'), sessionId: gid('Session', 'fireDay'), attended: true },
      ],
    });
    t.deepEqual(res.json, {
      data: {
        learner: {
          recordAttendances: [
            { learner: { id: gid('Learner', 'adaL') }, errors: [] },
            {
              learner: null,
              errors: [{ message: "The session is not a session of the learner's event", value: gid('Session', 'fireDay') }],
            },
          ],
        },
      },
    });
    t.deepEqual(await attendance('adaL'), [[gid('Session', 'day2'), true]]);
    // A single object where the list is expected: a list of one.
    const single = await f.gql(f.admin, RECORD, {
      input: { learnerId: gid('Learner', 'adaL'), sessionId: gid('Session', 'day1'), attended: false },
    });
    t.deepEqual(single.json, { data: { learner: { recordAttendances: [{ learner: { id: gid('Learner', 'adaL') }, errors: [] }] } } });
    // Inline items (n8n), no variables: recording a session again replaces what was recorded.
    const inline = await f.gql(
      f.admin,
      `mutation { learner { recordAttendances(input: [{learnerId: "${gid('Learner', 'adaL')}" sessionId: "${gid('Session', 'day2')}" attended: false} {learnerId: "${gid('Learner', 'bobL')}" sessionId: "${gid('Session', 'day1')}" attended: true}]) { errors { label message value } learner { id } } } }`,
    );
    t.deepEqual(inline.json.data.learner.recordAttendances, [
      { errors: [], learner: { id: gid('Learner', 'adaL') } },
      { errors: [], learner: { id: gid('Learner', 'bobL') } },
    ]);
    // In the order of the sessions (day 1 starts first), one record each.
    t.deepEqual(await attendance('adaL'), [
      [gid('Session', 'day1'), false],
      [gid('Session', 'day2'), false],
    ]);
    t.deepEqual(await attendance('bobL'), [[gid('Session', 'day1'), true]]);
    // What each item may get wrong, each its own field error.
    const refusals = await f.gql(
      f.admin,
      `mutation($input: [LearnerAttendanceInput!]!) { learner { recordAttendances(input: $input) { learner { id } errors { label message value } } } }`,
      {
        input: [
          { learnerId: toGlobalId('Learner', 99999), sessionId: gid('Session', 'day1'), attended: true },
          { learnerId: gid('Learner', 'adaL'), sessionId: toGlobalId('Session', 99999), attended: true },
          { learnerId: gid('Learner', 'adaL'), sessionId: gid('Session', 'day1') },
        ],
      },
    );
    t.deepEqual(refusals.json.data.learner.recordAttendances, [
      { learner: null, errors: [{ label: 'learnerId', message: 'Learner not found', value: toGlobalId('Learner', 99999) }] },
      { learner: null, errors: [{ label: 'sessionId', message: 'Session not found', value: toGlobalId('Session', 99999) }] },
      { learner: null, errors: [{ label: 'attended', message: 'attended is required: true or false', value: null }] },
    ]);
    // A cancelled learner's attendance is not recorded.
    await db((k) => k('delegates').where({ id: ids.bobL }).update({ cancelled_date: '2027-03-01' }));
    t.deepEqual(
      (await f.gql(f.admin, RECORD, { input: [{ learnerId: gid('Learner', 'bobL'), sessionId: gid('Session', 'day2'), attended: true }] }))
        .json.data.learner.recordAttendances,
      [
        {
          learner: null,
          errors: [{ message: 'The learner is cancelled: reactivate it before recording its attendance', value: gid('Learner', 'bobL') }],
        },
      ],
    );
    await db((k) => k('delegates').where({ id: ids.bobL }).update({ cancelled_date: null }));
    t.deepEqual(await attendance('bobL'), [[gid('Session', 'day1'), true]]);
  },
);

test.serial(
  'when a delegate is made through REST v2, then it is a learner in GraphQL, and REST still takes it on a full event (the contract)',
  async (t) => {
    await db((k) => k('events').where({ id: ids.firstAid }).update({ delegates_max: 4 }));
    const booked = async () =>
      (
        await f.data(f.admin, `query($id: ID!) { node(id: $id) { ... on Event { bookedPlaces remainingPlaces } } }`, {
          id: gid('Event', 'firstAid'),
        })
      ).node;
    t.deepEqual(await booked(), { bookedPlaces: 4, remainingPlaces: 0 });
    const made = await f.api('POST', 'event/delegates', { event_id: ids.firstAid, contact_id: ids.fay });
    t.is(made.status, 200, made.text);
    t.deepEqual(await booked(), { bookedPlaces: 5, remainingPlaces: 0 });
    const d = await f.data(f.admin, PSDK, { filters: [{ field: 'id', operation: 'eq', value: toGlobalId('Learner', made.json.id) }] });
    t.like(d.learners.edges[0].node, { legacyId: made.json.id, lifecycleState: 'active', event: { id: gid('Event', 'firstAid') } });
    const mine = await f.data(f.admin, CONTACT_LEARNERS, { id: gid('Contact', 'fay'), status: 'active' });
    t.deepEqual(
      mine.node.learners.edges.map((e: { node: { id: string } }) => e.node.id),
      [toGlobalId('Learner', made.json.id)],
    );
    // GraphQL refuses what REST took: the event is over its places.
    t.deepEqual(
      (await f.gql(f.admin, REGISTER, { eventId: gid('Event', 'firstAid'), input: { contacts: [gid('Contact', 'eve')] } })).json.data.event
        .registerContacts.errors,
      [{ label: 'eventId', message: 'The event is full: it has no places left (1 wanted)', value: gid('Event', 'firstAid') }],
    );
  },
);

test.serial(
  "when a page of learners reads their contacts' learners, events and attendance, then the statements do not grow with the page",
  async (t) => {
    await db(async (k) => {
      const event = await one(k, 'events', { title: 'Bulk course', location_id: ids.location });
      const session = await one(k, 'sessions', {
        event_id: event,
        title: 'Bulk day',
        starts_at: '2027-06-01T09:00:00Z',
        ends_at: '2027-06-01T17:00:00Z',
        time_zone_name: 'UTC',
      });
      ids.bulk = event;
      for (let i = 0; i < 24; i++) {
        const contact = await one(k, 'contacts', { first_name: `bulk${i}`, email: `bulk${i}@example.test` });
        const learner = await one(k, 'delegates', { event_id: event, contact_id: contact });
        await k('learner_attendances').insert({ delegate_id: learner, session_id: session, attended: i % 2 === 0 });
      }
    });
    const statementsFor = async (first: number) => {
      const { sql: sql, result: d } = await readStatements(f.ctx.rt.knex, () =>
        f.data(
          f.admin,
          `query ($first: Int, $event: String!) { learners(first: $first, filters: [{field: eventId, operation: eq, value: $event}]) { edges { node { id contact { id emailAddress learners { edges { node { id event { id title location { name } } } } } } event { id title } attendance { sessionDetail { edges { node { session { id title } attended } } } } } } } }`,
          { first, event: gid('Event', 'bulk') },
        ),
      );
      for (const e of d.learners.edges) {
        t.is(e.node.contact.learners.edges.length, 1);
        t.is(e.node.attendance.sessionDetail.edges.length, 1);
      }
      return { count: sql.length, edges: d.learners.edges.length, sql };
    };
    await statementsFor(2);
    const small = await statementsFor(2);
    const large = await statementsFor(20);
    t.is(small.edges, 2);
    t.is(large.edges, 20);
    t.is(large.count, small.count, `${small.sql.join('\n')}\n--\n${large.sql.join('\n')}`);
  },
);

test.serial(
  "when another instance's ids are given to the learners list and mutations, then none of its rows is read or written",
  async (t) => {
    t.deepEqual(
      (await f.data(f.admin, PSDK, { filters: [{ field: 'id', operation: 'eq', value: foreign('Learner') }] })).learners.edges,
      [],
    );
    t.deepEqual((await f.data(f.admin, `{ node(id: "${foreign('Learner')}") { id } }`)).node, null);
    t.deepEqual(
      (
        await f.data(
          f.admin,
          `{ learners(filters: [{field: eventId, operation: eq, value: "${foreign('Event')}"}]) { edges { node { id } } } }`,
        )
      ).learners.edges,
      [],
    );
    t.deepEqual((await f.gql(f.admin, REACTIVATE, { learnerId: foreign('Learner') })).json.data.learner.reactivate.errors, [
      { label: 'learnerId', value: foreign('Learner'), message: 'Learner not found' },
    ]);
    t.deepEqual(
      (
        await f.gql(f.admin, RECORD, {
          input: [
            { learnerId: foreign('Learner'), sessionId: gid('Session', 'day1'), attended: true },
            { learnerId: gid('Learner', 'adaL'), sessionId: foreign('Session'), attended: true },
          ],
        })
      ).json.data.learner.recordAttendances,
      [
        { learner: null, errors: [{ message: 'Learner not found', value: foreign('Learner') }] },
        { learner: null, errors: [{ message: 'Session not found', value: foreign('Session') }] },
      ],
    );
    t.deepEqual(
      (await f.gql(f.admin, REGISTER, { eventId: foreign('Event'), input: { contacts: [gid('Contact', 'eve')] } })).json.data.event
        .registerContacts.errors,
      [{ label: 'eventId', message: 'Event not found', value: foreign('Event') }],
    );
    t.deepEqual(
      (await f.gql(f.admin, REGISTER, { eventId: gid('Event', 'fire'), input: { contacts: [foreign('Contact')] } })).json.data.event
        .registerContacts.errors,
      [{ label: 'contacts', message: 'Contact not found', value: foreign('Contact') }],
    );
    // Their rows are as they were, and they read them with their own token.
    const theirs = await db(
      async (k) => ({
        learner: await k('delegates').where({ id: FOREIGN }).first('cancelled_date'),
        attendance: Number((await k('learner_attendances').count('* as n'))[0]!.n),
        learners: Number((await k('delegates').count('* as n'))[0]!.n),
      }),
      other,
    );
    t.like(theirs, { attendance: 0, learners: 1 });
    t.not(theirs.learner.cancelled_date, null);
    const own = await f.gql(otherToken, PSDK, { filters: [{ field: 'id', operation: 'eq', value: foreign('Learner') }] });
    t.is(own.json.data.learners.edges[0].node.lifecycleState, 'cancelled');
  },
);

test.serial(
  'permissions: the learners list needs DELEGATE_VIEW, its e-mail filter CONTACT_VIEW, the mutations DELEGATE_EDIT',
  async (t) => {
    const events = await f.tokenFor(f.tenant, 'events', ['EVENT_VIEW', 'CONTACT_VIEW']);
    const viewer = await f.tokenFor(f.tenant, 'delegate-viewer', ['DELEGATE_VIEW', 'EVENT_VIEW']);
    const code = (res: { json: { errors?: { extensions: { code: string } }[] } }) => res.json.errors?.[0]?.extensions.code;
    const list = `{ learners { edges { node { id } } } }`;
    t.is(code(await f.gql(events, list)), 'FORBIDDEN');
    t.is((await f.gql(viewer, list)).json.data.learners.edges.length > 0, true);
    t.is(code(await f.gql(viewer, AUTO(gid('Event', 'firstAid'), ['ada@example.test']), { offset: 0 })), 'FORBIDDEN');
    // A contact's learners without DELEGATE_VIEW: that field alone is refused.
    const contact = await f.gql(events, CONTACT_LEARNERS, { id: gid('Contact', 'ada'), status: 'active' });
    t.deepEqual(contact.json.data.node, { id: gid('Contact', 'ada'), learners: null });
    t.is(code(contact), 'FORBIDDEN');
    const before = await db(async (k) => ({
      delegates: await k('delegates').orderBy('id').select('id', 'cancelled_date'),
      attendance: await k('learner_attendances').orderBy(['delegate_id', 'session_id']).select('delegate_id', 'session_id', 'attended'),
    }));
    await db((k) => k('delegates').where({ id: ids.cyL }).update({ cancelled_date: '2027-02-01' }));
    for (const [query, variables] of [
      [REACTIVATE, { learnerId: gid('Learner', 'cyL') }],
      [RECORD, { input: [{ learnerId: gid('Learner', 'adaL'), sessionId: gid('Session', 'day1'), attended: true }] }],
      [REGISTER, { eventId: gid('Event', 'fire'), input: { contacts: [gid('Contact', 'fay')] } }],
    ] as const) {
      const res = await f.gql(viewer, query, variables);
      t.is(code(res), 'FORBIDDEN', res.text);
    }
    await db((k) => k('delegates').where({ id: ids.cyL }).update({ cancelled_date: null }));
    t.deepEqual(
      await db(async (k) => ({
        delegates: await k('delegates').orderBy('id').select('id', 'cancelled_date'),
        attendance: await k('learner_attendances').orderBy(['delegate_id', 'session_id']).select('delegate_id', 'session_id', 'attended'),
      })),
      before,
    );
  },
);
