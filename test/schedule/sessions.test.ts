import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { readStatements } from '../helpers/statements.js';

/**
 * Sessions (real-clients.md section 5.C): an event made by createBlended, createClassroom or
 * createLMS has its sessions at once (one a day of its classroom period, or one over it as its
 * course template says), `Event.sessions` lists them as the sync service (acted) and the n8n
 * workflows (auto) read them, and `session { update delete }` change them, as those clients send
 * them. Another instance's sessions and venues are not reached; permissions are EVENT_*.
 */
let f: GraphQLFixture;
let location: string;
let otherLocation: string;
let taxType: string;
let template: string;
let single: string;
let hall: string;
let annex: string;
/** The session custom field's definition (a definition applying to sessions), by global id and key. */
let roomDef: string;
const ids: Record<string, string> = {};
let other: Tenant;
let otherAdmin: string;

const legacy = (id: string | undefined) =>
  Number(
    Buffer.from(id ?? '', 'base64')
      .toString()
      .split(':')[1],
  );

test.serial.before(async () => {
  f = await graphqlFixture('sess');
  const made = await f.data(
    f.admin,
    `mutation {
      l: location { create(input: {name: "Holborn Centre", timeZoneName: "Europe/London"}) { location { id } errors { message } } }
      m: location { create(input: {name: "Leeds"}) { location { id } errors { message } } }
      t: taxType { create(input: {name: "Standard VAT", rate: 20}) { taxType { id } errors { message } } }
      c: courseTemplate { create(input: {title: "Actuarial Statistics", code: "CB1"}) { courseTemplate { id sessionLayout } errors { message } } }
      s: courseTemplate { create(input: {title: "Exam day", sessionLayout: single}) { courseTemplate { id sessionLayout } errors { message } } } }`,
  );
  location = made.l.create.location.id;
  otherLocation = made.m.create.location.id;
  taxType = made.t.create.taxType.id;
  template = made.c.create.courseTemplate.id;
  single = made.s.create.courseTemplate.id;
  if (made.c.create.courseTemplate.sessionLayout !== 'per_day' || made.s.create.courseTemplate.sessionLayout !== 'single')
    throw new Error(JSON.stringify(made));
  const venues = await f.data(
    f.admin,
    `mutation ($l: ID!) {
      a: venue { create(input: {name: "Main Hall", description: "Ground floor", locationId: $l}) { venue { id } errors { message } } }
      b: venue { create(input: {name: "Annex Room 2", locationId: $l}) { venue { id } errors { message } } } }`,
    { l: location },
  );
  hall = venues.a.create.venue.id;
  annex = venues.b.create.venue.id;
  // A custom field of sessions, made as an integrator makes one (customFieldTemplate(type: Session) lists it).
  const defs = await f.data(
    f.admin,
    `mutation {
      r: customFieldDefinition { create(input: {key: "exam_room", label: "Exam room", type: TEXT, appliesTo: SESSION}) { customFieldDefinition { id appliesTo } errors { label message } } }
      s: customFieldDefinition { create(input: {key: "sitting", label: "Sitting", type: TEXT, appliesTo: EVENT}) { customFieldDefinition { id } errors { label message } } }
    }`,
  );
  if (defs.r.create.errors.length || defs.s.create.errors.length) throw new Error(JSON.stringify(defs));
  roomDef = defs.r.create.customFieldDefinition.id;
  other = await f.ctx.freshTenant('sessb');
  otherAdmin = await f.tokenFor(other, 'admin');
});
test.after.always(async () => f?.close());

test.serial(
  'when custom fields are defined for sessions, then customFieldTemplate(type: Session) lists them, and a translatable one is refused',
  async (t) => {
    const d = await f.data(
      f.admin,
      `mutation { customFieldDefinition { create(input: {key: "room_fr", label: "Salle", type: TEXT, appliesTo: SESSION, isTranslatable: true}) {
      customFieldDefinition { id } errors { label message } } } }`,
    );
    t.is(d.customFieldDefinition.create.customFieldDefinition, null);
    t.deepEqual(d.customFieldDefinition.create.errors, [
      { label: 'isTranslatable', message: 'Session custom fields cannot be translatable' },
    ]);
    const template = await f.data(f.admin, `{ customFieldTemplate(type: Session) { customFieldDefinitions { key label } } }`);
    t.deepEqual(template.customFieldTemplate.customFieldDefinitions, [{ key: 'exam_room', label: 'Exam room' }]);
  },
);

