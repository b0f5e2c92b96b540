import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { instructorClashes } from '../../src/modules/staff/index.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { readStatements } from '../helpers/statements.js';

/**
 * Event staff as the clients send them (real-clients.md section 5.C): acted adds an event's
 * administrators and instructors with `event.addStaff` built inline from `($contactId: ID!,
 * $eventId: ID!, $staffType: StaffType!)`, an n8n workflow sends `addStaffBulk` with inline
 * literals and `__typename` everywhere, jump-ball reads `Event.staff(first)` (and with no
 * arguments) and removes with `removeStaff(input: { staffId: $staffId ... })`. Beside them: who
 * may be staff, the double-booking refusal (an instructor teaches one session at a time),
 * Event Updated for a change of an event's staff, isolation and permissions.
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const gid = (type: string, name: string) => toGlobalId(type, ids[name]!);

/** acted's event.addStaff, verbatim but for whitespace. */
const ACTED_ADD = `mutation ($contactId: ID!, $eventId: ID!, $staffType: StaffType!) {
  event { addStaff(input: { contactId: $contactId, eventId: $eventId, staffType: $staffType }) { errors { label message value } event { id title } } } }`;
/** The same with every key of EventStaffInput (the MCP's), typed. */
const ADD = `mutation ($input: EventStaffInput!) { event { addStaff(input: $input) { errors { label message value } event { id } } } }`;
/** jump-ball's read of an event's staff. */
const STAFF = `query ($id: ID!) { node(id: $id) { ... on Event { staff(first: 10) { edges { node { id contact { id } staffType isPrimary } } } } } }`;
const REMOVE = `mutation ($staffId: ID!) { event { removeStaff(input: { staffId: $staffId, notifyStaff: false }) { errors { label message value } } } }`;

const staffOf = async (event: string, token = f.admin) =>
  (await f.data(token, STAFF, { id: gid('Event', event) })).node.staff.edges.map(
    (e: { node: { id: string; contact: { id: string }; staffType: string; isPrimary: boolean } }) => e.node,
  );
const addActed = async (contact: string, event: string, staffType: string, token = f.admin) =>
  (await f.data(token, ACTED_ADD, { contactId: gid('Contact', contact), eventId: gid('Event', event), staffType })).event.addStaff;
const staffRows = (tenant: Tenant = f.tenant) =>
  withTenant(f.ctx.rt.knex, tenant, (db) =>
    db('event_staff').orderBy('id').select('id', 'event_id', 'contact_id', 'staff_type', 'is_primary', 'notes', 'required_sessions_only'),
  );

