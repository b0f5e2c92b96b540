import test, { type ExecutionContext } from 'ava';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { waitFor } from '../helpers/harness.js';
import { startReceiver, type Hit, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * Session Created / Updated / Deleted (real-clients.md section 5.A), delivered end to end: the
 * sync service's stored query for sessions reads each through `node(id)`, a deleted one as it was
 * (its last state), with real workers and a receiver on 127.0.0.1.
 */
let f: GraphQLFixture;
let workers: RunningWorkers;
let rx: Receiver;

test.serial.before(async () => {
  rx = await startReceiver();
  f = await graphqlFixture('sesswh', { env: { WEBHOOK_ALLOW: 'loopback', WEBHOOK_RETRY_SCHEDULE: '300ms' } });
  workers = startWorkers(f.ctx.rt);
});
test.after.always(async () => {
  await workers?.close();
  await f?.close();
  await rx?.close();
});

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The sync service's stored query for its Session webhooks (Created, Updated and Deleted), verbatim. */
const SESSION_QUERY = `query($objectid: ID!) { node(id: $objectid) { id ... on Session { title event{id} venue{id} location{id} customFieldValues{definitionKey value} } } }`;

async function webhook(key: string, path: string): Promise<void> {
  const res = await f.gql(
    f.admin,
    `mutation ($input: WebhookCreateInput!) { webhooks { create(input: $input) { webhook { id } errors { label message } } } }`,
    { input: { name: `${key}`, webhookTypeId: b64(`WebhookType:${key}`), url: rx.url(path), query: SESSION_QUERY } },
  );
  if (!res.json?.data?.webhooks?.create?.webhook) throw new Error(`webhook: ${res.text}`);
}

async function exactly(t: ExecutionContext, path: string, n: number): Promise<Hit[]> {
  await waitFor(async () => rx.at(path).length >= n, `${n} deliveries at ${path}`, 30000, 50);
  await sleep(500);
  t.is(rx.at(path).length, n, `deliveries at ${path}`);
  return rx.at(path);
}

test.serial(
  'when an event is created, a session changed and another deleted, then Session Created, Updated and Deleted are delivered, the deleted one read as it was',
  async (t) => {
    await webhook('session_created', '/created');
    await webhook('session_updated', '/updated');
    await webhook('session_deleted', '/deleted');
    const made = await f.data(f.admin, `mutation { l: location { create(input: {name: "Hub"}) { location { id } } } }`);
    const location = made.l.create.location.id as string;
    const res = (
      await f.data(
        f.admin,
        `mutation ($l: ID) { event { createClassroom(input: {eventType: public, title: "Two days", locationId: $l, timeZoneName: "UTC", classroomStartDateTime: "2026-04-01T09:00", classroomEndDateTime: "2026-04-02T17:00"}) { event { id sessions { edges { node { id } } } } errors { message } } } }`,
        { l: location },
      )
    ).event.createClassroom;
    t.deepEqual(res.errors, []);
    const event = res.event.id as string;
    const [day1, day2] = res.event.sessions.edges.map((e: { node: { id: string } }) => e.node.id) as [string, string];
    const created = await exactly(t, '/created', 2);
    t.deepEqual(
      created.map((h) => h.body.payload.node).sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)),
      [
        { id: day1, title: 'Two days – Day 1', event: { id: event }, venue: null, location: { id: location }, customFieldValues: [] },
        { id: day2, title: 'Two days – Day 2', event: { id: event }, venue: null, location: { id: location }, customFieldValues: [] },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );

    const updated = await f.data(
      f.admin,
      `mutation ($id: ID!) { session { update(sessionId: $id, input: {title: "Practical day"}) { errors { message } } } }`,
      { id: day2 },
    );
    t.deepEqual(updated.session.update.errors, []);
    const [change] = await exactly(t, '/updated', 1);
    t.like(change!.body.payload.node, { id: day2, title: 'Practical day', event: { id: event } });

    const deleted = await f.data(
      f.admin,
      `mutation ($ids: [ID]!) { session { delete(input: {sessionIds: $ids}) { errors { message } } } }`,
      { ids: [day1] },
    );
    t.deepEqual(deleted.session.delete.errors, []);
    const [gone] = await exactly(t, '/deleted', 1);
    // Its last state: the title and event the receiver reads, though the session is gone.
    t.deepEqual(gone!.body.payload.node, {
      id: day1,
      title: 'Two days – Day 1',
      event: { id: event },
      venue: null,
      location: { id: location },
      customFieldValues: [],
    });
    t.is((await f.data(f.admin, `query ($id: ID!) { node(id: $id) { id } }`, { id: day1 })).node, null);
  },
);