/** acted's createBlended, with the sessions it reads back. */
const CREATE_BLENDED = `mutation makeBlended($title: String!, $locationId: ID!, $venueId: ID, $eventType: EventType!, $taxType: ID!, $courseTemplateId: ID!,
  $timeZoneName: String!, $classroomStartDateTime: LocalDateTime!, $classroomEndDateTime: LocalDateTime!, $lmsStartDateTime: LocalDateTime!, $lmsEndDateTime: LocalDateTime!,
  $maxPlaces: Int) {
  event { createBlended(input: { courseTemplateId: $courseTemplateId, title: $title, eventType: $eventType, locationId: $locationId, venueId: $venueId, taxType: $taxType,
      timeZoneName: $timeZoneName, classroomStartDateTime: $classroomStartDateTime, classroomEndDateTime: $classroomEndDateTime,
      lmsStartDateTime: $lmsStartDateTime, lmsEndDateTime: $lmsEndDateTime, maxPlaces: $maxPlaces }) {
    event { id legacyId location { id } venue { id } sessions { edges { node { id legacyId } } } }
    errors { label message value } } } }`;

const blendedVars = (over: Record<string, unknown> = {}) => ({
  title: 'CB1-01-26S',
  locationId: location,
  venueId: hall,
  eventType: 'public',
  taxType,
  courseTemplateId: template,
  timeZoneName: 'Europe/London',
  classroomStartDateTime: '2026-09-01T09:00:00',
  classroomEndDateTime: '2026-09-03T17:00:00',
  lmsStartDateTime: '2026-08-01T00:00:00',
  lmsEndDateTime: '2026-09-30T23:59:00',
  maxPlaces: null,
  ...over,
});

/** acted's session.update, each key a variable as it sends them. */
const UPDATE = `mutation updateSession($sessionId: ID!, $lifecycleState: SessionLifecycleState!, $title: String!, $locationId: ID!, $venueId: ID,
  $timeZoneName: String!, $start: LocalDateTime!, $end: LocalDateTime!, $roomKey: ID!, $room: String) {
  session { update(sessionId: $sessionId, input: { lifecycleState: $lifecycleState, title: $title, locationId: $locationId, venueId: $venueId,
      timeZoneName: $timeZoneName, start: $start, end: $end, customFieldValues: [{ definitionKey: $roomKey, value: $room }] }) {
    session { id legacyId lifecycleState }
    errors { label value message } } } }`;

const SESSION_TREE = `id legacyId title start end lifecycleState timeZonedStart timeZonedEnd
    event { id } venue { id } location { id } customFieldValues { definitionKey value }
    resourceBookings { edges { node { id start end resource { id name } } } }`;
const READ_SESSIONS = `query ($id: ID!) { node(id: $id) { ... on Event { sessions { edges { node { ${SESSION_TREE} } }
  pageInfo { totalRecords hasPreviousPage hasNextPage startCursor endCursor } } } } }`;
const sessionsOf = async (eventId: string | undefined, token = f.admin) =>
  (await f.data(token, READ_SESSIONS, { id: eventId })).node.sessions;
const READ_SESSION = `query ($id: ID!) { node(id: $id) { __typename ... on Session { ${SESSION_TREE} } } }`;
const readSession = async (id: string | undefined) => (await f.data(f.admin, READ_SESSION, { id })).node;

async function blended(over: Record<string, unknown> = {}) {
  const res = (await f.data(f.admin, CREATE_BLENDED, blendedVars(over))).event.createBlended;
  if (res.errors.length) throw new Error(JSON.stringify(res.errors));
  return res.event;
}