test.serial.before(async () => {
  f = await graphqlFixture('staff');
  const contact = async (name: string, roles: Record<string, unknown>) => {
    const res = await f.api('POST', 'crm/contacts', {
      first_name: name,
      last_name: 'Staff',
      email: `${name.toLowerCase()}@staff.test`,
      ...roles,
    });
    if (res.status !== 200 && res.status !== 201) throw new Error(`contact: ${res.status} ${res.text}`);
    ids[name.toLowerCase()] = res.json.id;
  };
  await contact('Ada', { is_tutor: true });
  await contact('Bob', { is_tutor: true });
  await contact('Cyd', { is_tutor: true });
  await contact('Ian', { is_tutor: true });
  await contact('Carol', { is_staff: true });
  await contact('Dan', { is_admin: 1 });
  await contact('Eve', {});
  await contact('Gone', { is_tutor: true, is_deleted: true });
  const event = async (name: string, title: string) => {
    const tpl = (await f.api('POST', 'event/event_templates', { title })).json;
    const res = await f.api('POST', 'event/public_events', { event_template_id: tpl.id, classroom_start: '2027-03-01T09:00:00' });
    if (res.status !== 200 && res.status !== 201) throw new Error(`event: ${res.status} ${res.text}`);
    ids[name] = res.json.id;
  };
  for (const [name, title] of [
    ['firstAid', 'First Aid'],
    ['fire', 'Fire Safety'],
    ['lead', 'Leadership'],
    ['off', 'Called Off'],
    ['bulk', 'Bulk Course'],
    ['solo', 'Solo Course'],
    ['hooked', 'Hooked Course'],
  ])
    await event(name!, title!);
  for (let i = 0; i < 8; i++) await event(`race${i}`, `Race ${i}`);
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const session = async (name: string, event: string, title: string, start: string, end: string, state = 'published') => {
      const [row] = await db('sessions')
        .insert({ event_id: ids[event], title, starts_at: start, ends_at: end, time_zone_name: 'Europe/London', lifecycle_state: state })
        .returning('id');
      ids[name] = row.id;
    };
    await session('fa1', 'firstAid', 'Day 1', '2027-03-01T09:00:00Z', '2027-03-01T17:00:00Z');
    await session('fa2', 'firstAid', 'Day 2', '2027-03-02T09:00:00Z', '2027-03-02T17:00:00Z');
    await session('fire1', 'fire', 'Afternoon drill', '2027-03-02T13:00:00Z', '2027-03-02T15:00:00Z');
    await session('lead1', 'lead', 'Evening', '2027-03-02T17:00:00Z', '2027-03-02T18:00:00Z');
    await session('off1', 'off', 'Called off', '2027-03-01T10:00:00Z', '2027-03-01T11:00:00Z', 'cancelled');
    await session('bulk1', 'bulk', 'Bulk day', '2027-04-01T09:00:00Z', '2027-04-01T17:00:00Z');
    await session('solo1', 'solo', 'Solo day', '2027-04-01T10:00:00Z', '2027-04-01T12:00:00Z');
    for (let i = 0; i < 8; i++) await session(`race${i}s`, `race${i}`, 'Race day', '2027-05-01T09:00:00Z', '2027-05-01T12:00:00Z');
  });
});
test.after.always(async () => f?.close());

test.serial(
  'when acted adds an administrator and an instructor inline from its variables, then the event answers them as Event.staff',
  async (t) => {
    const admin = await addActed('carol', 'firstAid', 'administrator');
    t.deepEqual(admin, { errors: [], event: { id: gid('Event', 'firstAid'), title: 'First Aid' } });
    const teacher = await addActed('ada', 'firstAid', 'instructor');
    t.deepEqual(teacher.errors, []);
    const rows = await staffRows();
    t.deepEqual(
      rows.map((r) => [r.contact_id, r.staff_type, r.is_primary]),
      [
        [ids.carol, 'administrator', false],
        [ids.ada, 'instructor', true],
      ],
    );
    ids.carolOnFirstAid = rows[0].id;
    ids.adaOnFirstAid = rows[1].id;
    // jump-ball's tree, and its no-argument form.
    t.deepEqual(await staffOf('firstAid'), [
      { id: gid('Staff', 'carolOnFirstAid'), contact: { id: gid('Contact', 'carol') }, staffType: 'administrator', isPrimary: false },
      { id: gid('Staff', 'adaOnFirstAid'), contact: { id: gid('Contact', 'ada') }, staffType: 'instructor', isPrimary: true },
    ]);
    const bare = await f.data(
      f.admin,
      `query ($id: ID!) { node(id: $id) { ... on Event { internalNotes staff { edges { node { id } } } } } }`,
      {
        id: gid('Event', 'firstAid'),
      },
    );
    t.deepEqual(bare.node.staff.edges, [
      { node: { id: gid('Staff', 'carolOnFirstAid') } },
      { node: { id: gid('Staff', 'adaOnFirstAid') } },
    ]);
    // A Staff id is a node, with its event.
    const node = await f.data(
      f.admin,
      `query ($id: ID!) { node(id: $id) { __typename ... on Staff { legacyId staffType event { id } } } }`,
      {
        id: gid('Staff', 'adaOnFirstAid'),
      },
    );
    t.deepEqual(node.node, {
      __typename: 'Staff',
      legacyId: ids.adaOnFirstAid,
      staffType: 'instructor',
      event: { id: gid('Event', 'firstAid') },
    });
  },
);

