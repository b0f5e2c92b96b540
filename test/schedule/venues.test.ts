import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Venues (real-clients.md section 5.C): where in a location events and sessions meet. The sync
 * service pages them (`venues(first, offset)`) and finds one by name (`wordlike`), then names it
 * as an event's or a session's venueId. `venue { create update }` make them (LOCATION_EDIT);
 * reading needs LOCATION_VIEW. Another instance's venues and locations name nothing here.
 */
let f: GraphQLFixture;
let london: string;
let leeds: string;
const v: Record<string, string> = {};

const CREATE = `mutation ($input: VenueCreateInput!) { venue { create(input: $input) { venue { id legacyId name description location { id } } errors { label message value } } } }`;
const UPDATE = `mutation ($id: ID!, $input: VenueUpdateInput!) { venue { update(venueId: $id, input: $input) { venue { id name description location { id } } errors { label message value } } } }`;

/** acted's page of venues, verbatim. */
const PAGE = `query getVenues($first: Int!, $offset: Int!) { venues(first: $first, offset: $offset) { pageInfo { hasNextPage } edges { node { id name description location { id } } } } }`;
/** acted's look-up by name, verbatim. */
const BY_NAME = `query findVenue($venue_name: String!) { venues(filters: [{ field: name, operation: wordlike, value: $venue_name }]) { edges { node { id name } } } }`;

async function create(input: Record<string, unknown>, token?: string) {
  const res = (await f.data(token ?? f.admin, CREATE, { input })).venue.create;
  if (res.errors.length) throw new Error(JSON.stringify(res.errors));
  return res.venue;
}

test.serial.before(async () => {
  f = await graphqlFixture('venue');
  const made = await f.data(
    f.admin,
    `mutation { a: location { create(input: {name: "London"}) { location { id } } } b: location { create(input: {name: "Leeds"}) { location { id } } } }`,
  );
  london = made.a.create.location.id;
  leeds = made.b.create.location.id;
});
test.after.always(async () => f?.close());

test.serial('when venues are created and changed through the API, then they answer what was written and read back', async (t) => {
  const hall = await create({ name: 'Holborn Main Hall', description: 'Ground floor, step-free', locationId: london });
  t.deepEqual(hall, {
    id: toGlobalId('Venue', hall.legacyId),
    legacyId: hall.legacyId,
    name: 'Holborn Main Hall',
    description: 'Ground floor, step-free',
    location: { id: london },
  });
  v.hall = hall.id;
  v.annex = (await create({ name: 'Holborn Annex Room 2', locationId: london })).id;
  v.leeds = (await create({ name: 'Leeds Conference Centre', locationId: leeds })).id;
  v.tbc = (await create({ name: 'To be confirmed' })).id;
  const changed = (await f.data(f.admin, UPDATE, { id: v.annex, input: { description: 'Second floor', locationId: null } })).venue.update;
  t.deepEqual(changed, {
    venue: { id: v.annex, name: 'Holborn Annex Room 2', description: 'Second floor', location: null },
    errors: [],
  });
  const read = await f.data(
    f.admin,
    `query ($id: ID!) { node(id: $id) { __typename ... on Venue { name description location { id } } } }`,
    {
      id: v.annex,
    },
  );
  t.deepEqual(read.node, { __typename: 'Venue', name: 'Holborn Annex Room 2', description: 'Second floor', location: null });
});

test.serial('when a venue write is wrong, then each mistake is a field error and nothing is written', async (t) => {
  const noLocation = toGlobalId('Location', 999999);
  const refused = (await f.data(f.admin, CREATE, { input: { name: ' ', locationId: noLocation } })).venue.create;
  t.deepEqual(refused, {
    venue: null,
    errors: [
      { label: 'name', message: 'name must not be empty', value: ' ' },
      { label: 'locationId', message: 'Location not found', value: noLocation },
    ],
  });
  const twoLines = (await f.data(f.admin, UPDATE, { id: v.hall, input: { name: 'A\nB' } })).venue.update;
  t.is(twoLines.errors[0].label, 'name');
  const missing = toGlobalId('Venue', 999999);
  t.deepEqual((await f.data(f.admin, UPDATE, { id: missing, input: { name: 'X' } })).venue.update, {
    venue: null,
    errors: [{ label: 'venueId', message: 'Venue not found', value: missing }],
  });
  t.is((await f.data(f.admin, `{ venues { pageInfo { totalRecords } } }`)).venues.pageInfo.totalRecords, 4);
});

