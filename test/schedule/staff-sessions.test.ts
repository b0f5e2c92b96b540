import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Session staff as acted adds them (real-clients.md section 5.C): `session.addStaff` with a list
 * built from one `ID!` variable and the session's id in a variable named `$eventId`. An
 * instructor teaches one session at a time, whether booked on the session itself or through an
 * event's staff; parallel bookings of one instructor onto overlapping sessions book one.
 */
let f: GraphQLFixture;
const ids: Record<string, number> = {};
const gid = (type: string, name: string) => toGlobalId(type, ids[name]!);

/** acted's session.addStaff, verbatim but for whitespace. */
const ACTED = `mutation ($contactId: ID!, $eventId: ID!, $staffType: StaffType!) {
  session { addStaff(input: { contactIds: [$contactId], sessionId: $eventId, staffType: $staffType }) { errors { label message value } session { id } } } }`;
const TYPED = `mutation ($input: SessionAddStaffInput!) { session { addStaff(input: $input) { errors { label message value } session { id } } } }`;
const EVENT_ADD = `mutation ($contactId: ID!, $eventId: ID!, $staffType: StaffType!) {
  event { addStaff(input: { contactId: $contactId, eventId: $eventId, staffType: $staffType }) { errors { label message value } event { id } } } }`;

const acted = async (contact: string, session: string, staffType: string, token = f.admin) =>
  (await f.data(token, ACTED, { contactId: gid('Contact', contact), eventId: gid('Session', session), staffType })).session.addStaff;
const staffOf = async (session: string) =>
  (
    await f.data(
      f.admin,
      `query ($id: ID!) { node(id: $id) { ... on Session { staff { edges { node { contact { id } staffType } } } } } }`,
      {
        id: gid('Session', session),
      },
    )
  ).node.staff.edges.map((e: { node: unknown }) => e.node);
const rows = () =>
  withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('session_staff').orderBy(['session_id', 'contact_id']).select('session_id', 'contact_id', 'staff_type'),
  );

test.serial.before(async () => {
  f = await graphqlFixture('sstaff');
  const contact = async (name: string, roles: Record<string, unknown>) => {
    ids[name.toLowerCase()] = (await f.api('POST', 'crm/contacts', { first_name: name, last_name: 'Tutor', ...roles })).json.id;
  };
  await contact('Ada', { is_tutor: true });
  await contact('Bea', { is_tutor: true });
  await contact('Cy', { is_tutor: true });
  await contact('Carol', { is_staff: true });
  await contact('Eve', {});
  const event = async (name: string, title: string) => {
    const tpl = (await f.api('POST', 'event/event_templates', { title })).json;
    ids[name] = (await f.api('POST', 'event/public_events', { event_template_id: tpl.id, classroom_start: '2027-06-01T09:00:00' })).json.id;
  };
  for (const [name, title] of [
    ['excel', 'Excel'],
    ['word', 'Word'],
    ['teams', 'Teams'],
    ['notes', 'OneNote'],
  ])
    await event(name!, title!);
  for (let i = 0; i < 6; i++) await event(`race${i}`, `Race ${i}`);
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const session = async (name: string, event: string, title: string, start: string, end: string) => {
      const [row] = await db('sessions')
        .insert({ event_id: ids[event], title, starts_at: start, ends_at: end, time_zone_name: 'Europe/London', lifecycle_state: 'draft' })
        .returning('id');
      ids[name] = row.id;
    };
    await session('excel1', 'excel', 'Excel morning', '2027-06-01T09:00:00Z', '2027-06-01T12:00:00Z');
    await session('excel2', 'excel', 'Excel afternoon', '2027-06-01T13:00:00Z', '2027-06-01T16:00:00Z');
    await session('word1', 'word', 'Word late morning', '2027-06-01T11:00:00Z', '2027-06-01T13:00:00Z');
    await session('teams1', 'teams', 'Teams', '2027-06-01T12:00:00Z', '2027-06-01T13:00:00Z');
    await session('notes1', 'notes', 'OneNote', '2027-06-01T15:00:00Z', '2027-06-01T17:00:00Z');
    for (let i = 0; i < 6; i++) await session(`race${i}s`, `race${i}`, `Race ${i} day`, '2027-07-01T09:00:00Z', '2027-07-01T10:00:00Z');
  });
});
test.after.always(async () => f?.close());

test.serial(
  'when acted adds an instructor to a session with the session id in $eventId, then the session answers it as its staff',
  async (t) => {
    t.deepEqual(await acted('ada', 'excel1', 'instructor'), { errors: [], session: { id: gid('Session', 'excel1') } });
    t.deepEqual(await staffOf('excel1'), [{ contact: { id: gid('Contact', 'ada') }, staffType: 'instructor' }]);
    // Again: the one staff member stays.
    t.deepEqual((await acted('ada', 'excel1', 'instructor')).errors, []);
    // An administrator beside her; a session's staff are not its event's.
    t.deepEqual((await acted('carol', 'excel1', 'administrator')).errors, []);
    t.deepEqual(await rows(), [
      { session_id: ids.excel1, contact_id: ids.ada, staff_type: 'instructor' },
      { session_id: ids.excel1, contact_id: ids.carol, staff_type: 'administrator' },
    ]);
    const event = await f.data(f.admin, `query ($id: ID!) { node(id: $id) { ... on Event { staff { edges { node { id } } } } } }`, {
      id: gid('Event', 'excel'),
    });
    t.deepEqual(event.node.staff.edges, []);
  },
);

