import test from 'ava';
import type { Knex } from 'knex';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { insertedId, type HttpResult } from '../helpers/harness.js';

/**
 * Issue 25's schedule half (sessions, staff, venues) attacked as a low-privileged caller and a
 * careless integrator would, over real HTTP: another instance's ids in every argument, roles
 * lacking permissions, lists longer than a call takes, NUL characters and impossible times, and
 * bookings racing each other. Each test names what it found: a defect (fixed with it) or an
 * attack that held.
 */
let f: GraphQLFixture;
let other: Tenant;
const ids: Record<string, number> = {};
const gid = (type: string, name: string) => toGlobalId(type, ids[name]!);
/** The other instance's rows carry ids this one's never have. */
const FOREIGN = 9001;
const foreign = (type: string) => toGlobalId(type, FOREIGN);
const db = <T>(work: (db: Knex) => Promise<T>, tenant?: Tenant) => withTenant(f.ctx.rt.knex, tenant ?? f.tenant, work);
const one = insertedId;

const ADD = `mutation($input: EventStaffInput!) { event { addStaff(input: $input) { event { id } errors { label message value } } } }`;
const BULK = `mutation($input: [EventStaffInput!]!) { event { addStaffBulk(input: $input) { events { id } errors { label message } } } }`;
const UPDATE = `mutation($id: ID!, $input: SessionUpdateInput!) { session { update(sessionId: $id, input: $input) { session { id start end timeZoneName } errors { label message value } } } }`;
const errorsOf = (res: HttpResult, ...path: string[]) => {
  let at = res.json?.data;
  for (const key of path) at = at?.[key];
  return at?.errors as { label: string; message: string; value?: unknown }[] | undefined;
};
const forbidden = (res: HttpResult, permission: string) =>
  (res.json.errors ?? []).some((e: { extensions?: { permission?: string } }) => e.extensions?.permission === permission);

test.serial.before(async () => {
  f = await graphqlFixture('atks');
  other = await f.ctx.freshTenant('atksb');
  await db(async (k) => {
    ids.location = await one(k, 'locations', { name: 'Riverside' });
    ids.venue = await one(k, 'venues', { name: 'Main Hall', location_id: ids.location });
    ids.ada = await one(k, 'contacts', { first_name: 'Ada', last_name: 'Tutor', email: 'ada@tutor.test', is_tutor: true });
    ids.bob = await one(k, 'contacts', { first_name: 'Bob', last_name: 'Admin', is_staff: true });
    ids.morning = await one(k, 'events', { title: 'Morning course' });
    ids.midday = await one(k, 'events', { title: 'Midday course' });
    ids.later = await one(k, 'events', { title: 'Afternoon course' });
    const session = (event: string, title: string, from: string, to: string) =>
      one(k, 'sessions', {
        event_id: ids[event],
        title,
        starts_at: `2027-03-10T${from}:00Z`,
        ends_at: `2027-03-10T${to}:00Z`,
        time_zone_name: 'UTC',
      });
    ids.am = await session('morning', 'AM', '09:00', '12:00');
    ids.mid = await session('midday', 'Mid', '11:00', '13:00');
    ids.pm = await session('later', 'PM', '14:00', '16:00');
  });
  await db(async (k) => {
    await k('locations').insert({ id: FOREIGN, name: 'Their place' });
    await k('venues').insert({ id: FOREIGN, name: 'Their room', location_id: FOREIGN });
    await k('contacts').insert({ id: FOREIGN, first_name: 'Their', last_name: 'Tutor', is_tutor: true });
    await k('events').insert({ id: FOREIGN, title: 'Their course' });
    await k('sessions').insert({
      id: FOREIGN,
      event_id: FOREIGN,
      title: 'Their day',
      starts_at: '2027-05-01T09:00:00Z',
      ends_at: '2027-05-01T17:00:00Z',
      time_zone_name: 'UTC',
    });
    await k('event_staff').insert({ id: FOREIGN, event_id: FOREIGN, contact_id: FOREIGN, staff_type: 'instructor', is_primary: true });
  }, other);
});
test.after.always(async () => f?.close());