test.serial(
  "when the sync service creates a blended event, then it reads one draft session a day in start order (edges[day-1]), at the event's place and on its clock",
  async (t) => {
    const event = await blended();
    ids.event = event.id;
    t.like(event, { location: { id: location }, venue: { id: hall } });
    t.is(event.sessions.edges.length, 3);
    const sessions = await sessionsOf(event.id);
    t.deepEqual(sessions.pageInfo, {
      totalRecords: 3,
      hasPreviousPage: false,
      hasNextPage: false,
      startCursor: sessions.pageInfo.startCursor,
      endCursor: sessions.pageInfo.endCursor,
    });
    t.truthy(sessions.pageInfo.endCursor);
    // British Summer Time: 09:00 in London is 08:00 UTC.
    sessions.edges.forEach((e: { node: Record<string, unknown> }, i: number) => {
      const day = `2026-09-0${i + 1}`;
      t.deepEqual(e.node, {
        id: event.sessions.edges[i].node.id,
        legacyId: event.sessions.edges[i].node.legacyId,
        title: `CB1-01-26S – Day ${i + 1}`,
        start: `${day}T08:00:00Z`,
        end: `${day}T16:00:00Z`,
        lifecycleState: 'draft',
        timeZonedStart: `${day}T09:00:00`,
        timeZonedEnd: `${day}T17:00:00`,
        event: { id: event.id },
        venue: { id: hall },
        location: { id: location },
        customFieldValues: [],
        resourceBookings: { edges: [] },
      });
    });
    ids.day1 = sessions.edges[0].node.id;
    ids.day2 = sessions.edges[1].node.id;
    ids.day3 = sessions.edges[2].node.id;
    // A session is a Node: node(id) answers it as the list does.
    t.deepEqual(await readSession(ids.day2), { __typename: 'Session', ...sessions.edges[1].node });
  },
);

test.serial(
  'when the sync service updates each day as it sends it, then each answers its new state and reads back with its times, place and custom field',
  async (t) => {
    const days = [
      { id: ids.day1, venueId: annex, start: '2026-09-01T10:00:00', end: '2026-09-01T16:30:00', room: 'R1' },
      // A nullable venue sent as null: the session has none.
      { id: ids.day2, venueId: null, start: '2026-09-02T09:30:00', end: '2026-09-02T17:00:00', room: null },
    ];
    for (const [i, day] of days.entries()) {
      const res = (
        await f.data(f.admin, UPDATE, {
          sessionId: day.id,
          lifecycleState: 'published',
          title: `Sitting day ${i + 1}`,
          locationId: otherLocation,
          venueId: day.venueId,
          timeZoneName: 'Europe/London',
          start: day.start,
          end: day.end,
          roomKey: roomDef,
          room: day.room,
        })
      ).session.update;
      t.deepEqual(res, { session: { id: day.id, legacyId: legacy(day.id), lifecycleState: 'published' }, errors: [] });
    }
    t.like(await readSession(ids.day1), {
      title: 'Sitting day 1',
      lifecycleState: 'published',
      start: '2026-09-01T09:00:00Z',
      end: '2026-09-01T15:30:00Z',
      timeZonedStart: '2026-09-01T10:00:00',
      timeZonedEnd: '2026-09-01T16:30:00',
      location: { id: otherLocation },
      venue: { id: annex },
      customFieldValues: [{ definitionKey: 'exam_room', value: 'R1' }],
    });
    t.like(await readSession(ids.day2), { title: 'Sitting day 2', venue: null, customFieldValues: [], start: '2026-09-02T08:30:00Z' });
    // null clears a value the session has; the key works as well as the definition's id; inline `published` as auto sends it.
    const cleared = await f.data(
      f.admin,
      `mutation ($id: ID!) { session { __typename update(sessionId: $id, input: {lifecycleState: published, customFieldValues: [{definitionKey: "exam_room", value: null}]}) { session { customFieldValues { value } } errors { message } } } }`,
      { id: ids.day1 },
    );
    t.deepEqual(cleared.session, { __typename: 'SessionMutations', update: { session: { customFieldValues: [] }, errors: [] } });

    // acted's filter: the sessions still draft (day 3), with the state as a String variable.
    const drafts = await f.data(
      f.admin,
      `query ($eventId: String!, $sessionLifecycleState: String!) { events(filters: [{field: id, operation: eq, value: $eventId}]) { edges { node { id
        sessions(filters: [{field: lifecycleState, operation: eq, value: $sessionLifecycleState}]) { edges { node { id legacyId title } } } } } } }`,
      { eventId: ids.event, sessionLifecycleState: 'draft' },
    );
    t.deepEqual(drafts.events.edges[0].node.sessions.edges, [
      { node: { id: ids.day3, legacyId: legacy(ids.day3), title: 'CB1-01-26S – Day 3' } },
    ]);
  },
);

