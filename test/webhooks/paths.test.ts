import test, { type ExecutionContext } from 'ava';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { configureOrders } from '../../src/modules/orders/order-settings.service.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { request, runTs, waitFor } from '../helpers/harness.js';
import { orderFor, orderSetup } from '../helpers/orders.js';
import { basic, PASSWORD } from '../helpers/rest.js';
import { startReceiver, type Hit, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * Every path that changes a record tells the webhooks of it (issue 24, "Captured with the
 * change"): REST v2, the order pipeline's workers, the course-template worker re-applying a
 * template, Core GraphQL, the CLI (which reaches captured records through the workers only), and
 * the two manual ways (`webhooks { trigger }`, `webhooks { sendTest }`). Each test has a tenant of
 * its own, real workers and a receiver on 127.0.0.1; deliveries are read as a receiver reads them.
 */

let f: GraphQLFixture;
let workers: RunningWorkers;
let rx: Receiver;

const url = (path: string) => rx.url(path);
const at = (path: string) => rx.at(path);
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const typeId = (key: string) => b64(`WebhookType:${key}`);
const gid = (type: string, id: number) => b64(`${type}:${id}`);

test.serial.before(async () => {
  rx = await startReceiver();
  f = await graphqlFixture('whpath', { env: { WEBHOOK_ALLOW: 'loopback', WEBHOOK_RETRY_SCHEDULE: '300ms,300ms', APPLY_BATCH_SIZE: '10' } });
  workers = startWorkers(f.ctx.rt);
});
test.after.always(async () => {
  await workers?.close();
  await f?.close();
  await rx?.close();
});

const CREATE = `mutation ($input: WebhookCreateInput!) { webhooks { create(input: $input) { webhook { id } errors { label message } } } }`;

/** Creates a webhook through Core GraphQL as `token`'s user (its owner); answers its id. */
async function createWebhook(token: string, key: string, path: string, query: string): Promise<string> {
  const res = await f.gql(token, CREATE, { input: { name: `${key} ${path}`, webhookTypeId: typeId(key), url: url(path), query } });
  const made = res.json?.data?.webhooks?.create;
  if (!made?.webhook) throw new Error(`create failed: ${res.text}`);
  return made.webhook.id as string;
}

/** A tenant of the test's own and an admin's token on it. */
async function tenantWithAdmin(label: string): Promise<{ tenant: Tenant; token: string }> {
  const tenant = await f.ctx.freshTenant(label);
  return { tenant, token: await f.tokenFor(tenant, 'admin') };
}

/** Waits for `n` deliveries at `path`, then a moment more to see that no other comes. */
async function exactly(t: ExecutionContext, path: string, n: number): Promise<Hit[]> {
  await waitFor(async () => at(path).length >= n, `${n} deliveries at ${path}`, 30000, 50);
  await sleep(600);
  t.is(at(path).length, n, `deliveries at ${path}`);
  return at(path);
}

const LEARNER_QUERY = 'query($objectid: ID!) { node(id: $objectid) { id ... on Learner { lifecycleState event { id } } } }';
const EVENT_QUERY = 'query ($objectid: ID!) { node(id: $objectid) { id ... on Event { title lifecycleState } } }';
const ORDER_QUERY = 'query ($objectid: ID!) { node(id: $objectid) { id ... on Opportunity { state } } }';
const INVOICE_QUERY = 'query ($objectid: ID!) { node(id: $objectid) { id ... on Invoice { total opportunity { id } } } }';
const ECHO_QUERY = 'query ($objectid: String!) { echo(value: $objectid) }';

/** An order placed through REST v2 on the tenant's host, as an integration places one. */
function placeOrder(tenant: Tenant, s: Awaited<ReturnType<typeof orderSetup>>) {
  return request(f.port, {
    method: 'POST',
    path: '/api/v2/orders',
    host: `${tenant.slug}.localhost`,
    headers: { authorization: basic(s.email, PASSWORD) },
    body: orderFor(s, 0),
  });
}

test.serial(
  'when a delegate is added through REST v2, then Learner Created is delivered with the learner as node(id) reads it',
  async (t) => {
    await createWebhook(f.admin, 'learner_created', '/rest/learner', LEARNER_QUERY);
    const { eventId, contactId } = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      const [event] = await db('events').insert({ title: 'REST course' }).returning('id');
      const [contact] = await db('contacts').insert({ first_name: 'Ada', last_name: 'Rest' }).returning('id');
      return { eventId: (event as { id: number }).id, contactId: (contact as { id: number }).id };
    });
    const res = await f.api('POST', 'event/delegates', { event_id: eventId, contact_id: contactId });
    t.is(res.status, 200, res.text);
    const [hit] = await exactly(t, '/rest/learner', 1);
    t.deepEqual(hit!.body.payload, {
      node: { id: gid('Learner', res.json.id), lifecycleState: 'active', event: { id: gid('Event', eventId) } },
    });
    t.like(hit!.body.metadata, { context: 'rest', user: { email: f.email }, is_retry: false });
  },
);