// Found by this attack (fixed with it): notes with a NUL passed the staff rules and reached the
// database, which refused the whole request (400 "a value in the request is out of range or
// malformed", naming no field).
test.serial(
  "when an event's staff member is given notes with a NUL, then addStaff and addStaffBulk answer a field error on notes and write nothing",
  async (t) => {
    const item = {
      eventId: gid('Event', 'later'),
      contactId: gid('Contact', 'bob'),
      staffType: 'administrator',
      notes: 'Keys at\u0000reception',
    };
    const single = await f.gql(f.admin, ADD, { input: item });
    t.is(single.status, 200, single.text);
    t.deepEqual(
      errorsOf(single, 'event', 'addStaff')?.map((e) => e.label),
      ['notes'],
      single.text,
    );
    const bulk = await f.gql(f.admin, BULK, { input: [{ ...item, notes: 'fine' }, item] });
    t.is(bulk.status, 200, bulk.text);
    t.deepEqual(
      errorsOf(bulk, 'event', 'addStaffBulk')?.map((e) => e.label),
      ['input[1].notes'],
      bulk.text,
    );
    t.like(await db((k) => k('event_staff').count('* as n').first()), { n: 0 });
  },
);

// Found by this attack (fixed with it): session.update's refusal of a clash named the instructor
// ("Ada Tutor cannot teach ...") to a caller without CONTACT_VIEW, who may not read contacts.
test.serial(
  'when a caller without CONTACT_VIEW moves a session onto a time its instructor teaches elsewhere, then the refusal names the contact by id, not by name',
  async (t) => {
    await db(async (k) => {
      await k('event_staff').insert({ event_id: ids.morning, contact_id: ids.ada, staff_type: 'instructor', is_primary: true });
      await k('session_staff').insert({ session_id: ids.pm, contact_id: ids.ada, staff_type: 'instructor' });
    });
    t.teardown(() =>
      db(async (k) => {
        await k('session_staff').delete();
        await k('event_staff').delete();
      }),
    );
    const planner = await f.tokenFor(f.tenant, 'planner', ['EVENT_VIEW', 'EVENT_EDIT']);
    const input = { start: '2027-03-10T10:00:00' };
    const refused = errorsOf(await f.gql(planner, UPDATE, { id: gid('Session', 'pm'), input }), 'session', 'update');
    t.is(refused?.length, 1);
    t.regex(refused![0]!.message, new RegExp(`^Contact ${ids.ada} cannot teach session 'PM'`));
    t.notRegex(refused![0]!.message, /Ada|Tutor/);
    // Who may read contacts is told the name, as before.
    const named = errorsOf(await f.gql(f.admin, UPDATE, { id: gid('Session', 'pm'), input }), 'session', 'update');
    t.regex(named![0]!.message, /^Ada Tutor cannot teach session 'PM'/);
    const row = await db((k) => k('sessions').where({ id: ids.pm }).first('starts_at'));
    t.is(new Date(row.starts_at).toISOString(), '2027-03-10T14:00:00.000Z');
  },
);