test.serial(
  'when the same contact is added again with the same type, then it stays one staff member and takes the notes given',
  async (t) => {
    const again = await f.data(f.admin, ADD, {
      input: {
        contactId: gid('Contact', 'ada'),
        eventId: gid('Event', 'firstAid'),
        staffType: 'instructor',
        notes: 'Brings the mannequins',
      },
    });
    t.deepEqual(again.event.addStaff, { errors: [], event: { id: gid('Event', 'firstAid') } });
    const rows = (await staffRows()).filter((r) => r.event_id === ids.firstAid);
    t.is(rows.length, 2);
    t.like(rows[1], { id: ids.adaOnFirstAid, is_primary: true, notes: 'Brings the mannequins', required_sessions_only: false });
    // The second instructor is not the primary one.
    t.deepEqual((await addActed('bob', 'firstAid', 'instructor')).errors, []);
    const bob = (await staffOf('firstAid')).find((s: { contact: { id: string } }) => s.contact.id === gid('Contact', 'bob'));
    t.like(bob, { staffType: 'instructor', isPrimary: false });
  },
);

test.serial(
  'when a contact without the role is added, or an id names nothing, then a field error says so and nothing is written',
  async (t) => {
    const before = await staffRows();
    const errorsOf = async (input: Record<string, unknown>) =>
      (await f.data(f.admin, ADD, { input: { eventId: gid('Event', 'lead'), staffType: 'instructor', ...input } })).event.addStaff;
    t.deepEqual(await errorsOf({ contactId: gid('Contact', 'eve') }), {
      event: null,
      errors: [
        {
          label: 'contactId',
          value: gid('Contact', 'eve'),
          message: 'Eve Staff is not an instructor: only a contact with the instructor role (isInstructor) can be an instructor',
        },
      ],
    });
    t.deepEqual((await errorsOf({ contactId: gid('Contact', 'carol') })).errors[0].label, 'contactId', 'staff are not instructors');
    t.deepEqual((await errorsOf({ contactId: gid('Contact', 'eve'), staffType: 'administrator' })).errors, [
      {
        label: 'contactId',
        value: gid('Contact', 'eve'),
        message: 'Eve Staff is not staff: only a contact with a staff role (isStaff or isAdmin) can be an administrator',
      },
    ]);
    t.deepEqual((await errorsOf({ contactId: gid('Contact', 'gone') })).errors, [
      { label: 'contactId', value: gid('Contact', 'gone'), message: 'Contact not found' },
    ]);
    t.deepEqual((await errorsOf({ contactId: gid('Contact', 'ada'), eventId: toGlobalId('Event', 999999) })).errors, [
      { label: 'eventId', value: toGlobalId('Event', 999999), message: 'Event not found' },
    ]);
    t.deepEqual((await errorsOf({ contactId: gid('Event', 'lead') })).errors, [
      { label: 'contactId', value: gid('Event', 'lead'), message: 'Contact not found' },
    ]);
    t.deepEqual((await errorsOf({ contactId: gid('Contact', 'ada'), staffType: null })).errors, [
      { label: 'staffType', value: null, message: 'staffType must be one of instructor, administrator' },
    ]);
    t.is((await errorsOf({ contactId: gid('Contact', 'ada'), staffRoleId: 'U3RhZmZSb2xlOjE=' })).errors[0].label, 'staffRoleId');
    t.deepEqual(await staffRows(), before);
    // An administrator is anyone with a staff role: isStaff, or isAdmin.
    t.deepEqual((await addActed('dan', 'lead', 'administrator')).errors, []);
  },
);

