import test from 'ava';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * What the events list guards against (review of issue 15): a text search of many words is
 * refused before it reaches PostgreSQL; filters and orders that read course templates and
 * locations need their VIEW permission (textSearch looks only in what the caller may see); a
 * time zone alias PostgreSQL does not know is stored as the zone it names, so lists on times
 * keep working. Through real HTTP with real bearer tokens.
 */
let f: GraphQLFixture;
let secretTemplate: string;
const ev: Record<string, string> = {};

const OWN = 'Evening Course Spring';
const IN_SECRET = 'Plain Event One';
const AT_HIDDEN = 'Plain Event Two';

async function createEvent(input: Record<string, unknown>): Promise<string> {
  const d = await f.data(
    f.admin,
    'mutation ($input: ClassroomEventCreateInput!) { event { createClassroom(input: $input) { event { id } errors { label message } } } }',
    { input },
  );
  if (d.event.createClassroom.errors.length) throw new Error(JSON.stringify(d.event.createClassroom.errors));
  return d.event.createClassroom.event.id;
}

test.serial.before(async () => {
  f = await graphqlFixture('gelg');
  const made = await f.data(
    f.admin,
    `mutation {
    l: location { create(input: {name: "Hidden Quarry Hall", addressTown: "Leeds", addressCountryId: "GB", timeZoneName: "Europe/London"}) { location { id } } }
    ct: courseTemplate { create(input: {title: "Secret Template Zeta", code: "SECZ"}) { courseTemplate { id } } } }`,
  );
  secretTemplate = made.ct.create.courseTemplate.id;
  const base = {
    eventType: 'public',
    timeZoneName: 'Europe/London',
    classroomStartDateTime: '2027-06-10T09:00',
    classroomEndDateTime: '2027-06-10T17:00',
  };
  ev[OWN] = await createEvent({ ...base, title: OWN, code: 'EVS-1' });
  ev[IN_SECRET] = await createEvent({ ...base, title: IN_SECRET, code: 'PE-1', courseTemplateId: secretTemplate });
  ev[AT_HIDDEN] = await createEvent({ ...base, title: AT_HIDDEN, code: 'PE-2', locationId: made.l.create.location.id });
});
test.after.always(async () => f?.close());

const LIST =
  'query ($filters: [EventFieldGraphFilter], $orderBy: [EventFieldGraphOrder]) { events(filters: $filters, orderBy: $orderBy, first: 100) { pageInfo { totalRecords } edges { node { title } } } }';
const search = (token: string, filters: unknown[], orderBy?: unknown[]) => f.gql(token, LIST, { filters, ...(orderBy ? { orderBy } : {}) });
const titlesOf = (json: { data: { events: { edges: { node: { title: string } }[] } } }) =>
  json.data.events.edges.map((e) => e.node.title).sort();
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

test.serial(
  'when textSearch is given words of each text it looks in, then it keeps the events with every word somewhere in them',
  async (t) => {
    const cases: [unknown, string[]][] = [
      [{ field: 'textSearch', operation: 'eq', value: 'evening spring' }, [OWN]],
      [{ field: 'textSearch', operation: 'eq', value: 'evs-1' }, [OWN]],
      [{ field: 'textSearch', operation: 'eq', value: 'zeta plain' }, [IN_SECRET]],
      [{ field: 'textSearch', operation: 'eq', value: 'SECZ' }, [IN_SECRET]],
      [{ field: 'textSearch', operation: 'eq', value: 'quarry two' }, [AT_HIDDEN]],
      [{ field: 'textSearch', operation: 'eq', value: 'quarry one' }, []],
      [{ field: 'textSearch', operation: 'like', value: '%plain%event%' }, [IN_SECRET, AT_HIDDEN]],
      [{ field: 'textSearch', operation: 'contains', values: ['plain', 'hall'] }, [AT_HIDDEN]],
      // A word is a part of one text: it cannot span two of them.
      [{ field: 'textSearch', operation: 'eq', value: 'spring evs' }, [OWN]],
      [{ field: 'textSearch', operation: 'eq', value: 'springevs' }, []],
      // Wildcards in a word are taken as written.
      [{ field: 'textSearch', operation: 'eq', value: 'PE_1' }, []],
    ];
    for (const [filter, expected] of cases) {
      const res = await search(f.admin, [filter]);
      t.deepEqual(titlesOf(res.json), expected.sort(), JSON.stringify(filter));
    }
  },
);