test.serial(
  'when an order goes through the workers, then each named delegate is a Learner Created, and Order Completed and Invoice Created follow',
  async (t) => {
    const { tenant, token } = await tenantWithAdmin('whorder');
    const s = await orderSetup(f.ctx.rt.knex, tenant, 'whorder');
    await createWebhook(token, 'learner_created', '/order/learner', LEARNER_QUERY);
    await createWebhook(token, 'order_completed', '/order/done', ORDER_QUERY);
    await createWebhook(token, 'invoice_created', '/order/invoice', INVOICE_QUERY);
    const placed = await placeOrder(tenant, s);
    t.is(placed.status, 200, placed.text);
    const orderId = placed.json.order_id as number;
    const [done] = await exactly(t, '/order/done', 1);
    t.deepEqual(done!.body.payload, { node: { id: gid('Opportunity', orderId), state: 'completed' } });
    t.is(done!.body.metadata.context, 'worker');
    const [invoice] = await exactly(t, '/order/invoice', 1);
    t.deepEqual(invoice!.body.payload.node.opportunity, { id: gid('Opportunity', orderId) });
    t.is(Number(invoice!.body.payload.node.total), 150);
    // Two students named, one place bought without a name: two learners.
    const learners = await exactly(t, '/order/learner', 2);
    const named = await withTenant(f.ctx.rt.knex, tenant, (db) =>
      db('delegates').whereNotNull('contact_id').where({ event_id: s.eventId }).orderBy('id').pluck('id'),
    );
    t.deepEqual(learners.map((h) => h.body.payload.node.id).sort(), named.map((id: number) => gid('Learner', id)).sort());
    t.true(learners.every((h) => h.body.payload.node.event.id === gid('Event', s.eventId)));
  },
);