test.serial(
  'when an instructor is added to an event whose sessions overlap one they teach, then it is refused naming that session and its event; touching or cancelled sessions and administrators are not clashes',
  async (t) => {
    // Ada teaches First Aid (Day 2, 09:00-17:00 on 2 March); Fire Safety's drill is 13:00-15:00 that day.
    const before = await staffRows();
    const clash = await addActed('ada', 'fire', 'instructor');
    t.deepEqual(clash, {
      event: null,
      errors: [
        {
          label: 'contactId',
          value: gid('Contact', 'ada'),
          message: `Ada Staff cannot teach session 'Afternoon drill' (${ids.fire1}) of event 'Fire Safety' (${ids.fire}), 2027-03-02T13:00:00Z to 2027-03-02T15:00:00Z: at that time they teach session 'Day 2' (${ids.fa2}) of event 'First Aid' (${ids.firstAid}), 2027-03-02T09:00:00Z to 2027-03-02T17:00:00Z`,
        },
      ],
    });
    t.deepEqual(await staffRows(), before, 'nothing written');
    // Leadership starts at 17:00, when Day 2 ends: no clash. A cancelled session books nobody.
    t.deepEqual((await addActed('ada', 'lead', 'instructor')).errors, []);
    t.deepEqual((await addActed('ada', 'off', 'instructor')).errors, []);
    // Administrators may run events at once.
    t.deepEqual((await addActed('carol', 'fire', 'administrator')).errors, []);
    // An instructor who teaches only the sessions they are staff of books none of Fire Safety's by being its staff.
    const only = await f.data(f.admin, ADD, {
      input: { contactId: gid('Contact', 'ada'), eventId: gid('Event', 'fire'), staffType: 'instructor', requiredSessionsOnly: true },
    });
    t.deepEqual(only.event.addStaff.errors, []);
    // ...and cannot turn it into every session while that clashes.
    const every = await f.data(f.admin, ADD, {
      input: { contactId: gid('Contact', 'ada'), eventId: gid('Event', 'fire'), staffType: 'instructor', requiredSessionsOnly: false },
    });
    t.is(every.event.addStaff.errors[0].label, 'contactId');
    t.regex(every.event.addStaff.errors[0].message, /at that time they teach session 'Day 2'/);
    // A sync adding her again without the flag changes nothing, and is no clash.
    t.deepEqual((await addActed('ada', 'fire', 'instructor')).errors, []);
    const row = (await staffRows()).find((r) => r.event_id === ids.fire && r.contact_id === ids.ada);
    t.like(row, { staff_type: 'instructor', required_sessions_only: true });
  },
);

test.serial(
  'when a rescheduling is checked with instructorClashes, then it answers the clash the new times would make (what session.update calls)',
  async (t) => {
    const clashes = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
      instructorClashes(db, [{ id: ids.lead1!, startsAt: '2027-03-02T16:00:00Z', endsAt: '2027-03-02T18:00:00Z' }]),
    );
    t.is(clashes.length, 1);
    t.like(clashes[0], { item: 0, contactId: ids.ada, session: { sessionId: ids.lead1, start: '2027-03-02T16:00:00Z' } });
    t.like(clashes[0]!.clashesWith, { sessionId: ids.fa2, eventId: ids.firstAid, eventTitle: 'First Aid' });
    // As stored, Leadership clashes with nothing.
    t.deepEqual(await withTenant(f.ctx.rt.knex, f.tenant, (db) => instructorClashes(db, [{ id: ids.lead1! }])), []);
  },
);