test.serial(
  "when another instance's ids are sent to every session, staff and venue argument, then each answers not found and nothing of theirs changes (held)",
  async (t) => {
    for (const type of ['Session', 'Staff', 'Venue']) {
      const res = await f.gql(f.admin, `{ node(id: "${foreign(type)}") { id } }`);
      t.deepEqual(res.json, { data: { node: null } }, `${type}: ${res.text}`);
    }
    const notFound = (res: HttpResult, path: string[], labels: string[]) =>
      t.deepEqual(
        errorsOf(res, ...path)?.map((e) => `${e.label}: ${/not found/.test(e.message)}`),
        labels.map((l) => `${l}: true`),
        res.text,
      );
    notFound(await f.gql(f.admin, UPDATE, { id: foreign('Session'), input: { title: 'Mine' } }), ['session', 'update'], ['sessionId']);
    notFound(
      await f.gql(f.admin, UPDATE, { id: gid('Session', 'am'), input: { venueId: foreign('Venue'), locationId: foreign('Location') } }),
      ['session', 'update'],
      ['locationId', 'venueId'],
    );
    notFound(
      await f.gql(
        f.admin,
        `mutation { session { delete(input: {sessionIds: ["${foreign('Session')}"]}) { sessionIds errors { label message } } } }`,
      ),
      ['session', 'delete'],
      ['sessionIds[0]'],
    );
    notFound(
      await f.gql(
        f.admin,
        `mutation { session { addStaff(input: {sessionId: "${gid('Session', 'am')}", contactIds: ["${foreign('Contact')}"], staffType: instructor}) { errors { label message } } } }`,
      ),
      ['session', 'addStaff'],
      ['contactIds[0]'],
    );
    notFound(
      await f.gql(
        f.admin,
        `mutation { session { addStaff(input: {sessionId: "${foreign('Session')}", contactIds: ["${gid('Contact', 'ada')}"], staffType: instructor}) { errors { label message } } } }`,
      ),
      ['session', 'addStaff'],
      ['sessionId'],
    );
    notFound(
      await f.gql(f.admin, ADD, { input: { eventId: foreign('Event'), contactId: foreign('Contact'), staffType: 'instructor' } }),
      ['event', 'addStaff'],
      ['eventId', 'contactId'],
    );
    notFound(
      await f.gql(f.admin, `mutation { event { removeStaff(input: {staffId: "${foreign('Staff')}"}) { errors { label message } } } }`),
      ['event', 'removeStaff'],
      ['staffId'],
    );
    notFound(
      await f.gql(
        f.admin,
        `mutation { venue { update(venueId: "${foreign('Venue')}", input: {name: "Mine"}) { errors { label message } } } }`,
      ),
      ['venue', 'update'],
      ['venueId'],
    );
    notFound(
      await f.gql(
        f.admin,
        `mutation { venue { create(input: {name: "Mine", locationId: "${foreign('Location')}"}) { errors { label message } } } }`,
      ),
      ['venue', 'create'],
      ['locationId'],
    );
    const theirs = await db(
      async (k) => ({
        session: await k('sessions').where({ id: FOREIGN }).first('title'),
        staff: await k('event_staff').where({ id: FOREIGN }).first('contact_id'),
        venue: await k('venues').where({ id: FOREIGN }).first('name'),
        sessionStaff: (await k('session_staff').count('* as n').first())!.n,
      }),
      other,
    );
    t.deepEqual(theirs, {
      session: { title: 'Their day' },
      staff: { contact_id: FOREIGN },
      venue: { name: 'Their room' },
      sessionStaff: 0,
    });
  },
);

test.serial(
  'when sessions, staff and venues are written with huge lists, megabyte or NUL titles, impossible zones and times, then each is refused by name and nothing changes (held)',
  async (t) => {
    const tooMany = await f.gql(
      f.admin,
      `mutation($i: [ID]!) { session { delete(input: {sessionIds: $i}) { sessionIds errors { label message } } } }`,
      {
        i: Array.from({ length: 501 }, () => gid('Session', 'am')),
      },
    );
    t.deepEqual(errorsOf(tooMany, 'session', 'delete'), [{ label: 'sessionIds', message: 'At most 500 sessions at once' }]);
    const bulk = await f.gql(f.admin, BULK, {
      input: Array.from({ length: 101 }, () => ({
        eventId: gid('Event', 'later'),
        contactId: gid('Contact', 'bob'),
        staffType: 'administrator',
      })),
    });
    t.deepEqual(errorsOf(bulk, 'event', 'addStaffBulk'), [{ label: 'input', message: 'input takes at most 100 staff members' }]);
    const contacts = await f.gql(
      f.admin,
      `mutation($i: [ID]) { session { addStaff(input: {sessionId: "${gid('Session', 'am')}", contactIds: $i, staffType: instructor}) { errors { label message } } } }`,
      { i: Array.from({ length: 101 }, () => gid('Contact', 'ada')) },
    );
    t.deepEqual(errorsOf(contacts, 'session', 'addStaff'), [
      { label: 'contactIds', message: 'contactIds takes at most 100 contacts at once' },
    ]);
    for (const [input, label] of [
      [{ title: 'x'.repeat(1_000_000) }, 'title'],
      [{ title: 'Day\u00001' }, 'title'],
      [{ timeZoneName: 'Mars/Olympus' }, 'timeZoneName'],
      [{ timeZoneName: 'Europe/London\u0000' }, 'timeZoneName'],
      [{ timeZoneName: 'x'.repeat(100_000) }, 'timeZoneName'],
      [{ start: '2027-03-10T10:00:00', end: '2027-03-10T09:00:00' }, 'end'],
    ] as const) {
      const res = await f.gql(f.admin, UPDATE, { id: gid('Session', 'am'), input });
      t.deepEqual(
        errorsOf(res, 'session', 'update')?.map((e) => e.label),
        [label],
        `${JSON.stringify(input).slice(0, 60)}: ${res.text.slice(0, 300)}`,
      );
    }
    for (const start of ['10000-01-01T00:00:00', '0000-01-01T00:00:00', '2027-02-30T09:00:00']) {
      const res = await f.gql(f.admin, UPDATE, { id: gid('Session', 'am'), input: { start } });
      t.regex(res.json.errors?.[0]?.message ?? '', /is not a local date-time/, res.text);
    }
    const venue = await f.gql(
      f.admin,
      `mutation($input: VenueCreateInput!) { venue { create(input: $input) { venue { id } errors { label } } } }`,
      { input: { name: 'Hall\u0000', description: 'x'.repeat(20_000) } },
    );
    t.deepEqual(errorsOf(venue, 'venue', 'create'), [{ label: 'name' }, { label: 'description' }]);
    const row = await db((k) => k('sessions').where({ id: ids.am }).first('title', 'time_zone_name', 'starts_at', 'ends_at'));
    t.like(row, { title: 'AM', time_zone_name: 'UTC' });
    t.is(new Date(row.starts_at).toISOString(), '2027-03-10T09:00:00.000Z');
    t.like(await db((k) => k('venues').count('* as n').first()), { n: 1 });
  },
);