test.serial('when the workers re-apply a course template to 40 events, then each event is one Event Updated delivery', async (t) => {
  const { tenant, token } = await tenantWithAdmin('whapply');
  const N = 40;
  // The template changed before any webhook listens: only the re-apply is told.
  const templateId = await withTenant(f.ctx.rt.knex, tenant, async (db) => {
    const [tpl] = await db('course_templates').insert({ title: 'Manual handling' }).returning('id');
    const id = (tpl as { id: number }).id;
    await db('events').insert(
      Array.from({ length: N }, (_, i) => ({ course_template_id: id, title: `Old title ${i}`, title_cascades: true })),
    );
    await db('course_templates').where({ id }).update({ title: 'Manual handling (2027)' });
    return id;
  });
  await createWebhook(token, 'event_updated', '/apply/updated', EVENT_QUERY);
  const applied = await f.data(
    token,
    'mutation ($id: ID!) { courseTemplate { applyToEvents(courseTemplateId: $id) { backgroundJob { id } errors { message } } } }',
    { id: gid('CourseTemplate', templateId) },
  );
  t.deepEqual(applied.courseTemplate.applyToEvents.errors, []);
  const jobId = applied.courseTemplate.applyToEvents.backgroundJob.id as string;
  await waitFor(
    async () =>
      (await f.data(token, 'query ($id: ID!) { backgroundJob(id: $id) { state } }', { id: jobId })).backgroundJob.state === 'completed',
    'the re-apply',
    30000,
  );
  const updated = await exactly(t, '/apply/updated', N);
  const events = await withTenant(f.ctx.rt.knex, tenant, (db) => db('events').where({ course_template_id: templateId }).pluck('id'));
  t.deepEqual(updated.map((h) => h.body.payload.node.id).sort(), events.map((id: number) => gid('Event', id)).sort(), 'each event once');
  t.true(updated.every((h) => h.body.payload.node.title === 'Manual handling (2027)'));
  t.true(updated.every((h) => h.body.metadata.context === 'worker'));
});

test.serial(
  'when an event is changed and then cancelled through Core GraphQL, then Event Updated and Event Cancelled are delivered',
  async (t) => {
    const { tenant, token } = await tenantWithAdmin('whgql');
    const eventId = await withTenant(f.ctx.rt.knex, tenant, async (db) => {
      const [row] = await db('events').insert({ title: 'First aid' }).returning('id');
      return (row as { id: number }).id;
    });
    await createWebhook(token, 'event_updated', '/gql/updated', EVENT_QUERY);
    await createWebhook(token, 'event_cancelled', '/gql/cancelled', EVENT_QUERY);
    const UPDATE = `mutation ($id: ID!, $input: EventUpdateInput!) { event { update(eventId: $id, input: $input) { event { id } errors { label message } } } }`;
    const renamed = await f.data(token, UPDATE, { id: gid('Event', eventId), input: { title: 'First aid at work' } });
    t.deepEqual(renamed.event.update.errors, []);
    const [first] = await exactly(t, '/gql/updated', 1);
    t.like(first!.body.payload.node, { id: gid('Event', eventId), title: 'First aid at work' });
    t.is(first!.body.metadata.context, 'graphql');
    t.is(at('/gql/cancelled').length, 0, 'a change that cancels nothing');

    const cancelled = await f.data(token, UPDATE, { id: gid('Event', eventId), input: { lifecycleState: 'cancelled' } });
    t.deepEqual(cancelled.event.update.errors, []);
    const [cancel] = await exactly(t, '/gql/cancelled', 1);
    t.like(cancel!.body.payload.node, { id: gid('Event', eventId), lifecycleState: 'cancelled' });
    // Cancelling is a change too.
    const updates = await exactly(t, '/gql/updated', 2);
    t.is(updates[1]!.body.payload.node.lifecycleState, 'cancelled');
  },
);

test.serial(
  'when an order is released with the CLI, then the workers it hands the order to deliver Learner Created and Order Completed',
  async (t) => {
    const { tenant, token } = await tenantWithAdmin('whcli');
    const s = await orderSetup(f.ctx.rt.knex, tenant, 'whcli');
    // Orders wait for a release by hand (what `tenants:configure --order-workflow manual` sets).
    await withTenant(f.ctx.rt.knex, tenant, (db) => configureOrders(db, { orderWorkflow: 'manual' }));
    await createWebhook(token, 'learner_created', '/cli/learner', LEARNER_QUERY);
    await createWebhook(token, 'order_completed', '/cli/done', ORDER_QUERY);
    const placed = await placeOrder(tenant, s);
    const orderId = placed.json.order_id as number;
    await waitFor(
      async () =>
        (await withTenant(f.ctx.rt.knex, tenant, (db) => db('opportunities').where({ id: orderId }).first('state'))).state ===
        'awaiting_release',
      'the order to wait for release',
    );
    t.is(at('/cli/learner').length + at('/cli/done').length, 0, 'nothing registered before the release');
    // The CLI's own transaction changes no record a webhook is told of (the order's state becomes
    // `released`): the workers it hands the order to make the changes.
    const released = await runTs('src/cli/main.ts', ['orders:release', '--tenant', tenant.slug, '--id', String(orderId)], {
      DATABASE_URL: f.ctx.rt.databaseUrl,
      REDIS_URL: f.ctx.rt.config.redisUrl,
      QUEUE_PREFIX: f.ctx.rt.config.queuePrefix,
    });
    t.is(released.code, 0, released.stderr);
    const [done] = await exactly(t, '/cli/done', 1);
    t.deepEqual(done!.body.payload.node, { id: gid('Opportunity', orderId), state: 'completed' });
    t.is(done!.body.metadata.context, 'worker');
    await exactly(t, '/cli/learner', 2);
  },
);