test.serial(
  'when the workflow sends addStaffBulk with inline literals and __typename, then it answers the events and the typenames',
  async (t) => {
    const res = await f.gql(
      f.admin,
      `mutation { event { __typename addStaffBulk(input: { eventId: "${gid('Event', 'bulk')}" contactId: "${gid('Contact', 'bob')}" staffType: instructor notes: "added via workflow" }) { events { id __typename } errors { message __typename } __typename } } }`,
    );
    t.deepEqual(res.json, {
      data: {
        event: {
          __typename: 'EventMutations',
          addStaffBulk: { events: [{ id: gid('Event', 'bulk'), __typename: 'Event' }], errors: [], __typename: 'EventStaffBulkPayload' },
        },
      },
    });
    t.like(
      (await staffRows()).find((r) => r.event_id === ids.bulk),
      {
        contact_id: ids.bob,
        staff_type: 'instructor',
        is_primary: true,
        notes: 'added via workflow',
      },
    );
    // A list: all or none. Bob cannot teach Solo (10:00-12:00) beside Bulk day; Carol runs it.
    const before = await staffRows();
    const some = await f.gql(
      f.admin,
      `mutation { event { addStaffBulk(input: [{ eventId: "${gid('Event', 'solo')}" contactId: "${gid('Contact', 'carol')}" staffType: administrator }, { eventId: "${gid('Event', 'solo')}" contactId: "${gid('Contact', 'bob')}" staffType: instructor }]) { events { id } errors { label message } } } }`,
    );
    t.is(some.json.data.event.addStaffBulk.events, null);
    t.deepEqual(
      some.json.data.event.addStaffBulk.errors.map((e: { label: string }) => e.label),
      ['input[1].contactId'],
    );
    t.regex(
      some.json.data.event.addStaffBulk.errors[0].message,
      /Bob Staff cannot teach session 'Solo day'.*they teach session 'Bulk day'/,
    );
    t.deepEqual(await staffRows(), before, 'nothing written');
    const fine = await f.gql(
      f.admin,
      `mutation { event { addStaffBulk(input: [{ eventId: "${gid('Event', 'solo')}" contactId: "${gid('Contact', 'carol')}" staffType: administrator }, { eventId: "${gid('Event', 'solo')}" contactId: "${gid('Contact', 'ian')}" staffType: instructor }, { eventId: "${gid('Event', 'bulk')}" contactId: "${gid('Contact', 'carol')}" staffType: administrator }]) { events { id } errors { label message } } } }`,
    );
    t.deepEqual(fine.json.data.event.addStaffBulk, { events: [{ id: gid('Event', 'solo') }, { id: gid('Event', 'bulk') }], errors: [] });
    t.deepEqual(
      (await staffOf('solo')).map((s: { staffType: string; isPrimary: boolean }) => [s.staffType, s.isPrimary]),
      [
        ['administrator', false],
        ['instructor', true],
      ],
    );
  },
);

test.serial(
  'when jump-ball removes a staff member by the Staff id Event.staff answered, then it is gone and the next instructor is primary',
  async (t) => {
    const [, ada] = await staffOf('firstAid');
    t.like(ada, { contact: { id: gid('Contact', 'ada') }, isPrimary: true });
    const res = await f.data(f.admin, REMOVE, { staffId: ada.id });
    t.deepEqual(res.event.removeStaff, { errors: [] });
    t.deepEqual(
      (await staffOf('firstAid')).map((s: { contact: { id: string }; isPrimary: boolean }) => [s.contact.id, s.isPrimary]),
      [
        [gid('Contact', 'carol'), false],
        [gid('Contact', 'bob'), true],
      ],
    );
    // Again: nothing to remove. Another type's id, likewise.
    t.deepEqual((await f.data(f.admin, REMOVE, { staffId: ada.id })).event.removeStaff.errors, [
      { label: 'staffId', value: ada.id, message: 'Staff not found' },
    ]);
    t.deepEqual(
      (await f.data(f.admin, REMOVE, { staffId: gid('Event', 'firstAid') })).event.removeStaff.errors[0].message,
      'Staff not found',
    );
    // Lectern sends staff no notices: asking for one is refused, not pretended.
    const [carol] = await staffOf('firstAid');
    const notify = await f.data(
      f.admin,
      `mutation ($staffId: ID!) { event { removeStaff(input: { staffId: $staffId, notifyStaff: true }) { errors { label } event { id } } } }`,
      { staffId: carol.id },
    );
    t.deepEqual(notify.event.removeStaff, { errors: [{ label: 'notifyStaff' }], event: null });
    // `notifyStaff: False` (as the jump-ball file has it) is not a Boolean: the request is refused whole.
    const bad = await f.gql(
      f.admin,
      `mutation ($staffId: ID!) { event { removeStaff(input: { staffId: $staffId, notifyStaff: False }) { errors { label } } } }`,
      {
        staffId: carol.id,
      },
    );
    t.truthy(bad.json.errors?.length);
    t.is((await staffOf('firstAid')).length, 2);
    // The event in the payload, as the mutation's other clients select it.
    const withEvent = await f.data(
      f.admin,
      `mutation ($staffId: ID!) { event { removeStaff(input: { staffId: $staffId }) { errors { label } event { id staff { edges { node { id } } } } } } }`,
      { staffId: carol.id },
    );
    t.deepEqual(withEvent.event.removeStaff.event.id, gid('Event', 'firstAid'));
  },
);