test.serial(
  'when one instructor is booked onto overlapping events in one bulk call, or onto one event by six calls at once, then the clash is refused and the event keeps one staff member (held)',
  async (t) => {
    const both = await f.gql(f.admin, BULK, {
      input: [
        { eventId: gid('Event', 'morning'), contactId: gid('Contact', 'ada'), staffType: 'instructor' },
        { eventId: gid('Event', 'midday'), contactId: gid('Contact', 'ada'), staffType: 'instructor' },
      ],
    });
    t.deepEqual(
      errorsOf(both, 'event', 'addStaffBulk')?.map((e) => e.label),
      ['input[0].contactId', 'input[1].contactId'],
    );
    t.like(await db((k) => k('event_staff').count('* as n').first()), { n: 0 });
    const input = { eventId: gid('Event', 'later'), contactId: gid('Contact', 'ada'), staffType: 'instructor' };
    const answers = await Promise.all(Array.from({ length: 6 }, () => f.gql(f.admin, ADD, { input })));
    t.true(
      answers.every((r) => r.status === 200 && errorsOf(r, 'event', 'addStaff')?.length === 0),
      answers.map((r) => r.text).join('\n'),
    );
    t.deepEqual(await db((k) => k('event_staff').where({ event_id: ids.later }).select('contact_id', 'is_primary')), [
      { contact_id: ids.ada, is_primary: true },
    ]);
  },
);