test.serial(
  'when textSearch is given more than 10 different words in one list, then it is refused with a message saying so; the same word again counts once',
  async (t) => {
    const refused = async (filters: unknown[]) => {
      const res = await search(f.admin, filters);
      t.is(res.json.data, null, JSON.stringify(filters).slice(0, 100));
      t.is(res.json.errors[0].extensions.code, 'BAD_USER_INPUT');
      t.regex(res.json.errors[0].message, /textSearch: at most 10 different words/);
    };
    await refused([{ field: 'textSearch', operation: 'eq', value: words(11) }]);
    // 500 words of one letter each (a 999-character value).
    await refused([
      { field: 'textSearch', operation: 'eq', value: Array.from({ length: 500 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(' ') },
    ]);
    // Over a filter's values, and over the list's filters.
    await refused([{ field: 'textSearch', operation: 'contains', values: ['a1 a2', 'a3 a4', 'a5 a6', 'a7 a8', 'a9 a10', 'a11'] }]);
    await refused([
      { field: 'textSearch', operation: 'eq', value: words(6) },
      { field: 'textSearch', operation: 'like', value: `%${words(12).split(' ').slice(6).join('%')}%` },
    ]);
    // Ten words are taken; repeated words (in any case) count once.
    const ten = await search(f.admin, [{ field: 'textSearch', operation: 'eq', value: `plain ${words(9)}` }]);
    t.is(ten.json.errors, undefined);
    t.deepEqual(titlesOf(ten.json), []);
    const repeated = await search(f.admin, [
      {
        field: 'textSearch',
        operation: 'contains',
        values: Array.from({ length: 100 }, (_, i) => (i % 2 ? 'PLAIN event' : 'plain Event')),
      },
    ]);
    t.is(repeated.json.errors, undefined, repeated.text);
    t.deepEqual(titlesOf(repeated.json), [IN_SECRET, AT_HIDDEN].sort());
  },
);

test.serial('when one request searches in many lists, then their words count toward its filter values', async (t) => {
  const list = (i: number, more = '') =>
    `l${i}: events(filters: [{field: textSearch, operation: eq, value: "${words(10)}"}${more}]) { pageInfo { totalRecords } }`;
  // 20 lists of 10 words: 200 filter values, the most a request takes.
  const all = await f.gql(f.admin, `{ ${Array.from({ length: 20 }, (_, i) => list(i)).join(' ')} }`);
  t.is(all.json.errors, undefined, all.text);
  t.is(all.json.data.l19.pageInfo.totalRecords, 0);
  // One filter more is one too many.
  const more = await f.gql(
    f.admin,
    `{ ${Array.from({ length: 20 }, (_, i) => list(i, i ? '' : ', {field: code, operation: notnull}')).join(' ')} }`,
  );
  t.truthy(more.json.errors, more.text);
  t.is(more.json.errors[0].extensions.code, 'BAD_USER_INPUT');
  t.regex(more.json.errors[0].message, /at most 200 filter values in one request/);
});

test.serial(
  'when a role with EVENT_VIEW only filters or orders events on their template or location, then it is refused; textSearch looks only in what it may see',
  async (t) => {
    const viewer = await f.tokenFor(f.tenant, 'events-only', ['EVENT_VIEW']);
    const forbidden: [unknown[], unknown[] | undefined, string][] = [
      [[{ field: 'courseTemplateTitle', operation: 'like', value: 'Secret%' }], undefined, 'COURSE_TEMPLATE_VIEW'],
      [[{ field: 'courseTemplateCode', operation: 'eq', value: 'SECZ' }], undefined, 'COURSE_TEMPLATE_VIEW'],
      [[{ field: 'eventOrCourseCodeOrTitle', operation: 'eq', value: 'secz' }], undefined, 'COURSE_TEMPLATE_VIEW'],
      [[{ field: 'locationName', operation: 'eq', value: 'Hidden Quarry Hall' }], undefined, 'LOCATION_VIEW'],
      [[], [{ field: 'courseTemplateTitle', direction: 'asc' }], 'COURSE_TEMPLATE_VIEW'],
      [[], [{ field: 'courseTemplateCode', direction: 'asc' }], 'COURSE_TEMPLATE_VIEW'],
      [[], [{ field: 'locationName', direction: 'desc' }], 'LOCATION_VIEW'],
    ];
    for (const [filters, orderBy, permission] of forbidden) {
      const res = await search(viewer, filters, orderBy);
      t.is(res.json.data, null, JSON.stringify({ filters, orderBy }));
      t.is(res.json.errors[0].extensions.code, 'FORBIDDEN');
      t.regex(res.json.errors[0].message, new RegExp(permission));
    }
    // Its own fields still filter; textSearch finds events by their own texts only.
    t.deepEqual(
      titlesOf((await search(viewer, [{ field: 'title', operation: 'like', value: 'Plain%' }])).json),
      [IN_SECRET, AT_HIDDEN].sort(),
    );
    t.deepEqual(
      titlesOf((await search(viewer, [{ field: 'textSearch', operation: 'eq', value: 'plain' }])).json),
      [IN_SECRET, AT_HIDDEN].sort(),
    );
    t.deepEqual(titlesOf((await search(viewer, [{ field: 'textSearch', operation: 'eq', value: 'zeta' }])).json), []);
    t.deepEqual(titlesOf((await search(viewer, [{ field: 'textSearch', operation: 'eq', value: 'quarry' }])).json), []);
    // With the template's permission it finds template words, still not the location's.
    const templates = await f.tokenFor(f.tenant, 'events-and-templates', ['EVENT_VIEW', 'COURSE_TEMPLATE_VIEW']);
    t.deepEqual(titlesOf((await search(templates, [{ field: 'textSearch', operation: 'eq', value: 'zeta' }])).json), [IN_SECRET]);
    t.deepEqual(titlesOf((await search(templates, [{ field: 'textSearch', operation: 'eq', value: 'quarry' }])).json), []);
    t.deepEqual(titlesOf((await search(templates, [{ field: 'courseTemplateCode', operation: 'eq', value: 'SECZ' }])).json), [IN_SECRET]);
    // A template's events filtered on their location: refused there too (that field only).
    const nested = await f.gql(
      templates,
      'query ($id: ID!) { courseTemplate(id: $id) { title events(filters: [{field: locationName, operation: eq, value: "x"}]) { edges { node { id } } } } }',
      { id: secretTemplate },
    );
    t.deepEqual(nested.json.data, { courseTemplate: { title: 'Secret Template Zeta', events: null } });
    t.regex(nested.json.errors[0].message, /LOCATION_VIEW/);
  },
);

test.serial(
  'when an event is given a time zone alias PostgreSQL does not know, then the zone it names is stored and lists on times keep working',
  async (t) => {
    const UPDATE =
      'mutation ($id: ID!, $zone: String) { event { update(eventId: $id, input: {timeZoneName: $zone}) { errors { label message } event { timeZoneName start } } } }';
    const alias = await f.data(f.admin, UPDATE, { id: ev[OWN], zone: 'US/Pacific-New' });
    t.deepEqual(alias.event.update, { errors: [], event: { timeZoneName: 'America/Los_Angeles', start: '2027-06-10T16:00:00Z' } });
    const listed = await search(
      f.admin,
      [{ field: 'start', operation: 'ge', value: '2027-06-10T16:00:00Z' }],
      [{ field: 'start', direction: 'asc' }],
    );
    t.is(listed.status, 200, listed.text);
    t.deepEqual(titlesOf(listed.json), [OWN]);
    // Names PostgreSQL knows are kept as written (in its spelling): a current name is not taken back to an older link.
    for (const [given, stored] of [
      ['Europe/Kyiv', 'Europe/Kyiv'],
      ['asia/kolkata', 'Asia/Kolkata'],
      ['europe/london', 'Europe/London'],
      ['UTC', 'UTC'],
    ]) {
      t.is((await f.data(f.admin, UPDATE, { id: ev[OWN], zone: given })).event.update.event.timeZoneName, stored, given);
    }
    // A new event given the alias, classroom or online.
    const created = await f.data(
      f.admin,
      'mutation { event { createClassroom(input: {eventType: public, title: "Alias", timeZoneName: "US/Pacific-New"}) { event { timeZoneName } errors { label } } } }',
    );
    t.deepEqual(created.event.createClassroom, { event: { timeZoneName: 'America/Los_Angeles' }, errors: [] });
    const online = await f.data(
      f.admin,
      `mutation { event { createLMS(input: {eventType: public, title: "Alias online", timeZoneName: "America/Los_Angeles", timeZone: "US/Pacific-New",
    lmsStartDateTime: "2027-01-01T09:00", lmsEndDateTime: "2027-02-01T09:00"}) { event { timeZoneName lmsStart } errors { label message } } } }`,
    );
    t.deepEqual(online.event.createLMS, { event: { timeZoneName: 'America/Los_Angeles', lmsStart: '2027-01-01T17:00:00Z' }, errors: [] });
    const unknown = await f.data(f.admin, UPDATE, { id: ev[OWN], zone: 'Mars/Olympus' });
    t.deepEqual(
      unknown.event.update.errors.map((e: { label: string }) => e.label),
      ['timeZoneName'],
    );
    const stored = await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('events').where({ title: OWN }).first('time_zone_name'));
    t.is(stored.time_zone_name, 'UTC');
  },
);

test.serial(
  'when Event.learningMode is read, then it is the LearningMode enum of course templates, answering the same values',
  async (t) => {
    const d = await f.data(f.admin, `{ __type(name: "Event") { fields { name type { kind name ofType { kind name } } } } }`);
    const field = d.__type.fields.find((x: { name: string }) => x.name === 'learningMode');
    t.deepEqual(field.type, { kind: 'NON_NULL', name: null, ofType: { kind: 'ENUM', name: 'LearningMode' } });
    const listed = await f.data(
      f.admin,
      '{ events(filters: [{field: learningMode, operation: eq, value: "classroom"}], first: 1) { edges { node { learningMode } } } }',
    );
    t.deepEqual(listed.events.edges, [{ node: { learningMode: 'CLASSROOM' } }]);
  },
);

test.serial(
  'when a like value ends in a lone backslash, then the filter is refused naming it; an escaped backslash or wildcard matches as written',
  async (t) => {
    const refused = await search(f.admin, [{ field: 'title', operation: 'like', value: 'Plain\\' }]);
    t.is(refused.json.data, null);
    t.regex(refused.json.errors[0].message, /^Filter on filters\[0\] \(title like\): a like value cannot end with a lone backslash/);
    t.is(refused.json.errors[0].extensions.code, 'BAD_USER_INPUT');
    const escaped = await search(f.admin, [{ field: 'title', operation: 'like', value: 'Plain Event On\\e' }]);
    t.deepEqual(titlesOf(escaped.json), [IN_SECRET]);
    const none = await search(f.admin, [{ field: 'title', operation: 'like', value: 'Plain\\%' }]);
    t.deepEqual(titlesOf(none.json), []);
  },
);