test.serial('when the sync service pages venues with first and offset, then it reads each once, in name order', async (t) => {
  const names: string[] = [];
  let offset = 0;
  for (;;) {
    const page = (await f.data(f.admin, PAGE, { first: 3, offset })).venues;
    names.push(...page.edges.map((e: { node: { name: string } }) => e.node.name));
    if (!page.pageInfo.hasNextPage) break;
    offset += 3;
  }
  t.deepEqual(names, ['Holborn Annex Room 2', 'Holborn Main Hall', 'Leeds Conference Centre', 'To be confirmed']);
  const first = (await f.data(f.admin, PAGE, { first: 1, offset: 1 })).venues;
  t.deepEqual(first, {
    pageInfo: { hasNextPage: true },
    edges: [{ node: { id: v.hall, name: 'Holborn Main Hall', description: 'Ground floor, step-free', location: { id: london } } }],
  });
});

test.serial(
  'when a venue is looked up by name with wordlike, then every word must appear as a whole word, in any order and case',
  async (t) => {
    const find = async (name: string) =>
      (await f.data(f.admin, BY_NAME, { venue_name: name })).venues.edges.map((e: { node: { name: string } }) => e.node.name);
    t.deepEqual(await find('holborn hall'), ['Holborn Main Hall']);
    t.deepEqual(await find('Room 2 Annex'), ['Holborn Annex Room 2']);
    t.deepEqual(await find('Holborn'), ['Holborn Annex Room 2', 'Holborn Main Hall']);
    // Whole words: "Hal" is no word of any name.
    t.deepEqual(await find('Hal'), []);
    t.deepEqual(await find('to be confirmed'), ['To be confirmed']);
    // Other filters: eq, like, id, location.
    const d = await f.data(
      f.admin,
      `query ($id: String!, $l: String!) {
      eq: venues(filters: [{field: name, operation: eq, value: "Leeds Conference Centre"}]) { edges { node { id } } }
      like: venues(filters: [{field: name, operation: like, value: "%room%"}]) { edges { node { id } } }
      id: venues(filters: [{field: id, operation: eq, value: $id}]) { edges { node { name } } }
      at: venues(filters: [{field: locationId, operation: eq, value: $l}]) { edges { node { name } } } }`,
      { id: v.tbc, l: london },
    );
    t.deepEqual(d, {
      eq: { edges: [{ node: { id: v.leeds } }] },
      like: { edges: [{ node: { id: v.annex } }] },
      id: { edges: [{ node: { name: 'To be confirmed' } }] },
      at: { edges: [{ node: { name: 'Holborn Main Hall' } }] },
    });
  },
);

test.serial('when an event is made at a venue, then Event.venue is that venue, and REST v2 shows its venue_id as before', async (t) => {
  const res = (
    await f.data(
      f.admin,
      `mutation ($venueId: ID, $locationId: ID) { event { createClassroom(input: {eventType: public, title: "At the hall", venueId: $venueId, locationId: $locationId, timeZoneName: "Europe/London", classroomStartDateTime: "2026-05-05T09:00", classroomEndDateTime: "2026-05-05T17:00"}) {
        event { id legacyId venue { id name location { id } } sessions { edges { node { venue { id name } } } } } errors { label message value } } } }`,
      { venueId: v.hall, locationId: london },
    )
  ).event.createClassroom;
  t.deepEqual(res.errors, []);
  t.deepEqual(res.event.venue, { id: v.hall, name: 'Holborn Main Hall', location: { id: london } });
  t.deepEqual(res.event.sessions.edges, [{ node: { venue: { id: v.hall, name: 'Holborn Main Hall' } } }]);
  const rest = (await f.api('GET', `event/public_events/${res.event.legacyId}`)).json;
  t.is(rest.venue_id, Number(Buffer.from(v.hall!, 'base64').toString().split(':')[1]));
  // A venue id that names none here is refused by name.
  const missing = toGlobalId('Venue', 424242);
  const refused = (
    await f.data(
      f.admin,
      `mutation ($venueId: ID) { event { createClassroom(input: {eventType: public, title: "Nowhere", venueId: $venueId, timeZoneName: "UTC"}) { event { id } errors { label message value } } } }`,
      { venueId: missing },
    )
  ).event.createClassroom;
  t.deepEqual(refused, { event: null, errors: [{ label: 'venueId', message: 'Venue not found', value: missing }] });
});