test.serial(
  'when an event staff member is added, changed or removed, then Event Updated is captured for the event, and not for a repeat that changes nothing',
  async (t) => {
    const events = () =>
      withTenant(f.ctx.rt.knex, f.tenant, (db) =>
        db('webhook_events').where({ type_key: 'event_updated', record_id: ids.hooked }).count<{ n: number }[]>('* as n'),
      ).then((r) => Number(r[0]!.n));
    await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
      db('webhooks').insert({
        name: 'Staff changes',
        type_key: 'event_updated',
        url: 'http://127.0.0.1:9/hook',
        query: 'query ($objectid: ID!) { node(id: $objectid) { id } }',
        signing_secret: 'whsec_staff',
      }),
    );
    t.is(await events(), 0);
    t.deepEqual((await addActed('carol', 'hooked', 'administrator')).errors, []);
    t.is(await events(), 1);
    t.deepEqual((await addActed('carol', 'hooked', 'administrator')).errors, []);
    t.is(await events(), 1, 'a repeat that changes nothing is no change');
    const [staff] = await staffOf('hooked');
    t.deepEqual((await f.data(f.admin, REMOVE, { staffId: staff.id })).event.removeStaff.errors, []);
    t.is(await events(), 2);
    await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
      db('webhooks').where({ name: 'Staff changes' }).update({ lifecycle_state: 'disabled' }),
    );
  },
);

test.serial(
  'when one instructor is added in parallel to events whose sessions overlap, then exactly one is booked and the others are told the clash',
  async (t) => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        f.gql(f.admin, ACTED_ADD, { contactId: gid('Contact', 'cyd'), eventId: gid('Event', `race${i}`), staffType: 'instructor' }),
      ),
    );
    for (const a of answers) t.is(a.status, 200, a.text);
    const payloads = answers.map((a) => a.json.data.event.addStaff);
    const booked = payloads.filter((p) => p.errors.length === 0);
    t.is(booked.length, 1, JSON.stringify(payloads));
    for (const p of payloads.filter((x) => x.errors.length)) {
      t.is(p.event, null);
      t.is(p.errors[0].label, 'contactId');
      t.regex(
        p.errors[0].message,
        /^Cyd Staff cannot teach session 'Race day' .* at that time they teach session 'Race day' \(\d+\) of event 'Race \d'/,
      );
    }
    const rows = (await staffRows()).filter((r) => r.contact_id === ids.cyd);
    t.is(rows.length, 1);
    t.is(toGlobalId('Event', rows[0].event_id), booked[0].event.id);
  },
);