test.serial('when an update is wrong, then each mistake is a field error and the session stays as it was', async (t) => {
  const before = await readSession(ids.day3);
  const noLocation = toGlobalId('Location', 999999);
  const res = (
    await f.data(f.admin, UPDATE, {
      sessionId: ids.day3,
      lifecycleState: 'published',
      title: 'Changed',
      locationId: noLocation,
      venueId: toGlobalId('Venue', 999999),
      timeZoneName: 'Mars/Olympus',
      start: '2026-09-03T17:00:00',
      end: '2026-09-03T09:00:00',
      roomKey: 'sitting',
      room: 'x',
    })
  ).session.update;
  t.is(res.session, null);
  t.deepEqual(
    res.errors.map((e: { label: string }) => e.label),
    ['locationId', 'venueId', 'timeZoneName', 'customFieldValues[0].definitionKey'],
  );
  t.deepEqual(res.errors[0], { label: 'locationId', value: noLocation, message: 'Location not found' });
  t.regex(res.errors[3].message, /does not apply to this Session/);
  // With a known zone, the end before the start is named.
  const backwards = (
    await f.data(f.admin, UPDATE, {
      sessionId: ids.day3,
      lifecycleState: 'published',
      title: 'Changed',
      locationId: location,
      venueId: null,
      timeZoneName: 'Europe/London',
      start: '2026-09-03T17:00:00',
      end: '2026-09-03T09:00:00',
      roomKey: 'exam_room',
      room: 'x',
    })
  ).session.update;
  t.deepEqual(backwards.errors, [{ label: 'end', value: '2026-09-03T09:00:00', message: 'end must not be before start' }]);
  // A local date-time with an offset is refused by the scalar, as for events.
  const offset = await f.gql(
    f.admin,
    `mutation { session { update(sessionId: "${ids.day3}", input: {start: "2026-09-03T09:00:00Z"}) { errors { message } } } }`,
  );
  t.regex(offset.json.errors[0].message, /has an offset/);
  t.deepEqual(await readSession(ids.day3), before);
  // Changing only the zone keeps the local times: the instants move.
  const moved = await f.data(
    f.admin,
    `mutation ($id: ID!) { session { update(sessionId: $id, input: {timeZoneName: "America/New_York"}) { session { start timeZonedStart } errors { message } } } }`,
    { id: ids.day3 },
  );
  t.deepEqual(moved.session.update, { session: { start: '2026-09-03T13:00:00Z', timeZonedStart: '2026-09-03T09:00:00' }, errors: [] });
});

test.serial(
  "when auto asks for an event's last past session that is not cancelled, then filters, one order object and first: 1 answer it",
  async (t) => {
    const res = (
      await f.data(
        f.admin,
        `mutation { event { createClassroom(input: {eventType: public, title: "Past week", timeZoneName: "UTC", classroomStartDateTime: "2025-01-06T09:00", classroomEndDateTime: "2025-01-10T12:00"}) { event { id sessions { edges { node { id } } } } errors { message } } } }`,
      )
    ).event.createClassroom;
    t.deepEqual(res.errors, []);
    const [, , , day4, day5] = res.event.sessions.edges.map((e: { node: { id: string } }) => e.node.id);
    const cancel = await f.data(
      f.admin,
      `mutation ($id: ID!) { session { update(sessionId: $id, input: {lifecycleState: cancelled}) { errors { message } } } }`,
      { id: day5 },
    );
    t.deepEqual(cancel.session.update.errors, []);
    const now = new Date().toISOString();
    const last = await f.data(
      f.admin,
      `query ($id: String!) { events(filters: [{field: id, operation: eq, value: $id}]) { edges { node { id
        sessions(filters: [{field: start, operation: le, value: "${now}"}, {field: lifecycleState, operation: ne, value: "cancelled"}], order: {field: start, direction: desc}, first: 1) {
          edges { node { id title start end lifecycleState } } pageInfo { totalRecords hasNextPage } } } } } }`,
      { id: res.event.id },
    );
    t.deepEqual(last.events.edges[0].node.sessions, {
      edges: [
        {
          node: {
            id: day4,
            title: 'Past week – Day 4',
            start: '2025-01-09T09:00:00Z',
            end: '2025-01-09T12:00:00Z',
            lifecycleState: 'draft',
          },
        },
      ],
      pageInfo: { totalRecords: 4, hasNextPage: true },
    });
    // A single filter object where a list is expected reads as a list of one.
    const one = await f.data(
      f.admin,
      `query ($id: ID!) { node(id: $id) { ... on Event { sessions(filters: {field: lifecycleState, operation: eq, value: "cancelled"}) { edges { node { id } } } } } }`,
      { id: res.event.id },
    );
    t.deepEqual(one.node.sessions.edges, [{ node: { id: day5 } }]);
  },
);