test.serial(
  "when another instance's venue or location ids are sent, then they name nothing here, and its list shows only its own",
  async (t) => {
    const other = await f.ctx.freshTenant('venueb');
    const theirAdmin = await f.tokenFor(other, 'admin');
    const theirLocation = (await f.data(theirAdmin, `mutation { location { create(input: {name: "Paris"}) { location { id } } } }`))
      .location.create.location.id;
    // Past this instance's ids, so the number names nothing here.
    for (let i = 0; i < 5; i++) await create({ name: `Filler ${i}` }, theirAdmin);
    const theirs = await create({ name: 'Their Main Hall', locationId: theirLocation }, theirAdmin);
    t.is((await f.data(f.admin, `query ($id: ID!) { node(id: $id) { id } }`, { id: theirs.id })).node, null);
    t.deepEqual((await f.data(f.admin, UPDATE, { id: theirs.id, input: { name: 'Mine' } })).venue.update.errors, [
      { label: 'venueId', message: 'Venue not found', value: theirs.id },
    ]);
    t.deepEqual((await f.data(f.admin, BY_NAME, { venue_name: 'Their' })).venues.edges, []);
    const leeds2 = toGlobalId('Location', 999);
    t.deepEqual((await f.data(f.admin, CREATE, { input: { name: 'Borrowed', locationId: leeds2 } })).venue.create.errors, [
      { label: 'locationId', message: 'Location not found', value: leeds2 },
    ]);
    // Theirs is untouched.
    t.deepEqual((await f.data(theirAdmin, BY_NAME, { venue_name: 'Their Hall' })).venues.edges, [
      { node: { id: theirs.id, name: 'Their Main Hall' } },
    ]);
  },
);

test.serial('permissions: listing and reading venues needs LOCATION_VIEW, writing them LOCATION_EDIT', async (t) => {
  const forbidden = (res: { json: { errors?: { extensions: { code: string }; message: string }[] } }, permission: string) => {
    t.is(res.json.errors?.[0]?.extensions.code, 'FORBIDDEN');
    t.regex(res.json.errors?.[0]?.message ?? '', new RegExp(permission));
  };
  const events = await f.tokenFor(f.tenant, 'events-only', ['EVENT_VIEW', 'EVENT_EDIT']);
  forbidden(await f.gql(events, PAGE, { first: 10, offset: 0 }), 'LOCATION_VIEW');
  forbidden(await f.gql(events, `query ($id: ID!) { node(id: $id) { id } }`, { id: v.hall }), 'LOCATION_VIEW');
  const viewer = await f.tokenFor(f.tenant, 'location-viewer', ['LOCATION_VIEW']);
  t.is((await f.data(viewer, PAGE, { first: 10, offset: 0 })).venues.edges.length, 4);
  forbidden(await f.gql(viewer, CREATE, { input: { name: 'Nope' } }), 'LOCATION_EDIT');
  forbidden(await f.gql(viewer, UPDATE, { id: v.hall, input: { name: 'Nope' } }), 'LOCATION_EDIT');
  // Naming a venue on an event reads it: LOCATION_VIEW as for a location.
  forbidden(
    await f.gql(
      events,
      `mutation ($venueId: ID) { event { createClassroom(input: {eventType: public, title: "x", venueId: $venueId, timeZoneName: "UTC"}) { errors { message } } } }`,
      { venueId: v.hall },
    ),
    'LOCATION_VIEW',
  );
  t.is(
    (await f.data(f.admin, `{ venues(filters: [{field: name, operation: eq, value: "Nope"}]) { edges { node { id } } } }`)).venues.edges
      .length,
    0,
  );
});