test.serial('when a page of events reads its staff and their contacts, then the statements do not grow with the page', async (t) => {
  await f.ctx.rt.changes.ensureStarted();
  const statementsFor = async (first: number) => {
    const { sql: sql, result: d } = await readStatements(f.ctx.rt.knex, () =>
      f.data(
        f.admin,
        `query ($first: Int) { events(first: $first, order: {field: title, direction: asc}) { edges { node { id staff(first: 10) { edges { node { id contact { id firstName } staffType isPrimary } } } } } } }`,
        { first },
      ),
    );
    t.is(d.events.edges.length, first);
    return sql.length;
  };
  const few = await statementsFor(3);
  const many = await statementsFor(12);
  t.is(many, few);
});

test.serial("when another tenant's user names this tenant's events, contacts or staff, then they name nothing there", async (t) => {
  const other = await f.ctx.freshTenant('staff-b');
  const token = await f.tokenFor(other, 'admin');
  const before = await staffRows();
  const add = await f.data(token, ACTED_ADD, { contactId: gid('Contact', 'ada'), eventId: gid('Event', 'lead'), staffType: 'instructor' });
  t.deepEqual(
    add.event.addStaff.errors.map((e: { label: string; message: string }) => [e.label, e.message]),
    [
      ['eventId', 'Event not found'],
      ['contactId', 'Contact not found'],
    ],
  );
  const bulk = await f.data(
    token,
    `mutation { event { addStaffBulk(input: { eventId: "${gid('Event', 'bulk')}" contactId: "${gid('Contact', 'bob')}" staffType: instructor }) { events { id } errors { label } } } }`,
  );
  t.deepEqual(bulk.event.addStaffBulk, { events: null, errors: [{ label: 'input[0].eventId' }, { label: 'input[0].contactId' }] });
  const [staff] = await staffOf('lead');
  t.deepEqual((await f.data(token, REMOVE, { staffId: staff.id })).event.removeStaff.errors[0].message, 'Staff not found');
  t.deepEqual((await f.data(token, `query ($id: ID!) { node(id: $id) { id } }`, { id: staff.id })).node, null);
  t.deepEqual(await staffRows(), before);
  t.deepEqual(await staffRows(other), []);
});

test.serial(
  'when a role lacks EVENT_EDIT or CONTACT_VIEW, then adding and removing staff are refused; without CONTACT_VIEW the staff show without contacts',
  async (t) => {
    const viewer = await f.tokenFor(f.tenant, 'staff-viewer', ['EVENT_VIEW', 'CONTACT_VIEW']);
    const noContacts = await f.tokenFor(f.tenant, 'staff-editor', ['EVENT_VIEW', 'EVENT_EDIT']);
    const before = await staffRows();
    for (const token of [viewer, noContacts]) {
      const res = await f.gql(token, ACTED_ADD, {
        contactId: gid('Contact', 'ian'),
        eventId: gid('Event', 'lead'),
        staffType: 'instructor',
      });
      t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
      t.is(res.json.data.event.addStaff, null);
    }
    const [staff] = await staffOf('lead');
    const removed = await f.gql(viewer, REMOVE, { staffId: staff.id });
    t.is(removed.json.errors[0].extensions.code, 'FORBIDDEN');
    t.deepEqual(await staffRows(), before);
    // EVENT_VIEW reads the staff; their contacts need CONTACT_VIEW.
    const read = await f.gql(noContacts, STAFF, { id: gid('Event', 'lead') });
    t.is(read.json.data.node.staff.edges.length, 2);
    t.is(read.json.data.node.staff.edges[0].node.contact, null);
    t.is(read.json.errors[0].extensions.code, 'FORBIDDEN');
    const plain = await f.data(
      noContacts,
      `query ($id: ID!) { node(id: $id) { ... on Event { staff { edges { node { staffType isPrimary } } } } } }`,
      {
        id: gid('Event', 'lead'),
      },
    );
    t.deepEqual(plain.node.staff.edges, [
      { node: { staffType: 'administrator', isPrimary: false } },
      { node: { staffType: 'instructor', isPrimary: true } },
    ]);
  },
);
