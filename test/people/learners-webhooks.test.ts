import test, { type ExecutionContext } from 'ava';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { waitFor } from '../helpers/harness.js';
import { startReceiver, type Hit, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * Learner Created / Cancelled on the learners' Core GraphQL paths (issue 25): `event {
 * registerContacts }` is a Learner Created per contact, `learner { reactivate }` a Learner
 * Created again (the learner attends again: tenant migration 022), and a cancellation a Learner
 * Cancelled. The stored query is the sync service's Learner query (section 5.A), run by the
 * real workers and delivered to a receiver on 127.0.0.1.
 */
let f: GraphQLFixture;
let workers: RunningWorkers;
let rx: Receiver;
const ids: Record<string, number> = {};
const gid = (type: string, name: string) => toGlobalId(type, ids[name]!);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** acted's stored query for its Learner webhooks, verbatim but for whitespace. */
const ACTED_LEARNER = `query($objectid: ID!) { node(id: $objectid) { id ... on Learner { lifecycleState contact{ id personalName{ middleName } } event{id} attendance{ sessionDetail{ edges{ node{ session{id} } } } } } } }`;
const CREATE = `mutation ($input: WebhookCreateInput!) { webhooks { create(input: $input) { webhook { id } errors { label message } } } }`;
const REGISTER = `mutation($eventId: ID!, $input: EventRegisterContactsInput!) { event { registerContacts(eventId: $eventId, input: $input) { errors { label message value } event { id bookedPlaces } } } }`;
const REACTIVATE = `mutation($learnerId: ID!) { learner { reactivate(input: { learnerId: $learnerId }) { errors { label value message } } } }`;

test.serial.before(async () => {
  rx = await startReceiver();
  f = await graphqlFixture('lrnwh', { env: { WEBHOOK_ALLOW: 'loopback', WEBHOOK_RETRY_SCHEDULE: '300ms,300ms' } });
  workers = startWorkers(f.ctx.rt);
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    const one = async (table: string, row: Record<string, unknown>) =>
      ((await db(table).insert(row).returning('id')) as { id: number }[])[0]!.id;
    ids.event = await one('events', { title: 'Webhooked course', delegates_max: 2 });
    ids.session = await one('sessions', {
      event_id: ids.event,
      title: 'Day 1',
      starts_at: '2027-04-01T09:00:00Z',
      ends_at: '2027-04-01T17:00:00Z',
      time_zone_name: 'UTC',
    });
    ids.ada = await one('contacts', { first_name: 'Ada', middle_name: 'S-1001', last_name: 'Hook' });
    ids.bob = await one('contacts', { first_name: 'Bob', middle_name: 'S-1002', last_name: 'Hook' });
  });
  for (const [key, path] of [
    ['learner_created', '/created'],
    ['learner_cancelled', '/cancelled'],
  ]) {
    const res = await f.gql(f.admin, CREATE, {
      input: {
        name: `acted ${key}`,
        webhookTypeId: Buffer.from(`WebhookType:${key}`).toString('base64'),
        url: rx.url(path!),
        query: ACTED_LEARNER,
      },
    });
    if (!res.json?.data?.webhooks?.create?.webhook) throw new Error(`webhook: ${res.text}`);
  }
});
test.after.always(async () => {
  await workers?.close();
  await f?.close();
  await rx?.close();
});

/** Waits for `n` deliveries at `path` in all, then a moment more to see that no other comes. */
async function exactly(t: ExecutionContext, path: string, n: number): Promise<Hit[]> {
  await waitFor(async () => rx.at(path).length >= n, `${n} deliveries at ${path}`, 30000, 50);
  await sleep(600);
  t.is(rx.at(path).length, n, `deliveries at ${path}`);
  return rx.at(path);
}

/** What acted's query answers for a learner. */
const learnerPayload = (learner: number, contact: string, middleName: string, state: 'active' | 'cancelled', sessions: string[] = []) => ({
  node: {
    id: toGlobalId('Learner', learner),
    lifecycleState: state,
    contact: { id: gid('Contact', contact), personalName: { middleName } },
    event: { id: gid('Event', 'event') },
    attendance: { sessionDetail: { edges: sessions.map((id) => ({ node: { session: { id } } })) } },
  },
});

test.serial(
  'when contacts are registered, cancelled and reactivated through Core GraphQL, then Learner Created and Cancelled are delivered for each',
  async (t) => {
    const res = await f.gql(f.admin, REGISTER, {
      eventId: gid('Event', 'event'),
      input: { contacts: [gid('Contact', 'ada'), gid('Contact', 'bob')] },
    });
    t.deepEqual(res.json.data.event.registerContacts, { errors: [], event: { id: gid('Event', 'event'), bookedPlaces: 2 } });
    const learners = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
      db('delegates').where({ event_id: ids.event }).orderBy('id').select('id', 'contact_id'),
    );
    ids.adaL = learners.find((l: { contact_id: number }) => l.contact_id === ids.ada).id;
    ids.bobL = learners.find((l: { contact_id: number }) => l.contact_id === ids.bob).id;
    const created = await exactly(t, '/created', 2);
    t.deepEqual(
      created.map((h) => h.body.payload).sort((a, b) => a.node.id.localeCompare(b.node.id)),
      [learnerPayload(ids.adaL!, 'ada', 'S-1001', 'active'), learnerPayload(ids.bobL!, 'bob', 'S-1002', 'active')].sort((a, b) =>
        a.node.id.localeCompare(b.node.id),
      ),
    );
    t.true(created.every((h) => h.body.metadata.context === 'graphql'));

    // A refused registration (the event is full, the contact registered already) tells nobody anything.
    const refused = await f.gql(f.admin, REGISTER, { eventId: gid('Event', 'event'), input: { contacts: [gid('Contact', 'ada')] } });
    t.is(refused.json.data.event.registerContacts.errors.length, 1);

    // Attendance recorded, then the place cancelled (no API cancels one yet: the row as a cancellation leaves it).
    const recorded = await f.gql(
      f.admin,
      `mutation { learner { recordAttendances(input: {learnerId: "${gid('Learner', 'adaL')}", sessionId: "${gid('Session', 'session')}", attended: true}) { errors { message } } } }`,
    );
    t.deepEqual(recorded.json.data.learner.recordAttendances, [{ errors: [] }]);
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('delegates').where({ id: ids.adaL }).update({ cancelled_date: '2027-03-01' }));
    const [cancelled] = await exactly(t, '/cancelled', 1);
    t.deepEqual(cancelled!.body.payload, learnerPayload(ids.adaL!, 'ada', 'S-1001', 'cancelled', [gid('Session', 'session')]));

    // Reactivated: it attends again, a Learner Created of its own.
    const back = await f.gql(f.admin, REACTIVATE, { learnerId: gid('Learner', 'adaL') });
    t.deepEqual(back.json.data.learner.reactivate.errors, []);
    const again = await exactly(t, '/created', 3);
    t.deepEqual(again[2]!.body.payload, learnerPayload(ids.adaL!, 'ada', 'S-1001', 'active', [gid('Session', 'session')]));
    t.is(rx.at('/cancelled').length, 1);
  },
);