test.serial(
  'when a session is given contacts without the role or ids that name nothing, then field errors say so and nothing is written',
  async (t) => {
    const before = await rows();
    const errors = async (input: Record<string, unknown>) => (await f.data(f.admin, TYPED, { input })).session.addStaff;
    t.deepEqual(
      await errors({
        contactIds: [gid('Contact', 'bea'), gid('Contact', 'eve')],
        sessionId: gid('Session', 'teams1'),
        staffType: 'instructor',
      }),
      {
        session: null,
        errors: [
          {
            label: 'contactIds[1]',
            value: gid('Contact', 'eve'),
            message: 'Eve Tutor is not an instructor: only a contact with the instructor role (isInstructor) can be an instructor',
          },
        ],
      },
    );
    t.deepEqual(
      (await errors({ contactIds: [gid('Contact', 'bea')], sessionId: toGlobalId('Session', 99999), staffType: 'instructor' })).errors,
      [{ label: 'sessionId', value: toGlobalId('Session', 99999), message: 'Session not found' }],
    );
    t.deepEqual((await errors({ contactIds: [gid('Contact', 'bea')], sessionId: gid('Event', 'teams'), staffType: 'instructor' })).errors, [
      { label: 'sessionId', value: gid('Event', 'teams'), message: 'Session not found' },
    ]);
    t.deepEqual(
      (await errors({ contactIds: [gid('Contact', 'bea')], staffType: 'instructor' })).errors.map((e: { label: string }) => e.label),
      ['sessionId'],
    );
    t.deepEqual(
      (await errors({ contactIds: [], sessionId: gid('Session', 'teams1'), staffType: 'instructor' })).errors.map(
        (e: { label: string }) => e.label,
      ),
      ['contactIds'],
    );
    t.deepEqual(
      (await errors({ contactIds: [gid('Contact', 'bea')], sessionId: gid('Session', 'teams1') })).errors.map(
        (e: { label: string }) => e.label,
      ),
      ['staffType'],
    );
    t.deepEqual(
      (await errors({ contactIds: [gid('Contact', 'eve')], sessionId: gid('Session', 'teams1'), staffType: 'administrator' })).errors,
      [
        {
          label: 'contactIds[0]',
          value: gid('Contact', 'eve'),
          message: 'Eve Tutor is not staff: only a contact with a staff role (isStaff or isAdmin) can be an administrator',
        },
      ],
    );
    t.deepEqual(await rows(), before);
  },
);

test.serial(
  "when an instructor is added to a session that overlaps one they teach, on a session or through an event's staff, then it is refused naming that session and its event",
  async (t) => {
    // Ada teaches Excel morning (09:00-12:00); Word's session runs 11:00-13:00.
    const before = await rows();
    t.deepEqual(await acted('ada', 'word1', 'instructor'), {
      session: null,
      errors: [
        {
          label: 'contactIds[0]',
          value: gid('Contact', 'ada'),
          message: `Ada Tutor cannot teach session 'Word late morning' (${ids.word1}) of event 'Word' (${ids.word}), 2027-06-01T11:00:00Z to 2027-06-01T13:00:00Z: at that time they teach session 'Excel morning' (${ids.excel1}) of event 'Excel' (${ids.excel}), 2027-06-01T09:00:00Z to 2027-06-01T12:00:00Z`,
        },
      ],
    });
    t.deepEqual(await rows(), before);
    // Teams starts at 12:00, when Excel morning ends.
    t.deepEqual((await acted('ada', 'teams1', 'instructor')).errors, []);
    // Word's whole event, through its staff, clashes likewise.
    const event = await f.data(f.admin, EVENT_ADD, {
      contactId: gid('Contact', 'ada'),
      eventId: gid('Event', 'word'),
      staffType: 'instructor',
    });
    t.regex(event.event.addStaff.errors[0].message, /cannot teach session 'Word late morning'.*they teach session 'Excel morning'/);
    // Bea teaches all of Excel (its staff): its afternoon is hers, so OneNote (15:00) is refused her on the session.
    t.deepEqual(
      (await f.data(f.admin, EVENT_ADD, { contactId: gid('Contact', 'bea'), eventId: gid('Event', 'excel'), staffType: 'instructor' }))
        .event.addStaff.errors,
      [],
    );
    const notes = await acted('bea', 'notes1', 'instructor');
    t.regex(notes.errors[0].message, /^Bea Tutor cannot teach session 'OneNote'.*they teach session 'Excel afternoon'/);
    // Several contacts at once: all or none.
    const both = await f.data(f.admin, TYPED, {
      input: { contactIds: [gid('Contact', 'cy'), gid('Contact', 'bea')], sessionId: gid('Session', 'notes1'), staffType: 'instructor' },
    });
    t.deepEqual(
      both.session.addStaff.errors.map((e: { label: string }) => e.label),
      ['contactIds[1]'],
    );
    t.deepEqual(await staffOf('notes1'), []);
    // Administrators are never double booked.
    t.deepEqual((await acted('carol', 'word1', 'administrator')).errors, []);
  },
);