test.serial(
  "when auto pages an event's sessions 100 at a time on endCursor, then it reads every one once and sums their hours",
  async (t) => {
    // 150 days of classroom: a session a day, 09:00 to 17:00.
    const res = (
      await f.data(
        f.admin,
        `mutation { event { createClassroom(input: {eventType: public, title: "Long course", timeZoneName: "Europe/Paris", classroomStartDateTime: "2026-01-05T09:00", classroomEndDateTime: "2026-06-03T17:00"}) { event { id } errors { message } } } }`,
      )
    ).event.createClassroom;
    t.deepEqual(res.errors, []);
    // The workflow's query as it sends it: the event by an id filter (at most one event: costed so, or
    // its 100-session pages would pass the cost limit only for a list of one page of events).
    const PAGE = `query EventSessions($id: String!, $after: String) {
      events(filters: [{ field: id, operation: eq, value: $id }]) { edges { node { id title customFieldValues { definitionKey value }
        sessions(first: 100, after: $after) { edges { node { id title start end lifecycleState } } pageInfo { hasNextPage endCursor totalRecords } } } } } }`;
    const seen: { id: string; start: string; end: string }[] = [];
    let after: string | null = null;
    let pages = 0;
    for (; pages < 50; pages++) {
      const page: {
        edges: { node: { id: string; start: string; end: string } }[];
        pageInfo: { totalRecords: number; hasNextPage: boolean; endCursor: string };
      } = (await f.data(f.admin, PAGE, { id: res.event.id, after })).events.edges[0].node.sessions;
      t.is(page.pageInfo.totalRecords, 150);
      seen.push(...page.edges.map((e) => e.node));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    t.is(pages + 1, 2);
    t.is(new Set(seen.map((s) => s.id)).size, 150);
    // In start order, across Paris's change to summer time (09:00 is 08:00 UTC in winter, 07:00 in summer).
    t.is(seen[0]!.start, '2026-01-05T08:00:00Z');
    t.is(seen.at(-1)!.start, '2026-06-03T07:00:00Z');
    t.true(seen.every((s, i) => i === 0 || s.start > seen[i - 1]!.start));
    const hours = seen.reduce((n, s) => n + (Date.parse(s.end) - Date.parse(s.start)) / 3_600_000, 0);
    t.is(hours, 150 * 8);
  },
);

test.serial(
  "when a template's session layout is single, an event is online, or it is duplicated, then its sessions follow: one over the period, one over the online period, copies",
  async (t) => {
    const exam = await blended({ courseTemplateId: single, title: 'Exam', venueId: null });
    const sessions = await sessionsOf(exam.id);
    t.is(sessions.edges.length, 1);
    t.like(sessions.edges[0].node, {
      title: 'Exam',
      start: '2026-09-01T08:00:00Z',
      end: '2026-09-03T16:00:00Z',
      venue: null,
      location: { id: location },
    });
    // The layout is the template's to change.
    const changed = await f.data(
      f.admin,
      `mutation ($id: ID!) { courseTemplate { update(courseTemplateId: $id, input: {sessionLayout: per_day}) { courseTemplate { sessionLayout } errors { message } } } }`,
      { id: single },
    );
    t.deepEqual(changed.courseTemplate.update, { courseTemplate: { sessionLayout: 'per_day' }, errors: [] });
    t.is((await blended({ courseTemplateId: single })).sessions.edges.length, 3);

    const lms = (
      await f.data(
        f.admin,
        `mutation { event { createLMS(input: {eventType: public, title: "Online", timeZoneName: "UTC", lmsStartDateTime: "2026-01-01T00:00:00", lmsEndDateTime: "2026-03-31T23:59:00"}) { event { id sessions { edges { node { title start end } } } } errors { message } } } }`,
      )
    ).event.createLMS;
    t.deepEqual(lms.event.sessions.edges, [{ node: { title: 'Online', start: '2026-01-01T00:00:00Z', end: '2026-03-31T23:59:00Z' } }]);

    // A duplicate copies the sessions as they are now, with their custom field values.
    await f.data(
      f.admin,
      `mutation ($id: ID!, $key: ID!) { session { update(sessionId: $id, input: {customFieldValues: [{definitionKey: $key, value: "Hall B"}]}) { errors { message } } } }`,
      { id: ids.day2, key: roomDef },
    );
    const copy = (
      await f.data(
        f.admin,
        `mutation ($id: ID!) { event { duplicate(eventId: $id) { event { id sessions { edges { node { id title start lifecycleState venue { id } customFieldValues { value } } } } } errors { message } } } }`,
        { id: ids.event },
      )
    ).event.duplicate.event;
    const source = await sessionsOf(ids.event);
    t.deepEqual(
      copy.sessions.edges.map((e: { node: Record<string, unknown> }) => ({ ...e.node, id: undefined })),
      source.edges.map((e: { node: Record<string, unknown> }) => ({
        id: undefined,
        title: e.node.title,
        start: e.node.start,
        lifecycleState: e.node.lifecycleState,
        venue: e.node.venue,
        customFieldValues: (e.node.customFieldValues as { value: string }[]).map((v) => ({ value: v.value })),
      })),
    );
    t.true(copy.sessions.edges.every((e: { node: { id: string } }, i: number) => e.node.id !== source.edges[i].node.id));
    t.deepEqual(copy.sessions.edges[1].node.customFieldValues, [{ value: 'Hall B' }]);
  },
);

const DELETE = `mutation deleteSessions($sessionids: [ID]!) { session { delete(input: { sessionIds: $sessionids }) { errors { label message value } } } }`;

test.serial('when sessions are deleted, then all named go or none does', async (t) => {
  const event = await blended({ title: 'To trim' });
  const [a, b, c] = event.sessions.edges.map((e: { node: { id: string } }) => e.node.id);
  const missing = toGlobalId('Session', 987654);
  const refused = await f.data(f.admin, DELETE, { sessionids: [a, missing, null] });
  t.deepEqual(refused.session.delete.errors, [
    { label: 'sessionIds[1]', message: 'Session not found', value: missing },
    { label: 'sessionIds[2]', message: 'Session not found', value: null },
  ]);
  t.is((await sessionsOf(event.id)).edges.length, 3);
  t.deepEqual((await f.data(f.admin, DELETE, { sessionids: [a, c] })).session.delete.errors, []);
  t.deepEqual(
    (await sessionsOf(event.id)).edges.map((e: { node: { id: string } }) => e.node.id),
    [b],
  );
  t.is((await f.data(f.admin, READ_SESSION, { id: a })).node, null);
});

test.serial('when a page of events reads its sessions and what they name, then the statements do not grow with the page', async (t) => {
  await f.ctx.rt.changes.ensureStarted();
  const statementsFor = async (first: number) => {
    const { sql: sql, result: d } = await readStatements(f.ctx.rt.knex, () =>
      f.data(
        f.admin,
        `query ($first: Int) { events(first: $first, filters: [{field: title, operation: ne, value: "Long course"}]) { edges { node { id
        sessions { edges { node { id title start timeZonedStart event { id title } venue { id name } location { id name } customFieldValues { definitionKey value } } } pageInfo { totalRecords } } } } } }`,
        { first },
      ),
    );
    return {
      count: sql.length,
      edges: d.events.edges.length,
      sessions: d.events.edges.flatMap((e: { node: { sessions: { edges: unknown[] } } }) => e.node.sessions.edges).length,
      sql,
    };
  };
  await statementsFor(2);
  const small = await statementsFor(2);
  const large = await statementsFor(6);
  t.is(large.edges, 6);
  t.true(large.sessions > small.sessions);
  t.is(large.count, small.count, `${small.sql.join('\n')}\n--\n${large.sql.join('\n')}`);
});

test.serial("when another instance's session or venue ids are sent, then they name nothing here", async (t) => {
  // Their sessions have ids this instance has not reached.
  const theirs = await withTenant(f.ctx.rt.knex, other, async (db) => {
    await db.raw(`select setval(pg_get_serial_sequence('sessions', 'id'), 500000)`);
    await db.raw(`select setval(pg_get_serial_sequence('venues', 'id'), 500000)`);
    return null;
  });
  t.is(theirs, null);
  const made = await f.data(
    otherAdmin,
    `mutation { v: venue { create(input: {name: "Their hall"}) { venue { id } } }
      e: event { createClassroom(input: {eventType: public, title: "Theirs", timeZoneName: "UTC", classroomStartDateTime: "2026-02-02T09:00", classroomEndDateTime: "2026-02-02T10:00"}) { event { sessions { edges { node { id } } } } errors { message } } } }`,
  );
  const session = made.e.createClassroom.event.sessions.edges[0].node.id as string;
  const venue = made.v.create.venue.id as string;
  t.true(legacy(session) > 500000);
  t.is((await f.data(f.admin, READ_SESSION, { id: session })).node, null);
  const update = await f.data(
    f.admin,
    `mutation ($id: ID!) { session { update(sessionId: $id, input: {title: "Mine now"}) { session { id } errors { label message value } } } }`,
    { id: session },
  );
  t.deepEqual(update.session.update, { session: null, errors: [{ label: 'sessionId', message: 'Session not found', value: session }] });
  t.deepEqual((await f.data(f.admin, DELETE, { sessionids: [session] })).session.delete.errors, [
    { label: 'sessionIds[0]', message: 'Session not found', value: session },
  ]);
  const withTheirVenue = await f.data(
    f.admin,
    `mutation ($id: ID!, $v: ID) { session { update(sessionId: $id, input: {venueId: $v}) { session { id } errors { label message value } } } }`,
    { id: ids.day3, v: venue },
  );
  t.deepEqual(withTheirVenue.session.update.errors, [{ label: 'venueId', message: 'Venue not found', value: venue }]);
  const blendedThere = (await f.data(f.admin, CREATE_BLENDED, blendedVars({ venueId: venue }))).event.createBlended;
  t.deepEqual(blendedThere, { event: null, errors: [{ label: 'venueId', message: 'Venue not found', value: venue }] });
  // Theirs is untouched, and still theirs.
  t.deepEqual((await f.data(otherAdmin, `query ($id: ID!) { node(id: $id) { ... on Session { title } } }`, { id: session })).node, {
    title: 'Theirs',
  });
});

test.serial(
  'permissions: reading sessions needs EVENT_VIEW, changing them EVENT_EDIT (and LOCATION_VIEW to name a venue or location)',
  async (t) => {
    const forbidden = (res: { json: { errors?: { extensions: { code: string }; message: string }[] } }, permission: string) => {
      t.is(res.json.errors?.[0]?.extensions.code, 'FORBIDDEN');
      t.regex(res.json.errors?.[0]?.message ?? '', new RegExp(permission));
    };
    const nothing = await f.tokenFor(f.tenant, 'locale-only', ['LOCALE_VIEW']);
    forbidden(await f.gql(nothing, READ_SESSION, { id: ids.day3 }), 'EVENT_VIEW');
    const viewer = await f.tokenFor(f.tenant, 'event-viewer', ['EVENT_VIEW']);
    t.is(
      (await f.data(viewer, `query ($id: ID!) { node(id: $id) { ... on Session { title } } }`, { id: ids.day3 })).node.title,
      'CB1-01-26S – Day 3',
    );
    forbidden(await f.gql(viewer, DELETE, { sessionids: [ids.day3] }), 'EVENT_EDIT');
    forbidden(
      await f.gql(viewer, `mutation ($id: ID!) { session { update(sessionId: $id, input: {title: "x"}) { errors { message } } } }`, {
        id: ids.day3,
      }),
      'EVENT_EDIT',
    );
    const editor = await f.tokenFor(f.tenant, 'event-editor', ['EVENT_VIEW', 'EVENT_EDIT']);
    forbidden(
      await f.gql(
        editor,
        `mutation ($id: ID!, $v: ID) { session { update(sessionId: $id, input: {venueId: $v}) { errors { message } } } }`,
        {
          id: ids.day3,
          v: hall,
        },
      ),
      'LOCATION_VIEW',
    );
    // A session's venue and location are read with LOCATION_VIEW, as an event's are.
    forbidden(
      await f.gql(viewer, `query ($id: ID!) { node(id: $id) { ... on Session { venue { id } } } }`, { id: ids.day1 }),
      'LOCATION_VIEW',
    );
    t.is((await readSession(ids.day3)).title, 'CB1-01-26S – Day 3');
  },
);
