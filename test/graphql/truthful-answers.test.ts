import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { request } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Answers of the Core API that must not mislead (issue 23, finding 6): a bad variable of a custom
 * scalar answered with the scalar's own words, an event's price written as every other amount is
 * (a `Decimal` string), and an event named in the production service's spelling of its id
 * (`Course:<n>`, real-clients.md sections 1 and 5.A) taken as that event; through real HTTP with
 * real bearer tokens.
 */
let f: GraphQLFixture;
let template: string;
let event: { id: string; legacyId: number };
let normal: string;
const GBP = Buffer.from('Currency:GBP').toString('base64');
/** An id as the production service writes an event's: base64 of `Course:<n>`. */
const courseId = (n: number) => Buffer.from(`Course:${n}`, 'utf8').toString('base64');

const CREATE =
  'mutation ($input: ClassroomEventCreateInput!) { event { createClassroom(input: $input) { event { id legacyId } errors { label message } } } }';
const eventRows = () => withTenant(f.ctx.rt.knex, f.tenant, async (db) => Number((await db('events').count('* as n').first())!.n));
const priceRows = () => withTenant(f.ctx.rt.knex, f.tenant, async (db) => Number((await db('prices').count('* as n').first())!.n));

test.serial.before(async () => {
  f = await graphqlFixture('gta');
  const made = await f.data(
    f.admin,
    'mutation { courseTemplate { create(input: {title: "Fire Safety", code: "FS", lifecycleState: published}) { courseTemplate { id } errors { message } } } }',
  );
  template = made.courseTemplate.create.courseTemplate.id;
  const created = await f.data(f.admin, CREATE, {
    input: {
      courseTemplateId: template,
      eventType: 'public',
      title: 'Fire Safety - May',
      timeZoneName: 'Europe/London',
      classroomStartDateTime: '2027-05-04T09:00',
      classroomEndDateTime: '2027-05-04T17:00',
      lifecycleState: 'published',
    },
  });
  if (created.event.createClassroom.errors.length) throw new Error(JSON.stringify(created));
  event = created.event.createClassroom.event;
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    normal = toGlobalId('PriceLevel', (await db('price_levels').where({ name: 'Normal' }).first('id')).id);
    // The event's own price, as the REST API records it (public_events `price`).
    await db('events').where({ id: event.legacyId }).update({ price: '395.50', currency_code: 'GBP' });
  });
});
test.after.always(async () => f?.close());

// --- a) a custom scalar's own message for a bad variable ---------------------------------------------

const ADD_PRICE = `mutation ($amount: Decimal!, $eventId: ID!, $financialUnitId: ID!, $priceLevelId: ID!) {
  event { addPrices(input: { amount: $amount, eventId: $eventId, financialUnitId: $financialUnitId, priceLevelId: $priceLevelId }) { prices { id } errors { label message value } } } }`;

test.serial(
  'when a Decimal variable is not a decimal number, then the error says what Decimal says of it, as graphql-js words a bad variable, and nothing is written',
  async (t) => {
    const before = await priceRows();
    const res = await f.gql(f.admin, ADD_PRICE, { amount: 'ten pounds', eventId: event.id, financialUnitId: GBP, priceLevelId: normal });
    t.is(res.status, 200);
    t.is(res.json.data, undefined);
    t.deepEqual(
      res.json.errors.map((e: { message: string }) => e.message),
      [
        'Variable "$amount" got invalid value "ten pounds"; Decimal: "ten pounds" is not a decimal number (write it as a string, e.g. "495.00")',
      ],
    );
    t.is(await priceRows(), before);
  },
);

test.serial(
  'when a LocalDateTime variable carries an offset, or a LocalDateTime inside an input variable is no date-time, then the error says what LocalDateTime says of it (with where it is), and nothing is written',
  async (t) => {
    const before = await eventRows();
    const start = await f.gql(
      f.admin,
      'mutation ($start: LocalDateTime!) { event { createLMS(input: {eventType: public, title: "x", timeZoneName: "UTC", lmsStartDateTime: $start, lmsEndDateTime: "2027-06-01T00:00"}) { event { id } errors { label } } } }',
      { start: '2027-05-04T09:00:00Z' },
    );
    t.is(start.json.data, undefined);
    t.deepEqual(
      start.json.errors.map((e: { message: string }) => e.message),
      [
        'Variable "$start" got invalid value "2027-05-04T09:00:00Z"; LocalDateTime: "2027-05-04T09:00:00Z" has an offset: write the time on the event\'s clock without one, e.g. "2025-03-03T09:00:00" (its timeZoneName says which clock)',
      ],
    );
    const nested = await f.gql(
      f.admin,
      'mutation ($input: LMSEventCreateInput!) { event { createLMS(input: $input) { event { id } errors { label } } } }',
      {
        input: {
          eventType: 'public',
          title: 'x',
          timeZoneName: 'UTC',
          lmsStartDateTime: 'next Monday',
          lmsEndDateTime: '2027-06-01T00:00',
        },
      },
    );
    t.is(nested.json.data, undefined);
    t.deepEqual(
      nested.json.errors.map((e: { message: string }) => e.message),
      [
        'Variable "$input" got invalid value "next Monday" at "input.lmsStartDateTime"; LocalDateTime: "next Monday" is not a local date-time: write it as "2025-03-03T09:00:00" (seconds optional, no offset)',
      ],
    );
    t.is(await eventRows(), before);
  },
);