test.serial('when a manual type is triggered on an event, then every active webhook of the type gets one delivery', async (t) => {
  const { tenant, token } = await tenantWithAdmin('whmanual');
  const eventId = await withTenant(f.ctx.rt.knex, tenant, async (db) => {
    const [row] = await db('events').insert({ title: 'Manual course' }).returning('id');
    return (row as { id: number }).id;
  });
  await createWebhook(token, 'manual_event', '/manual/a', ECHO_QUERY);
  await createWebhook(token, 'manual_event', '/manual/b', EVENT_QUERY);
  const off = await createWebhook(token, 'manual_event', '/manual/off', ECHO_QUERY);
  await f.data(
    token,
    'mutation ($id: ID!) { webhooks { update(input: { webhookId: $id, lifecycleState: disabled }) { errors { message } } } }',
    {
      id: off,
    },
  );
  const fired = await f.data(
    token,
    'mutation ($type: ID!, $object: ID!) { webhooks { trigger(webhookTypeId: $type, objectId: $object) { deliveries errors { label message } } } }',
    { type: typeId('manual_event'), object: gid('Event', eventId) },
  );
  t.deepEqual(fired.webhooks.trigger, { deliveries: 2, errors: [] });
  const [a] = await exactly(t, '/manual/a', 1);
  t.is(unb64(a!.body.payload.echo), `Course:${eventId}`);
  t.like(a!.body.metadata, { context: 'graphql', is_retry: false });
  const [b] = await exactly(t, '/manual/b', 1);
  t.like(b!.body.payload.node, { id: gid('Event', eventId), title: 'Manual course' });
  t.not(a!.webhookId, b!.webhookId, 'a delivery of its own to each');
  t.is(at('/manual/off').length, 0, 'not to a disabled webhook');
});

test.serial('when a test delivery is sent to one webhook, then it alone receives it', async (t) => {
  const { tenant, token } = await tenantWithAdmin('whtest');
  const eventId = await withTenant(f.ctx.rt.knex, tenant, async (db) => {
    const [row] = await db('events').insert({ title: 'Test course' }).returning('id');
    return (row as { id: number }).id;
  });
  const id = await createWebhook(token, 'event_updated', '/test/one', EVENT_QUERY);
  await createWebhook(token, 'event_updated', '/test/other', EVENT_QUERY);
  const sent = await f.data(
    token,
    'mutation ($id: ID!, $object: ID) { webhooks { sendTest(webhookId: $id, objectId: $object) { delivery { state attempts } errors { label message } } } }',
    { id, object: gid('Event', eventId) },
  );
  t.deepEqual(sent.webhooks.sendTest, { delivery: { state: 'pending', attempts: 0 }, errors: [] });
  const [hit] = await exactly(t, '/test/one', 1);
  t.like(hit!.body.payload.node, { id: gid('Event', eventId), title: 'Test course' });
  t.is(hit!.body.metadata.webhook_id, id);
  t.is(at('/test/other').length, 0);
});
