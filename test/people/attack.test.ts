import test from 'ava';
import type { Knex } from 'knex';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { addPortal } from '../../src/modules/portals/portals.service.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { insertedId, waitFor, type HttpResult } from '../helpers/harness.js';

/**
 * Issue 25's people half (contacts, accounts, users, learners, reference data, portals) attacked
 * as an anonymous or low-privileged caller and a careless integrator would, over real HTTP: another
 * instance's ids everywhere, roles lacking permissions, inputs far larger than any client sends,
 * NUL characters, numeric strings for Int, writes racing each other and deletes through REST. Each
 * test names what it found: a defect (fixed with it) or an attack that held.
 */
let f: GraphQLFixture;
let other: Tenant;
const ids: Record<string, number> = {};
const gid = (type: string, name: string) => toGlobalId(type, ids[name]!);
/** The other instance's rows carry ids this one's never have: a leak could not pass for a row of this instance. */
const FOREIGN = 9001;
const foreign = (type: string) => toGlobalId(type, FOREIGN);
const db = <T>(work: (db: Knex) => Promise<T>, tenant?: Tenant) => withTenant(f.ctx.rt.knex, tenant ?? f.tenant, work);
const one = insertedId;

const RECORD = `mutation($input: [LearnerAttendanceInput!]!) { learner { recordAttendances(input: $input) { learner { id } errors { label message value } } } }`;
const REGISTER = `mutation($eventId: ID!, $input: EventRegisterContactsInput!) { event { registerContacts(eventId: $eventId, input: $input) { learners { id } errors { label message value } } } }`;
const MERGE = `mutation($from: ID!, $to: ID!) { account { merge(input: {fromAccount: $from, toAccount: $to}) { account { id name postalAddresses { usage lines } } errors { label message } } } }`;

test.serial.before(async () => {
  f = await graphqlFixture('atkp');
  other = await f.ctx.freshTenant('atkpb');
  await db(async (k) => {
    ids.location = await one(k, 'locations', { name: 'Riverside' });
    ids.acme = await one(k, 'companies', { name: 'Acme', email: 'office@acme.example' });
    ids.ada = await one(k, 'contacts', { first_name: 'Ada', last_name: 'L', email: 'ada@x.test', is_tutor: true, company_id: ids.acme });
    ids.bob = await one(k, 'contacts', { first_name: 'Bob', last_name: 'B', email: 'bob@x.test' });
    ids.event = await one(k, 'events', { title: 'Course', delegates_max: 10, time_zone_name: 'Europe/London' });
    ids.event2 = await one(k, 'events', { title: 'Course 2', delegates_max: 10 });
    const session = (event: number, title: string, day: number) =>
      one(k, 'sessions', {
        event_id: event,
        title,
        starts_at: `2027-03-${10 + day}T09:00:00Z`,
        ends_at: `2027-03-${10 + day}T17:00:00Z`,
        time_zone_name: 'Europe/London',
      });
    ids.s1 = await session(ids.event, 'Day 1', 0);
    ids.other = await session(ids.event2, 'Other course', 0);
    ids.learner = await one(k, 'delegates', { event_id: ids.event, contact_id: ids.ada });
  });
  await db(async (k) => {
    await k('locations').insert({ id: FOREIGN, name: 'Their place' });
    await k('venues').insert({ id: FOREIGN, name: 'Their room', location_id: FOREIGN });
    await k('companies').insert({ id: FOREIGN, name: 'Their Co', email: 'secret@their.example' });
    await k('contacts').insert({ id: FOREIGN, first_name: 'Their', last_name: 'C', email: 'their@x.test', company_id: FOREIGN });
    await k('events').insert({ id: FOREIGN, title: 'Their course', delegates_max: 10 });
    await k('sessions').insert({
      id: FOREIGN,
      event_id: FOREIGN,
      title: 'Their day',
      starts_at: '2027-05-01T09:00:00Z',
      ends_at: '2027-05-01T17:00:00Z',
      time_zone_name: 'UTC',
    });
    await k('delegates').insert({ id: FOREIGN, event_id: FOREIGN, contact_id: FOREIGN, cancelled_date: '2027-01-01' });
    await k('price_levels').insert({ id: FOREIGN, name: 'Their level' });
    await k('regions').insert({ id: FOREIGN, code: 'TH', name: 'Their region' });
    await k('users').where({ id: 1 }).update({ contact_id: FOREIGN });
  }, other);
  await addPortal(f.ctx.rt.knex, other, { domain: `${other.slug}.administrateweblink.com` });
});
test.after.always(async () => f?.close());