test.serial('when a session gets staff, then Session Updated is captured for it', async (t) => {
  await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('webhooks').insert({
      name: 'Sessions',
      type_key: 'session_updated',
      url: 'http://127.0.0.1:9/hook',
      query: 'query ($objectid: ID!) { node(id: $objectid) { id } }',
      signing_secret: 'whsec_sessions',
    }),
  );
  t.deepEqual((await acted('cy', 'notes1', 'instructor')).errors, []);
  const captured = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('webhook_events').where({ type_key: 'session_updated' }).select('record_id'),
  );
  t.deepEqual(captured, [{ record_id: ids.notes1 }]);
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('webhooks').where({ name: 'Sessions' }).update({ lifecycle_state: 'disabled' }));
});

test.serial('when one instructor is added in parallel to overlapping sessions, then exactly one is booked', async (t) => {
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      f.gql(f.admin, ACTED, { contactId: gid('Contact', 'cy'), eventId: gid('Session', `race${i}s`), staffType: 'instructor' }),
    ),
  );
  const payloads = answers.map((a) => a.json.data.session.addStaff);
  t.is(payloads.filter((p) => p.errors.length === 0).length, 1, JSON.stringify(payloads));
  for (const p of payloads.filter((x) => x.errors.length)) t.regex(p.errors[0].message, /^Cy Tutor cannot teach session 'Race \d day'/);
  const raceSessions = new Set(Array.from({ length: 6 }, (_, i) => ids[`race${i}s`]));
  t.is((await rows()).filter((r) => r.contact_id === ids.cy && raceSessions.has(r.session_id)).length, 1);
});

test.serial(
  "when another tenant's user or a user without EVENT_EDIT adds session staff, then it is refused and nothing is written",
  async (t) => {
    const before = await rows();
    const other = await f.ctx.freshTenant('sstaff-b');
    const foreign = await acted('bea', 'teams1', 'instructor', await f.tokenFor(other, 'admin'));
    t.deepEqual(
      foreign.errors.map((e: { label: string; message: string }) => [e.label, e.message]),
      [
        ['sessionId', 'Session not found'],
        ['contactIds[0]', 'Contact not found'],
      ],
    );
    const viewer = await f.tokenFor(f.tenant, 'session-viewer', ['EVENT_VIEW', 'CONTACT_VIEW']);
    const res = await f.gql(viewer, ACTED, {
      contactId: gid('Contact', 'bea'),
      eventId: gid('Session', 'teams1'),
      staffType: 'instructor',
    });
    t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
    t.deepEqual(await rows(), before);
  },
);

test.serial(
  'when a session is moved onto a time its instructor teaches another session, then session.update is refused naming the clash, and the session stays; a time that clashes with nothing is taken',
  async (t) => {
    await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      for (const [name, start, end] of [
        ['mvA', '2027-08-02T09:00:00Z', '2027-08-02T10:00:00Z'],
        ['mvB', '2027-08-02T11:00:00Z', '2027-08-02T12:00:00Z'],
      ] as const) {
        const [row] = await db('sessions')
          .insert({ event_id: ids.notes, title: name, starts_at: start, ends_at: end, time_zone_name: 'Europe/London' })
          .returning('id');
        ids[name] = row.id;
      }
    });
    t.deepEqual((await acted('cy', 'mvA', 'instructor')).errors, []);
    t.deepEqual((await acted('cy', 'mvB', 'instructor')).errors, []);
    const move = async (start: string, end: string) =>
      (
        await f.data(
          f.admin,
          `mutation ($id: ID!, $start: LocalDateTime!, $end: LocalDateTime!) { session { update(sessionId: $id, input: {start: $start, end: $end}) {
            session { start end } errors { label message } } } }`,
          { id: gid('Session', 'mvB'), start, end },
        )
      ).session.update;
    // 10:30 to 11:00 in London (summer time) is 09:30 to 10:00 UTC: inside mvA.
    const refused = await move('2027-08-02T10:30:00', '2027-08-02T11:00:00');
    t.is(refused.session, null);
    t.deepEqual(
      refused.errors.map((e: { label: string }) => e.label),
      ['start'],
    );
    t.regex(refused.errors[0].message, /Cy Tutor cannot teach session 'mvB'.*they teach session 'mvA'/);
    const stored = await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('sessions').where({ id: ids.mvB }).first('starts_at'));
    t.is(stored.starts_at.toISOString(), '2027-08-02T11:00:00.000Z');
    const taken = await move('2027-08-02T12:00:00', '2027-08-02T13:00:00');
    t.deepEqual(taken, { session: { start: '2027-08-02T11:00:00Z', end: '2027-08-02T12:00:00Z' }, errors: [] });
  },
);