test.serial(
  'when a role lacks CONTACT_VIEW, LOCATION_VIEW or any edit permission, then staff contacts, venues and every schedule mutation are refused (held)',
  async (t) => {
    const planner = await f.tokenFor(f.tenant, 'planner', ['EVENT_VIEW', 'EVENT_EDIT']);
    const staff = await f.gql(
      planner,
      `{ node(id: "${gid('Event', 'later')}") { ... on Event { staff { edges { node { staffType contact { id } } } } } } }`,
    );
    t.deepEqual(staff.json.data.node.staff.edges, [{ node: { staffType: 'instructor', contact: null } }]);
    t.true(forbidden(staff, 'CONTACT_VIEW'), staff.text);
    const add = await f.gql(planner, ADD, {
      input: { eventId: gid('Event', 'later'), contactId: gid('Contact', 'bob'), staffType: 'administrator' },
    });
    t.true(forbidden(add, 'CONTACT_VIEW'), add.text);
    const venue = await f.gql(planner, UPDATE, { id: gid('Session', 'am'), input: { venueId: gid('Venue', 'venue') } });
    t.true(forbidden(venue, 'LOCATION_VIEW'), venue.text);
    const viewer = await f.tokenFor(f.tenant, 'viewer');
    for (const [mutation, permission] of [
      [`session { update(sessionId: "${gid('Session', 'am')}", input: {title: "Viewer"}) { errors { message } } }`, 'EVENT_EDIT'],
      [`session { delete(input: {sessionIds: ["${gid('Session', 'am')}"]}) { errors { message } } }`, 'EVENT_EDIT'],
      [
        `session { addStaff(input: {sessionId: "${gid('Session', 'am')}", contactIds: ["${gid('Contact', 'ada')}"], staffType: instructor}) { errors { message } } }`,
        'EVENT_EDIT',
      ],
      [`event { removeStaff(input: {staffId: "${toGlobalId('Staff', 1)}"}) { errors { message } } }`, 'EVENT_EDIT'],
      [`venue { create(input: {name: "Viewer hall"}) { errors { message } } }`, 'LOCATION_EDIT'],
      [`venue { update(venueId: "${gid('Venue', 'venue')}", input: {name: "Viewer hall"}) { errors { message } } }`, 'LOCATION_EDIT'],
    ] as const) {
      const res = await f.gql(viewer, `mutation { ${mutation} }`);
      t.true(forbidden(res, permission), `${mutation}: ${res.text}`);
    }
    t.like(await db((k) => k('sessions').where({ id: ids.am }).first('title')), { title: 'AM' });
    t.like(await db((k) => k('venues').where({ id: ids.venue }).first('name')), { name: 'Main Hall' });
    t.like(await db((k) => k('event_staff').count('* as n').first()), { n: 1 });
  },
);

test.serial(
  'when a refused list or delete mutation is sent beside another of its group, then it answers null with its error and the other one still writes',
  async (t) => {
    const planner = await f.tokenFor(f.tenant, 'viewplanner', ['EVENT_VIEW', 'LOCATION_EDIT', 'LOCATION_VIEW']);
    const res = await f.gql(
      planner,
      `mutation { venue { create(input: {name: "Planner hall"}) { venue { name } errors { message } } }
        session { delete(input: {sessionIds: ["${gid('Session', 'am')}"]}) { errors { message } } }
        learner { recordAttendances(input: [{learnerId: "${toGlobalId('Learner', 1)}", sessionId: "${gid('Session', 'am')}", attended: true}]) { errors { message } } } }`,
    );
    t.deepEqual(res.json.data, {
      venue: { create: { venue: { name: 'Planner hall' }, errors: [] } },
      session: { delete: null },
      learner: { recordAttendances: null },
    });
    t.deepEqual(
      res.json.errors.map((e: { extensions: { code: string } }) => e.extensions.code),
      ['FORBIDDEN', 'FORBIDDEN'],
    );
    t.like(await db((k) => k('venues').where({ name: 'Planner hall' }).count('* as n').first()), { n: 1 });
    t.like(await db((k) => k('sessions').where({ id: ids.am }).count('* as n').first()), { n: 1 });
  },
);

test.serial(
  'when a record a write names is deleted while the write runs, then the write answers a conflict to retry, not a server error, and writes nothing',
  async (t) => {
    const gone = await db((k) => one(k, 'locations', { name: 'Closing down' }));
    // Another transaction deletes the location and holds its commit until the write is waiting on it.
    const trx = await f.ctx.rt.knex.transaction();
    await trx.raw(`set local search_path to "${f.tenant.schema}"`);
    await trx('locations').where({ id: gone }).delete();
    const pending = f.gql(
      f.admin,
      `mutation { venue { create(input: {name: "Late room", locationId: "${toGlobalId('Location', gone)}"}) { venue { id } errors { label message } } } }`,
    );
    await new Promise((r) => setTimeout(r, 500));
    await trx.commit();
    const res = await pending;
    t.is(res.status, 409, res.text);
    t.is(res.json.errors?.[0]?.extensions?.code, 'CONFLICT', res.text);
    t.notRegex(res.text, /internal|sql|violat/i);
    t.like(await db((k) => k('venues').where({ name: 'Late room' }).count('* as n').first()), { n: 0 });
  },
);