/** Runs `request` while an open transaction has deleted row `id` of `table`, and commits the delete once the request waits on it. */
async function whileDeleted(table: string, id: number, request: () => Promise<HttpResult>) {
  const knex = f.ctx.rt.knex;
  const trx = await knex.transaction();
  try {
    await trx.raw(`select set_config('search_path', ?, true)`, [f.tenant.schema]);
    await trx(table).where({ id }).delete();
    const answer = request();
    await waitFor(async () => {
      const { rows } = (await knex.raw(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and application_name like 'lectern-%'`,
      )) as { rows: { n: number }[] };
      return rows[0]!.n > 0;
    }, 'the request to wait on the deleted row');
    await trx.commit();
    return await answer;
  } finally {
    if (!trx.isCompleted()) await trx.rollback();
  }
}

// ---- Isolation (held) -------------------------------------------------------------------------

test.serial(
  "when another instance's ids are sent to every new root, node, filter and mutation, then each answers nothing found and nothing of theirs",
  async (t) => {
    for (const type of ['Account', 'Contact', 'Learner', 'Session', 'Venue', 'PriceLevel', 'Region', 'Portal', 'User']) {
      const res = await f.gql(f.admin, `{ node(id: "${foreign(type)}") { id } }`);
      t.deepEqual(res.json, { data: { node: null } }, `${type}: ${res.text}`);
    }
    const theirPortal = await db((k) => k('platform.portals').where({ tenant_id: other.id }).first('id'));
    t.deepEqual((await f.gql(f.admin, `{ node(id: "${toGlobalId('Portal', theirPortal.id)}") { id } }`)).json, { data: { node: null } });
    const lists = await f.data(
      f.admin,
      `{ portals { edges { node { id } } }
         learners(filters: [{field: eventId, operation: eq, value: "${foreign('Event')}"}]) { edges { node { id } } }
         contacts(filters: [{field: accountId, operation: eq, value: "${foreign('Account')}"}]) { edges { node { id } } }
         byId: contacts(filters: [{field: id, operation: eq, value: "${foreign('Contact')}"}]) { edges { node { id } } }
         accounts(filters: [{field: id, operation: eq, value: "${foreign('Account')}"}]) { edges { node { id } } }
         regions { edges { node { id } } } }`,
    );
    t.deepEqual(lists, {
      portals: { edges: [] },
      learners: { edges: [] },
      contacts: { edges: [] },
      byId: { edges: [] },
      accounts: { edges: [] },
      regions: { edges: [] },
    });
    const refused = async (query: string, path: string[], label: string) => {
      const res = await f.gql(f.admin, query);
      let at = res.json?.data;
      for (const key of path) at = at?.[key];
      t.true(
        (at?.errors ?? []).some((e: { label: string; message: string }) => e.label === label && /not found/.test(e.message)),
        `${path.join('.')}: ${res.text}`,
      );
    };
    await refused(
      `mutation { account { merge(input: {fromAccount: "${foreign('Account')}", toAccount: "${gid('Account', 'acme')}"}) { errors { label message } } } }`,
      ['account', 'merge'],
      'fromAccount',
    );
    await refused(
      `mutation { account { update(input: {accountId: "${foreign('Account')}", name: "Mine now"}) { errors { label message } } } }`,
      ['account', 'update'],
      'accountId',
    );
    await refused(
      `mutation { learner { reactivate(input: {learnerId: "${foreign('Learner')}"}) { errors { label message } } } }`,
      ['learner', 'reactivate'],
      'learnerId',
    );
    const attendance = await f.data(f.admin, RECORD, {
      input: [{ learnerId: gid('Learner', 'learner'), sessionId: foreign('Session'), attended: true }],
    });
    t.like(attendance.learner.recordAttendances[0].errors[0], { label: 'sessionId', message: 'Session not found' });
    await refused(
      `mutation { event { registerContacts(eventId: "${foreign('Event')}", input: {contacts: ["${gid('Contact', 'bob')}"]}) { errors { label message } } } }`,
      ['event', 'registerContacts'],
      'eventId',
    );
    await refused(
      `mutation { event { registerContacts(eventId: "${gid('Event', 'event2')}", input: {contacts: ["${foreign('Contact')}"]}) { errors { label message } } } }`,
      ['event', 'registerContacts'],
      'contacts',
    );
    // Nothing of the other instance changed.
    const theirs = await db(
      async (k) => ({
        company: await k('companies').where({ id: FOREIGN }).first('name'),
        learner: await k('delegates').where({ id: FOREIGN }).first('cancelled_date'),
        attendance: await k('learner_attendances').count('* as n').first(),
      }),
      other,
    );
    t.deepEqual(theirs, { company: { name: 'Their Co' }, learner: { cancelled_date: '2027-01-01' }, attendance: { n: 0 } });
  },
);

// ---- Permissions (held) -----------------------------------------------------------------------

test.serial(
  "when a role lacks a record's view permission, then its fields are refused wherever they are reached, and a viewer writes nothing",
  async (t) => {
    const delegates = await f.tokenFor(f.tenant, 'dv', ['DELEGATE_VIEW']);
    const contacts = await f.tokenFor(f.tenant, 'cv', ['CONTACT_VIEW']);
    const forbidden = (res: HttpResult, permission: string) =>
      (res.json.errors ?? []).some((e: { extensions?: { code?: string; permission?: string } }) => e.extensions?.permission === permission);
    // Learners' contacts (and filters or orders on their e-mail) need CONTACT_VIEW.
    const learners = await f.gql(delegates, `{ learners { edges { node { id contact { emailAddress } } } } }`);
    t.is(learners.json.data.learners.edges[0].node.contact, null);
    t.true(forbidden(learners, 'CONTACT_VIEW'), learners.text);
    for (const args of [
      `filters: [{field: contactEmailAddress, operation: eq, value: "ada@x.test"}]`,
      `order: {field: contactEmailAddress}`,
    ]) {
      const res = await f.gql(delegates, `{ learners(${args}) { edges { node { id } } } }`);
      t.is(res.json.data, null, res.text);
      t.true(forbidden(res, 'CONTACT_VIEW'), res.text);
    }
    // A contact's account needs COMPANY_VIEW, its learners DELEGATE_VIEW; the account's name as a filter too.
    const own = await f.gql(
      contacts,
      `{ contacts(filters: [{field: id, operation: eq, value: "${gid('Contact', 'ada')}"}]) { edges { node { emailAddress account { emailAddress } learners { edges { node { id } } } } } } }`,
    );
    t.deepEqual(own.json.data.contacts.edges, [{ node: { emailAddress: 'ada@x.test', account: null, learners: null } }]);
    t.true(forbidden(own, 'COMPANY_VIEW') && forbidden(own, 'DELEGATE_VIEW'), own.text);
    const byAccountName = await f.gql(
      contacts,
      `{ contacts(filters: [{field: accountName, operation: eq, value: "Acme"}]) { edges { node { id } } } }`,
    );
    t.true(forbidden(byAccountName, 'COMPANY_VIEW'), byAccountName.text);
    // A viewer calls every new mutation: each refused, nothing written.
    const viewer = await f.tokenFor(f.tenant, 'viewer');
    const before = await db(async (k) => ({
      companies: (await k('companies').count('* as n').first())!.n,
      delegates: (await k('delegates').count('* as n').first())!.n,
      attendance: (await k('learner_attendances').count('* as n').first())!.n,
    }));
    for (const [mutation, permission] of [
      [`account { create(input: {name: "Viewer Co"}) { errors { message } } }`, 'COMPANY_EDIT'],
      [`account { update(input: {accountId: "${gid('Account', 'acme')}", name: "Viewer Co"}) { errors { message } } }`, 'COMPANY_EDIT'],
      [
        `account { merge(input: {fromAccount: "${gid('Account', 'acme')}", toAccount: "${gid('Account', 'acme')}"}) { errors { message } } }`,
        'COMPANY_EDIT',
      ],
      [`learner { reactivate(input: {learnerId: "${gid('Learner', 'learner')}"}) { errors { message } } }`, 'DELEGATE_EDIT'],
      [
        `learner { recordAttendances(input: {learnerId: "${gid('Learner', 'learner')}", sessionId: "${gid('Session', 's1')}", attended: true}) { errors { message } } }`,
        'DELEGATE_EDIT',
      ],
      [
        `event { registerContacts(eventId: "${gid('Event', 'event2')}", input: {contacts: ["${gid('Contact', 'bob')}"]}) { errors { message } } }`,
        'DELEGATE_EDIT',
      ],
    ] as const) {
      const res = await f.gql(viewer, `mutation { ${mutation} }`);
      t.true(forbidden(res, permission), `${mutation}: ${res.text}`);
    }
    t.deepEqual(
      await db(async (k) => ({
        companies: (await k('companies').count('* as n').first())!.n,
        delegates: (await k('delegates').count('* as n').first())!.n,
        attendance: (await k('learner_attendances').count('* as n').first())!.n,
      })),
      before,
    );
  },
);

// ---- Huge inputs ------------------------------------------------------------------------------

// Found by this attack (fixed with it): recordAttendances took any number of items, one after
// another in the request's transaction: 100,000 empty items (300 KB sent) answered 12.7 MB, and
// 5,000 valid ones held a learner's row for 7 seconds.
test.serial(
  'when recordAttendances is sent more items than one call takes, then the call is refused as the client mistake, before anything is recorded',
  async (t) => {
    const item = { learnerId: gid('Learner', 'learner'), sessionId: gid('Session', 's1'), attended: true };
    const res = await f.gql(f.admin, RECORD, { input: Array.from({ length: 501 }, () => item) });
    t.deepEqual(res.json.data, { learner: { recordAttendances: null } }, res.text.slice(0, 300));
    t.like(res.json.errors[0], {
      message: 'recordAttendances takes at most 500 items (501 given)',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    t.is(res.text.length < 2000, true, 'a short answer');
    t.like(await db((k) => k('learner_attendances').count('* as n').first()), { n: 0 });
    // 500 are taken, one payload each.
    const taken = await f.data(f.admin, RECORD, { input: Array.from({ length: 500 }, () => item) });
    t.is(taken.learner.recordAttendances.length, 500);
    t.deepEqual(taken.learner.recordAttendances[499], { learner: { id: gid('Learner', 'learner') }, errors: [] });
    await db((k) => k('learner_attendances').delete());
  },
);

test.serial(
  'when lists, pages and Int variables are stretched (10,000 contacts to register, 100,000 filter values, first 1e9, odd numeric strings), then each is refused by name or read as the number it writes',
  async (t) => {
    const many = await f.data(f.admin, REGISTER, {
      eventId: gid('Event', 'event2'),
      input: { contacts: Array.from({ length: 10000 }, (_, i) => toGlobalId('Contact', i + 1)) },
    });
    t.deepEqual(many.event.registerContacts, {
      learners: [],
      errors: [{ label: 'contacts', message: 'contacts may list at most 100 contacts (10000 given)', value: null }],
    });
    const values = await f.gql(
      f.admin,
      `query($v: [String]) { contacts(filters: [{field: id, operation: in, values: $v}]) { edges { node { id } } } }`,
      {
        v: Array.from({ length: 101 }, () => gid('Contact', 'ada')),
      },
    );
    t.regex(res(values), /at most 100 values/);
    const PAGE = `query($first: Int) { learners(first: $first) { edges { node { id } } } }`;
    t.regex(res(await f.gql(f.admin, PAGE, { first: 1e9 })), /first must be between 0 and 100/);
    for (const refused of ['1e3', '99999999999', '0x10', ' 1', '+1', '1.0'])
      t.regex(res(await f.gql(f.admin, PAGE, { first: refused })), /Int cannot represent/, refused);
    t.deepEqual((await f.data(f.admin, PAGE, { first: '-0' })).learners.edges, []);
    t.is((await f.data(f.admin, PAGE, { first: '007' })).learners.edges.length, 1);
  },
);
const res = (r: { text: string }) => r.text.slice(0, 500);

// ---- NUL and strange text ---------------------------------------------------------------------

// Found by this attack (fixed with it): an account's e-mail address with a NUL passed the
// accounts' rules and reached the database, which refused the whole GraphQL request (400 "a value
// in the request is out of range or malformed", no field named); other control characters were
// stored. REST refused the NUL already (its engine checks every text); now both refuse both.
test.serial(
  'when an account is written with a NUL or control character in its e-mail address or street, then both APIs name the field and write nothing',
  async (t) => {
    const before = await db((k) => k('companies').count('* as n').first());
    for (const emailAddress of ['a\u0000b@example.com', 'a\u0007b@example.com']) {
      const created = await f.gql(
        f.admin,
        `mutation($input: AccountCreateInput!) { account { create(input: $input) { account { id } errors { label message } } } }`,
        { input: { name: 'Nul Co', emailAddress } },
      );
      t.is(created.status, 200, created.text);
      t.like(created.json.data?.account.create, { account: null, errors: [{ label: 'emailAddress' }] }, created.text);
      const updated = await f.gql(
        f.admin,
        `mutation($input: AccountUpdateInput!) { account { update(input: $input) { account { id } errors { label message } } } }`,
        { input: { accountId: gid('Account', 'acme'), emailAddress } },
      );
      t.like(updated.json.data?.account.update, { account: null, errors: [{ label: 'emailAddress' }] }, updated.text);
      // REST's contract answers a refused create 404 could_not_create.
      const rest = await f.api('POST', 'crm/companies', { name: 'Nul Co', email: emailAddress });
      t.is(rest.status, 404, rest.text);
      t.truthy(rest.json.error.details?.fields?.email, rest.text);
    }
    const street = await f.api('POST', 'crm/companies', { name: 'Nul Co', address_street: '1 Road\u0000' });
    t.is(street.status, 404, street.text);
    t.truthy(street.json.error.details?.fields?.address_street, street.text);
    t.deepEqual(await db((k) => k('companies').count('* as n').first()), before);
    t.like(await db((k) => k('companies').where({ id: ids.acme }).first('email')), { email: 'office@acme.example' });
  },
);

test.serial(
  'when names carry a NUL, a megabyte or unusual unicode, then NUL and length are field errors and unicode is kept as written (held)',
  async (t) => {
    const CREATE = `mutation($input: AccountCreateInput!) { account { create(input: $input) { account { name } errors { label } } } }`;
    for (const [name, label] of [
      ['A\u0000B', 'name'],
      ['x'.repeat(900_000), 'name'],
    ] as const)
      t.deepEqual((await f.data(f.admin, CREATE, { input: { name } })).account.create, { account: null, errors: [{ label }] });
    const lines = await f.data(f.admin, CREATE, {
      input: { name: 'ok', postalAddresses: [{ usage: 'billing', address: { lines: ['a\u0000'] } }] },
    });
    t.deepEqual(lines.account.create.errors, [{ label: 'postalAddresses[0].address.lines' }]);
    const odd = '👩‍🚀 Zoë \u202e Ltd';
    t.deepEqual((await f.data(f.admin, CREATE, { input: { name: odd } })).account.create, { account: { name: odd }, errors: [] });
  },
);

// ---- Races and consistency --------------------------------------------------------------------

// Found by this attack (fixed with it): recordAttendances read the session and the learner without
// holding them, so one deleted meanwhile (session.delete, REST DELETE event/delegates) failed the
// attendance's foreign key: a 500 "Internal server error" for the whole request.
test.serial(
  'when a session or a learner is deleted (as session.delete and REST DELETE event/delegates delete them) while its attendance is being recorded, then the item answers not found (no server error) and nothing is recorded',
  async (t) => {
    const doomed = await db((k) =>
      one(k, 'sessions', {
        event_id: ids.event,
        title: 'Doomed',
        starts_at: '2027-03-12T09:00:00Z',
        ends_at: '2027-03-12T10:00:00Z',
        time_zone_name: 'UTC',
      }),
    );
    const bySession = await whileDeleted('sessions', doomed, () =>
      f.gql(f.admin, RECORD, {
        input: [{ learnerId: gid('Learner', 'learner'), sessionId: toGlobalId('Session', doomed), attended: true }],
      }),
    );
    t.is(bySession.status, 200, bySession.text);
    t.deepEqual(bySession.json.data?.learner.recordAttendances, [
      { learner: null, errors: [{ label: 'sessionId', message: 'Session not found', value: toGlobalId('Session', doomed) }] },
    ]);
    const learner = await db((k) => one(k, 'delegates', { event_id: ids.event, contact_id: ids.bob }));
    const byLearner = await whileDeleted('delegates', learner, () =>
      f.gql(f.admin, RECORD, { input: [{ learnerId: toGlobalId('Learner', learner), sessionId: gid('Session', 's1'), attended: true }] }),
    );
    t.is(byLearner.status, 200, byLearner.text);
    t.deepEqual(byLearner.json.data?.learner.recordAttendances, [
      { learner: null, errors: [{ label: 'learnerId', message: 'Learner not found', value: toGlobalId('Learner', learner) }] },
    ]);
    t.like(await db((k) => k('learner_attendances').count('* as n').first()), { n: 0 });
  },
);

// Found by this attack (fixed with it): registerContacts checked its contacts without holding them,
// so a contact deleted through REST meanwhile failed the learner's foreign key: a 500.
test.serial(
  'when a contact is deleted (as REST DELETE crm/contacts deletes it) while it is being registered, then registerContacts answers Contact not found (no server error) and registers nobody',
  async (t) => {
    const doomed = await db((k) => one(k, 'contacts', { first_name: 'Doomed', last_name: 'Contact' }));
    const answer = await whileDeleted('contacts', doomed, () =>
      f.gql(f.admin, REGISTER, {
        eventId: gid('Event', 'event2'),
        input: { contacts: [gid('Contact', 'bob'), toGlobalId('Contact', doomed)] },
      }),
    );
    t.is(answer.status, 200, answer.text);
    t.deepEqual(answer.json.data?.event.registerContacts, {
      learners: [],
      errors: [{ label: 'contacts', message: 'Contact not found', value: toGlobalId('Contact', doomed) }],
    });
    t.like(await db((k) => k('delegates').where({ event_id: ids.event2 }).count('* as n').first()), { n: 0 });
  },
);

test.serial(
  'when accounts are merged into themselves, both ways at once, or in a ring at once, then each merge is whole or refused and no account is left half-merged (held)',
  async (t) => {
    const account = (name: string, extra: Record<string, unknown> = {}) => db((k) => one(k, 'companies', { name, ...extra }));
    const a = await account('Ring A', { email: 'a@ring.example' });
    const b = await account('Ring B');
    await db(async (k) => {
      await k('company_addresses').insert([
        { company_id: a, usage: 'billing', lines: ['A billing'] },
        { company_id: b, usage: 'billing', lines: ['B billing'] },
        { company_id: a, usage: 'shipping', lines: ['A shipping'] },
      ]);
      await k('contacts').insert([
        { first_name: 'In', last_name: 'A', company_id: a },
        { first_name: 'In', last_name: 'B', company_id: b },
      ]);
    });
    const merge = (from: number, to: number) => f.gql(f.admin, MERGE, { from: toGlobalId('Account', from), to: toGlobalId('Account', to) });
    t.deepEqual((await merge(a, a)).json.data.account.merge.errors, [
      { label: 'toAccount', message: 'An account cannot be merged into itself: fromAccount and toAccount are the same' },
    ]);
    const answers = (await Promise.all([merge(a, b), merge(b, a)])).map((r) => r.json.data.account.merge);
    const won = answers.filter((m) => m.account);
    t.is(won.length, 1, JSON.stringify(answers));
    t.deepEqual(answers.find((m) => !m.account).errors, [{ label: 'toAccount', message: 'Account not found' }]);
    const kept = won[0].account.id === toGlobalId('Account', a) ? a : b;
    const state = await db(async (k) => ({
      accounts: await k('companies').whereIn('id', [a, b]).pluck('id'),
      contacts: await k('contacts').where({ first_name: 'In' }).orderBy('last_name').pluck('company_id'),
      usages: await k('company_addresses').whereIn('company_id', [a, b]).orderBy('usage').pluck('usage'),
    }));
    t.deepEqual(state, { accounts: [kept], contacts: [kept, kept], usages: ['billing', 'shipping'] });
    // A ring: each merge locks its two accounts in id order, so none waits on another in a circle.
    const ring = [await account('R1'), await account('R2'), await account('R3')];
    const merged = await Promise.all([merge(ring[0]!, ring[1]!), merge(ring[1]!, ring[2]!), merge(ring[2]!, ring[0]!)]);
    t.true(
      merged.every((r) => r.status === 200 && r.json.data.account.merge),
      merged.map((r) => r.text).join('\n'),
    );
    const left = await db((k) => k('companies').whereIn('id', ring).count('* as n').first());
    t.is(Number(left!.n), 3 - merged.filter((r) => r.json.data.account.merge.account).length);
  },
);

test.serial(
  'when one contact is registered twice in a call, eight times in parallel, and its cancelled place is reactivated in parallel, then it holds one active place (held)',
  async (t) => {
    const event = await db((k) => one(k, 'events', { title: 'Capacity', delegates_max: 5 }));
    const who = await db((k) => one(k, 'contacts', { first_name: 'Twice', last_name: 'Over' }));
    const register = (contacts: string[]) => f.gql(f.admin, REGISTER, { eventId: toGlobalId('Event', event), input: { contacts } });
    const contact = toGlobalId('Contact', who);
    t.deepEqual((await register([contact, contact])).json.data.event.registerContacts, {
      learners: [],
      errors: [{ label: 'contacts', message: 'This contact is listed more than once', value: contact }],
    });
    const parallel = await Promise.all(Array.from({ length: 8 }, () => register([contact])));
    t.is(parallel.filter((r) => r.json.data.event.registerContacts.learners.length === 1).length, 1);
    const [place] = await db((k) =>
      k('delegates').where({ event_id: event, contact_id: who }).update({ cancelled_date: '2027-01-01' }).returning('id'),
    );
    const reactivate = () =>
      f.gql(
        f.admin,
        `mutation { learner { reactivate(input: {learnerId: "${toGlobalId('Learner', place.id)}"}) { learner { id } errors { message } } } }`,
      );
    const again = await Promise.all(Array.from({ length: 8 }, reactivate));
    t.is(again.filter((r) => r.json.data.learner.reactivate.learner).length, 1);
    t.like(
      await db((k) => k('delegates').where({ event_id: event, contact_id: who }).whereNull('cancelled_date').count('* as n').first()),
      {
        n: 1,
      },
    );
    // Attendance for a session of another event is refused.
    const wrong = await f.data(f.admin, RECORD, {
      input: [{ learnerId: gid('Learner', 'learner'), sessionId: gid('Session', 'other'), attended: true }],
    });
    t.deepEqual(wrong.learner.recordAttendances[0].errors, [
      { label: 'sessionId', message: "The session is not a session of the learner's event", value: gid('Session', 'other') },
    ]);
  },
);