test.serial('when a document refused for a bad variable is sent again with good ones, then it runs', async (t) => {
  const ok = await f.data(f.admin, ADD_PRICE, { amount: '120.00', eventId: event.id, financialUnitId: GBP, priceLevelId: normal });
  t.deepEqual(ok.event.addPrices.errors, []);
  t.is(ok.event.addPrices.prices.length, 1);
});

// --- b) an event's price is a Decimal, as every other Core amount ------------------------------------

test.serial(
  'when a client reads an event\'s price, then it is a Decimal string with the digits stored ("395.50"), as prices\' amounts are, and the schema says Decimal',
  async (t) => {
    const d = await f.data(
      f.admin,
      `query ($id: ID!) { node(id: $id) { ... on Event { price currencyCode prices { edges { node { amount } } } } }
    __type(name: "Event") { fields { name type { name } } } }`,
      { id: event.id },
    );
    t.is(d.node.price, '395.50');
    t.is(d.node.currencyCode, 'GBP');
    t.deepEqual(d.node.prices.edges, [{ node: { amount: '120.00' } }]);
    t.is(d.__type.fields.find((x: { name: string }) => x.name === 'price').type.name, 'Decimal');
    // As a course template's events list it (the PHP SDK's and WordPress plugin's selection).
    const listed = await f.data(
      f.admin,
      'query ($id: ID!) { node(id: $id) { ... on CourseTemplate { events { edges { node { id title price status } } } } } }',
      { id: template },
    );
    t.deepEqual(listed.node.events.edges, [{ node: { id: event.id, title: 'Fire Safety - May', price: '395.50', status: 'Active' } }]);
  },
);

// --- c) an event's id in the production service's spelling, Course:<n> ------------------------------

test.serial(
  "when an event is named Course:<n> (the production service's spelling) in node(id:), then it is that event, answered with its own id",
  async (t) => {
    const d = await f.data(f.admin, 'query ($id: ID!) { node(id: $id) { __typename id ... on Event { legacyId title } } }', {
      id: courseId(event.legacyId),
    });
    t.deepEqual(d.node, { __typename: 'Event', id: event.id, legacyId: event.legacyId, title: 'Fire Safety - May' });
    // As the production service's webhook payload queries declare it (`$objectid: String!`).
    const asString = await f.data(
      f.admin,
      'query ($objectid: String!) { events(filters: [{field: id, operation: eq, value: $objectid}]) { edges { node { id courseTemplate { id } } } } }',
      {
        objectid: courseId(event.legacyId),
      },
    );
    t.deepEqual(asString.events.edges, [{ node: { id: event.id, courseTemplate: { id: template } } }]);
    // No such event, in either spelling: nothing.
    t.is((await f.data(f.admin, 'query ($id: ID!) { node(id: $id) { id } }', { id: courseId(99999) })).node, null);
  },
);

test.serial("when an event is named Course:<n> in a filter's values or in eventId inputs, then it is that event", async (t) => {
  const listed = await f.data(
    f.admin,
    'query ($ids: [String]) { events(filters: [{field: id, operation: in, values: $ids}]) { edges { node { id } } } }',
    { ids: [courseId(event.legacyId), courseId(99999)] },
  );
  t.deepEqual(listed.events.edges, [{ node: { id: event.id } }]);
  const updated = await f.data(
    f.admin,
    'mutation ($eventId: ID!, $input: EventUpdateInput!) { event { update(eventId: $eventId, input: $input) { event { id internalNotes } errors { label message value } } } }',
    { eventId: courseId(event.legacyId), input: { internalNotes: 'Room 2 booked' } },
  );
  t.deepEqual(updated.event.update, { event: { id: event.id, internalNotes: 'Room 2 booked' }, errors: [] });
  const priced = await f.data(f.admin, ADD_PRICE, {
    amount: '130.00',
    eventId: courseId(event.legacyId),
    financialUnitId: GBP,
    priceLevelId: normal,
  });
  t.deepEqual(priced.event.addPrices.errors, []);
  // Not every id is an event's: a course template named Course:<n> is not found as one.
  const notTemplate = await f.data(
    f.admin,
    'query ($v: String) { courseTemplates(filters: [{field: id, operation: eq, value: $v}]) { edges { node { id } } } }',
    { v: courseId(Number(Buffer.from(template, 'base64').toString().split(':')[1])) },
  );
  t.deepEqual(notTemplate.courseTemplates.edges, []);
});

test.serial(
  'when WebLink is asked for events or courses by Course:<n>, then Course is still its course (a course template) there, never an event',
  async (t) => {
    const weblink = async (query: string, variables: Record<string, unknown>) => {
      const res = await request(f.port, {
        method: 'POST',
        path: '/weblink/graphql',
        host: `${f.tenant.slug}.localhost`,
        body: { query, variables },
      });
      if (res.status !== 200 || res.json.errors) throw new Error(`${res.status} ${res.text}`);
      return res.json.data;
    };
    const templateLegacy = Number(Buffer.from(template, 'base64').toString().split(':')[1]);
    const events = await weblink('query ($filters: [EventFieldFilter]!) { events(filters: $filters) { edges { node { name } } } }', {
      filters: [{ field: 'id', operation: 'eq', value: courseId(event.legacyId) }],
    });
    t.deepEqual(events.events.edges, []);
    const courses = await weblink('query ($filters: [CourseFieldFilter]!) { courses(filters: $filters) { edges { node { id name } } } }', {
      filters: [{ field: 'id', operation: 'eq', value: courseId(templateLegacy) }],
    });
    t.deepEqual(courses.courses.edges, [{ node: { id: courseId(templateLegacy), name: 'Fire Safety' } }]);
  },
);
