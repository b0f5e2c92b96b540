import test from 'ava';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import { tenantBaseUrl } from '../../src/platform/config.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { request, waitFor } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * Webhooks as the real clients use them (real-clients.md section 5.A): the sync service's and
 * the WordPress plugin's registration flows, their stored payload queries, and deliveries to a
 * receiver on 127.0.0.1 that checks the envelope as theirs do. Real workers, real HTTP.
 */

let f: GraphQLFixture;
let workers: RunningWorkers;
let rx: Receiver;

const METRICS_TOKEN = 'webhooks-metrics-token-0123456789';
const url = (path: string) => rx.url(path);
const at = (path: string) => rx.at(path);
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

test.serial.before(async () => {
  rx = await startReceiver();
  f = await graphqlFixture('wh', {
    env: { WEBHOOK_ALLOW: 'loopback', WEBHOOK_RETRY_SCHEDULE: '300ms,300ms', WEBHOOK_TIMEOUT_MS: '2000', METRICS_TOKEN },
  });
  workers = startWorkers(f.ctx.rt);
});
test.after.always(async () => {
  await workers?.close();
  await f?.close();
  await rx?.close();
});

const TYPES = 'query { webhookTypes(first: 200) { edges { node { id name } } } }';
/** The sync service: maps name -> id and fails when a name it needs is missing. */
async function typeIds(): Promise<Map<string, string>> {
  const d = await f.data(f.admin, TYPES);
  return new Map(d.webhookTypes.edges.map((e: { node: { id: string; name: string } }) => [e.node.name, e.node.id]));
}

const CREATE = `mutation ($input: WebhookCreateInput!) { webhooks { create(input: $input) { webhook { id lifecycleState } signingSecret errors { label message value } } } }`;
const UPDATE = `mutation ($input: WebhookUpdateInput!) { webhooks { update(input: $input) { webhook { id lifecycleState name } errors { label message value } } } }`;

async function createWebhook(input: Record<string, unknown>) {
  const res = await f.gql(f.admin, CREATE, { input });
  if (!res.json?.data?.webhooks?.create) throw new Error(`create failed: ${res.text}`);
  return res.json.data.webhooks.create as {
    webhook: { id: string; lifecycleState: string } | null;
    signingSecret: string | null;
    errors: { label: string; message: string }[];
  };
}

const TEMPLATE_QUERY =
  'query ($objectid: String!) { courseTemplates(filters: [{field: id, operation: eq, value: $objectid}]) { edges { node { id } } } }';
const ECHO_QUERY = 'query ($objectid: String!) { echo(value: $objectid) }';
const EVENT_NODE = 'query ($objectid: ID!) { node(id: $objectid) { id ... on Event { title lifecycleState courseTemplate { id } } } }';

test.serial(
  'when the sync service registers by type name and lists, creates and updates by webhookId, then each step answers as it reads it',
  async (t) => {
    const ids = await typeIds();
    for (const name of [
      'Event Created',
      'Event Updated',
      'Event Cancelled',
      'Learner Created',
      'Learner Cancelled',
      'Course Template Updated',
      'Order Completed',
      'Invoice Created',
    ]) {
      t.truthy(ids.get(name), name);
    }
    t.is(unb64(ids.get('Event Updated')!), 'WebhookType:event_updated');
    t.is(unb64(ids.get('Manual Event')!), 'WebhookType:manual_event');

    const made = await createWebhook({
      name: 'Admin3 Event Updated',
      webhookTypeId: ids.get('Event Updated'),
      query: EVENT_NODE,
      url: url('/sync/token123'),
      config: '{"secret": "s3cret"}',
      notificationEmails: ['ops@example.com'],
    });
    t.deepEqual(made.errors, []);
    t.is(made.webhook!.lifecycleState, 'active');
    t.regex(unb64(made.webhook!.id), /^OutboundHook:\d+$/);
    t.regex(made.signingSecret!, /^whsec_[A-Za-z0-9+/]+=*$/);

    const list = await f.data(f.admin, 'query { webhooks(first: 100) { edges { node { id name webhookType { name } } } } }');
    t.deepEqual(
      list.webhooks.edges.map((e: { node: unknown }) => e.node),
      [{ id: made.webhook!.id, name: 'Admin3 Event Updated', webhookType: { name: 'Event Updated' } }],
    );
    const updated = (await f.gql(f.admin, UPDATE, { input: { webhookId: made.webhook!.id, name: 'Renamed', lifecycleState: 'disabled' } }))
      .json.data.webhooks.update;
    t.deepEqual(updated, { webhook: { id: made.webhook!.id, lifecycleState: 'disabled', name: 'Renamed' }, errors: [] });
    // The type is fixed once created.
    const typed = (await f.gql(f.admin, UPDATE, { input: { webhookId: made.webhook!.id, webhookTypeId: ids.get('Event Created') } })).json
      .data.webhooks.update;
    t.is(typed.webhook, null);
    t.is(typed.errors[0].label, 'webhookTypeId');
  },
);

test.serial(
  'when the sync service updates config and notificationEmails by webhookId, and activates a webhook already active, then both are stored and its failure clock keeps running',
  async (t) => {
    const ids = await typeIds();
    const made = await createWebhook({
      name: 'Admin3 Learner Created',
      webhookTypeId: ids.get('Learner Created'),
      query: ECHO_QUERY,
      url: url('/sync/learners'),
      config: '{"secret": "one"}',
      notificationEmails: ['ops@example.com'],
    });
    t.deepEqual(made.errors, []);
    const id = Number(unb64(made.webhook!.id).split(':')[1]);
    const row = () => withTenant(f.ctx.rt.knex, f.tenant, (db) => db('webhooks').where({ id }).first());

    const changed = (
      await f.gql(f.admin, UPDATE, {
        input: {
          webhookId: made.webhook!.id,
          config: '{"secret": "two", "env": "prod"}',
          notificationEmails: ['a@example.com', 'b@example.com'],
        },
      })
    ).json.data.webhooks.update;
    t.deepEqual(changed.errors, []);
    t.like(await row(), { config: { secret: 'two', env: 'prod' }, notification_emails: ['a@example.com', 'b@example.com'] });
    const bad = (await f.gql(f.admin, UPDATE, { input: { webhookId: made.webhook!.id, config: 'secret=three' } })).json.data.webhooks
      .update;
    t.is(bad.webhook, null);
    t.is(bad.errors[0].label, 'config');
    t.like(await row(), { config: { secret: 'two', env: 'prod' } }, 'a refused update stores nothing');

    // Failing for an hour; a client that sends "activate" again (as the plugin does after each
    // save) must not reset the clock of WEBHOOK_DISABLE_AFTER.
    const since = new Date(Date.now() - 3_600_000);
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('webhooks').where({ id }).update({ failing_since: since }));
    const again = (await f.gql(f.admin, UPDATE, { input: { webhookId: made.webhook!.id, lifecycleState: 'active' } })).json.data.webhooks
      .update;
    t.deepEqual(again.errors, []);
    t.is(again.webhook.lifecycleState, 'active');
    t.deepEqual((await row()).failing_since, since);
    // Disabled, then enabled by hand: its failures so far no longer count.
    await f.gql(f.admin, UPDATE, { input: { webhookId: made.webhook!.id, lifecycleState: 'disabled' } });
    await f.gql(f.admin, UPDATE, { input: { webhookId: made.webhook!.id, lifecycleState: 'active' } });
    t.like(await row(), { lifecycle_state: 'active', failing_since: null, disabled_reason: null });
    await f.gql(f.admin, 'mutation ($id: ID!) { webhooks { delete(webhookId: $id) { errors { message } } } }', { id: made.webhook!.id });
  },
);

test.serial(
  'when a webhook is created with a bad config, query or url, then each is a field error saying why and nothing is stored',
  async (t) => {
    const ids = await typeIds();
    const base = { name: 'Bad', webhookTypeId: ids.get('Event Updated'), url: url('/bad'), query: EVENT_NODE };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ config: "{'secret': 'x'}" }, 'config', /JSON object sent as a string: .*property name/i],
      [{ config: '[1, 2]' }, 'config', /JSON object/],
      [{ query: 'query { hello }' }, 'query', /must declare \$objectid/],
      [{ query: 'query ($objectid: Int!) { hello }' }, 'query', /must be declared as ID! or String!/],
      [{ query: 'mutation ($objectid: ID!) { webhooks { __typename } }' }, 'query', /must be a query/],
      [{ query: 'query ($objectid: ID!) { node(id: $objectid) { nope } }' }, 'query', /not a valid query of this API: .*nope/],
      [{ query: 'query ($objectid: ID! { node' }, 'query', /does not parse/],
      [{ url: 'ftp://example.com/x' }, 'url', /https:\/\/ or http:\/\//],
      [{ webhookTypeId: b64('WebhookType:no_such_type') }, 'webhookTypeId', /names no webhook type/],
      [{ notificationEmails: ['not-an-address'] }, 'notificationEmails[0]', /e-mail address/],
    ];
    for (const [change, label, message] of cases) {
      const r = await createWebhook({ ...base, ...change });
      t.is(r.webhook, null, label);
      t.is(r.errors[0]?.label, label, JSON.stringify(change));
      t.regex(r.errors[0]?.message ?? '', message, JSON.stringify(change));
    }
    const deep = `query ($objectid: ID!) { node(id: $objectid) { ...on Event { courseTemplate { events { edges { node { courseTemplate { events { edges { node { courseTemplate { events { edges { node { courseTemplate { id } } } } } } } } } } } } } } } }`;
    const tooDeep = await createWebhook({ ...base, query: deep });
    t.regex(tooDeep.errors[0]?.message ?? '', /depth/i);
    const stored = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
      db('webhooks').where({ name: 'Bad' }).count<{ count: string }[]>('* as count'),
    );
    t.is(Number(stored[0]!.count), 0);
  },
);

test.serial(
  'when the WordPress plugin registers (inline input, emailAddress, then activate), then a course template change reaches its receiver as it checks it',
  async (t) => {
    const ids = await typeIds();
    const res = await f.gql(
      f.admin,
      `mutation ($name: String!, $email: String!, $webhookTypeId: ID!, $callbakUrl: String!, $query: String!) {
      webhooks { create(input: { name: $name, emailAddress: $email, webhookTypeId: $webhookTypeId, url: $callbakUrl, query: $query }) { webhook { id } errors { message } } } }`,
      {
        name: 'Wordpress Trigger Course Template Updated',
        email: 'wp@example.com',
        webhookTypeId: ids.get('Course Template Updated'),
        callbakUrl: url('/wp/ct'),
        query: TEMPLATE_QUERY,
      },
    );
    const id = res.json.data.webhooks.create.webhook.id as string;
    const on = await f.gql(
      f.admin,
      `mutation ($webhookId: ID!) { webhooks { update(input: { webhookId: $webhookId, lifecycleState: active }) { webhook { id lifecycleState } errors { message } } } }`,
      {
        webhookId: id,
      },
    );
    t.deepEqual(on.json.data.webhooks.update, { webhook: { id, lifecycleState: 'active' }, errors: [] });

    const made = await f.data(
      f.admin,
      'mutation { courseTemplate { create(input: {title: "Fire Safety", code: "FS1"}) { courseTemplate { id } } } }',
    );
    const templateId = made.courseTemplate.create.courseTemplate.id as string;
    await f.data(
      f.admin,
      `mutation { courseTemplate { update(courseTemplateId: "${templateId}", input: {title: "Fire Safety 2"}) { errors { message } } } }`,
    );
    const [hit] = await waitFor(async () => (at('/wp/ct').length ? at('/wp/ct') : undefined), 'the plugin receiver to be called');
    const { metadata, payload, configuration } = hit!.body;
    t.is(metadata.instance, tenantBaseUrl(f.ctx.rt.config, f.tenant.slug), 'string-equal to the instance address');
    t.is(metadata.webhook_id, id);
    t.is(metadata.is_retry, false);
    t.is(metadata.context, 'graphql');
    t.regex(metadata.triggered_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    t.regex(metadata.sent_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    t.deepEqual(payload, { courseTemplates: { edges: [{ node: { id: templateId } }] } });
    t.deepEqual(configuration, {});
    t.is(at('/wp/ct').length, 1, 'one change, one delivery');
    // Recorded delivered, and its outbox row settled with it (the reconciler has nothing to follow).
    const webhookId = Number(unb64(id).split(':')[1]);
    const settled = await waitFor(async () => {
      const rows = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
        db('webhook_deliveries as d')
          .join('platform.outbox as o', (j) => j.on('o.tenant_id', '=', db.raw('?', [f.tenant.id])))
          .whereRaw("(o.payload->>'deliveryId')::int = d.id")
          .where('d.webhook_id', webhookId)
          .where('o.queue', 'webhooks')
          .select('d.state', 'd.attempts', 'd.status_code', 'd.delivered_at', 'o.settled_at'),
      );
      return rows.length === 1 && rows[0].settled_at ? rows : undefined;
    }, 'the delivery to be settled');
    t.like(settled[0], { state: 'delivered', attempts: 1, status_code: 200 });
    // Both are the statement's now(): the record and the settle were one statement, one commit.
    t.truthy(settled[0].delivered_at);
    t.deepEqual(settled[0].settled_at, settled[0].delivered_at);
  },
);

/** acted's stored Event Updated query, verbatim in shape (real-clients.md 5.A, its Event tree). */
const ACTED_EVENT =
  'query ($objectid: ID!) { node(id: $objectid) { id ... on Event { title lifecycleState cancelledAt isSoldOut learningMode maxPlaces minPlaces location { id } venue { id } timeZoneName lmsStart lmsEnd registrationDeadline courseTemplate { id } updatedAt customFieldValues { definitionKey value } } } }';

test.serial(
  "when the sync service's Event tree webhook fires on a Core GraphQL update, then its receiver's checks pass and it answers 202 queued",
  async (t) => {
    const ids = await typeIds();
    const made = await createWebhook({
      name: 'Admin3 Event Updated (tree)',
      webhookTypeId: ids.get('Event Updated'),
      query: ACTED_EVENT,
      url: url('/acted/token-abc'),
      config: '{"secret": "s3cret"}',
    });
    t.deepEqual(made.errors, []);
    const known = new Set([made.webhook!.id]);
    // acted's receiver, as 5.A describes it: 401 on a wrong secret, 400 on a missing or malformed
    // field or an unknown webhook, else 202 queued.
    rx.answers.set('/acted/token-abc', (hit) => {
      const { metadata, payload, configuration } = hit.body ?? {};
      if (configuration?.secret !== 's3cret') return { status: 401, body: '{"error":"secret"}' };
      const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
      if (!metadata?.webhook_id || !known.has(metadata.webhook_id) || !iso.test(metadata.triggered_at ?? '') || !payload?.node?.id)
        return { status: 400, body: '{"error":"bad"}' };
      return { status: 202, body: '{"status":"queued"}' };
    });
    const eventId = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      const [row] = await db('events').insert({ title: 'Tree', delegates_max: 12 }).returning('id');
      return (row as { id: number }).id;
    });
    const updated = await f.gql(
      f.admin,
      'mutation ($id: ID!) { event { update(eventId: $id, input: {title: "Tree, renamed"}) { errors { message } } } }',
      { id: b64(`Event:${eventId}`) },
    );
    t.deepEqual(updated.json.data.event.update.errors, []);
    const [hit] = await waitFor(async () => (at('/acted/token-abc').length ? at('/acted/token-abc') : undefined), 'the tree delivery');
    const node = hit!.body.payload.node;
    t.like(node, { id: b64(`Event:${eventId}`), title: 'Tree, renamed', maxPlaces: 12, isSoldOut: false, location: null, venue: null });
    t.is(typeof node.lifecycleState, 'string');
    t.true(Array.isArray(node.customFieldValues));
    t.regex(node.updatedAt, /^\d{4}-\d\d-\d\dT/);
    t.is(hit!.body.metadata.context, 'graphql');
    // Recorded as delivered with the receiver's answer.
    const [delivery] = await waitFor(async () => {
      const rows = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
        db('webhook_deliveries')
          .where({ webhook_id: Number(unb64(made.webhook!.id).split(':')[1]) })
          .select('state', 'status_code', 'response_excerpt'),
      );
      return rows[0]?.state === 'delivered' ? rows : undefined;
    }, 'the delivery to be recorded');
    t.like(delivery, { status_code: 202, response_excerpt: '{"status":"queued"}' });
    t.is(at('/acted/token-abc').length, 1);
  },
);

test.serial(
  'when an event is deleted, then the echo webhook sends its id as Course:<n> and the node webhook reads its last state',
  async (t) => {
    const ids = await typeIds();
    for (const [path, query] of [
      ['/del/echo', ECHO_QUERY],
      ['/del/node', EVENT_NODE],
    ] as const) {
      const r = await createWebhook({ name: `Events Delete ${path}`, webhookTypeId: ids.get('Event Deleted'), url: url(path), query });
      t.deepEqual(r.errors, []);
    }
    const eventId = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      const [row] = await db('events').insert({ title: 'Gone Soon' }).returning('id');
      return (row as { id: number }).id;
    });
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('events').where({ id: eventId }).delete());
    const [echo] = await waitFor(async () => (at('/del/echo').length ? at('/del/echo') : undefined), 'the echo delivery');
    t.deepEqual(unb64(echo!.body.payload.echo).split(':'), ['Course', String(eventId)]);
    const [node] = await waitFor(async () => (at('/del/node').length ? at('/del/node') : undefined), 'the node delivery');
    t.is(node!.body.payload.node.title, 'Gone Soon');
    t.is(node!.body.payload.node.id, b64(`Event:${eventId}`));
  },
);

test.serial(
  'when a change rolls back, then nothing is sent; several changes to one record in one transaction send one event',
  async (t) => {
    const ids = await typeIds();
    await createWebhook({ name: 'Tx', webhookTypeId: ids.get('Event Updated'), url: url('/tx'), query: EVENT_NODE });
    const [a, b] = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      const rows = (await db('events')
        .insert([{ title: 'A' }, { title: 'B' }])
        .returning('id')) as { id: number }[];
      return rows.map((r) => r.id);
    });
    await t.throwsAsync(
      withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
        await db('events').where({ id: a }).update({ title: 'A rolled back' });
        throw new Error('roll back');
      }),
    );
    await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      await db('events').where({ id: b }).update({ title: 'B1' });
      await db('events').where({ id: b }).update({ title: 'B2' });
      await db('events').where({ id: b }).update({ notes: 'more' });
    });
    const [hit] = await waitFor(async () => (at('/tx').length ? at('/tx') : undefined), 'the update delivery');
    t.is(hit!.body.payload.node.title, 'B2');
    // Give a stray delivery time to arrive.
    await new Promise((r) => setTimeout(r, 1500));
    t.is(at('/tx').length, 1);
    t.false(at('/tx').some((r) => r.body.payload.node?.title === 'A rolled back'));
  },
);

test.serial(
  'when a receiver answers 500 then 200, then the retry carries is_retry and the same webhook-id, signed as standardwebhooks verifies',
  async (t) => {
    const ids = await typeIds();
    const made = await createWebhook({
      name: 'Flaky',
      webhookTypeId: ids.get('Event Created'),
      url: url('/flaky'),
      query: EVENT_NODE,
      config: '{"secret":"abc"}',
    });
    let calls = 0;
    rx.answers.set('/flaky', () => (++calls === 1 ? { status: 500 } : { status: 202, body: '{"status":"queued"}' }));
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('events').insert({ title: 'Retried' }));
    const hits = await waitFor(async () => (at('/flaky').length >= 2 ? at('/flaky') : undefined), 'a retry');
    t.false(hits[0]!.body.metadata.is_retry);
    t.true(hits[1]!.body.metadata.is_retry);
    t.is(hits[0]!.headers['webhook-id'], hits[1]!.headers['webhook-id']);
    t.deepEqual(hits[1]!.body.configuration, { secret: 'abc' });
    const verifier = new StandardWebhook(made.signingSecret!);
    t.notThrows(() => verifier.verify(hits[1]!.raw, hits[1]!.headers as Record<string, string>));
    t.throws(() => verifier.verify(hits[1]!.raw.replace('Retried', 'Tampered'), hits[1]!.headers as Record<string, string>));
    const deliveries = await f.data(
      f.admin,
      `query { node(id: "${made.webhook!.id}") { ... on Webhook { deliveries(first: 5) { edges { node { state attempts statusCode responseExcerpt } } } } } }`,
    );
    t.deepEqual(deliveries.node.deliveries.edges[0].node, {
      state: 'delivered',
      attempts: 2,
      statusCode: 202,
      responseExcerpt: '{"status":"queued"}',
    });
  },
);

test.serial('when a delivery waits for its retry, then Webhook.deliveries shows the failed attempt and when the next is due', async (t) => {
  const ids = await typeIds();
  const made = await createWebhook({ name: 'Between', webhookTypeId: ids.get('Event Created'), url: url('/between'), query: EVENT_NODE });
  let calls = 0;
  // 500, then held (the row keeps the first attempt's record until the second gives up), then 200.
  rx.answers.set('/between', () => (++calls === 1 ? { status: 500, body: 'down' } : calls === 2 ? 'hang' : { status: 200 }));
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('events').insert({ title: 'Between tries' }));
  const hits = await waitFor(async () => (at('/between').length >= 2 ? at('/between') : undefined), 'the retry to reach the receiver');
  const d = await f.data(
    f.admin,
    `query { node(id: "${made.webhook!.id}") { ... on Webhook { deliveries(first: 5) { edges { node { state attempts statusCode durationMs responseExcerpt error nextAttemptAt lastAttemptAt } } } } } }`,
  );
  const delivery = d.node.deliveries.edges[0].node;
  t.like(delivery, { state: 'pending', attempts: 1, statusCode: 500, responseExcerpt: 'down' });
  t.regex(delivery.error, /500/);
  t.true(Number.isInteger(delivery.durationMs) && delivery.durationMs >= 0);
  // Due the schedule's first wait (300 ms here) after the first attempt, and reached by the second.
  const due = Date.parse(delivery.nextAttemptAt) - Date.parse(delivery.lastAttemptAt);
  t.true(due >= 250 && due <= 1000, `${delivery.lastAttemptAt} -> ${delivery.nextAttemptAt}`);
  t.true(hits[1]!.at >= Date.parse(delivery.nextAttemptAt) - 50, 'the retry came when it was due');
  await waitFor(async () => (at('/between').length >= 3 ? true : undefined), 'the third attempt');
});

test.serial('when a receiver answers 410, then the webhook is disabled and says why', async (t) => {
  const ids = await typeIds();
  const made = await createWebhook({
    name: 'Gone',
    webhookTypeId: ids.get('Course Template Created'),
    url: url('/gone'),
    query: TEMPLATE_QUERY,
  });
  rx.answers.set('/gone', () => ({ status: 410 }));
  await f.data(f.admin, 'mutation { courseTemplate { create(input: {title: "Gone Course", code: "GC1"}) { courseTemplate { id } } } }');
  const state = await waitFor(async () => {
    const d = await f.data(f.admin, `query { node(id: "${made.webhook!.id}") { ... on Webhook { lifecycleState disabledReason } } }`);
    return d.node.lifecycleState === 'disabled' ? d.node : undefined;
  }, 'the webhook to be disabled');
  t.regex(state.disabledReason, /410/);
  t.is(at('/gone').length, 1, 'not retried');
});

test.serial(
  'when the owner loses the permission to read what the query asks, then the delivery fails saying so and sends nothing',
  async (t) => {
    const ids = await typeIds();
    const token = await f.tokenFor(f.tenant, 'hooker', ['WEBHOOKS_VIEW', 'WEBHOOKS_EDIT', 'EVENT_VIEW', 'COURSE_TEMPLATE_VIEW']);
    const res = await f.gql(token, CREATE, {
      input: { name: 'Narrow', webhookTypeId: ids.get('Event Created'), url: url('/narrow'), query: EVENT_NODE },
    });
    const id = res.json.data.webhooks.create.webhook.id as string;
    await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      const owner = await db('webhooks')
        .join('users', 'users.id', 'webhooks.owner_user_id')
        .where('webhooks.name', 'Narrow')
        .first('users.role_id');
      await db('roles')
        .where({ id: owner.role_id })
        .update({ permissions: ['WEBHOOKS_VIEW', 'WEBHOOKS_EDIT'] });
    });
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('events').insert({ title: 'Secret' }));
    const failed = await waitFor(async () => {
      const d = await f.data(
        f.admin,
        `query { node(id: "${id}") { ... on Webhook { deliveries(first: 1) { edges { node { state error } } } } } }`,
      );
      const n = d.node.deliveries.edges[0]?.node;
      return n?.state === 'failed' ? n : undefined;
    }, 'the delivery to fail');
    t.regex(failed.error, /owner may not read.*EVENT_VIEW/);
    t.is(at('/narrow').length, 0);
  },
);

test.serial(
  'when the signing secret is rotated, then deliveries carry both signatures until the overlap ends; a resend goes out again with is_retry',
  async (t) => {
    const ids = await typeIds();
    const made = await createWebhook({ name: 'Rotated', webhookTypeId: ids.get('Event Created'), url: url('/rotated'), query: ECHO_QUERY });
    const rotated = (
      await f.gql(
        f.admin,
        'mutation ($id: ID!) { webhooks { rotateSigningSecret(webhookId: $id) { signingSecret errors { message } } } }',
        { id: made.webhook!.id },
      )
    ).json.data.webhooks.rotateSigningSecret;
    t.deepEqual(rotated.errors, []);
    t.not(rotated.signingSecret, made.signingSecret);
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('events').insert({ title: 'Signed twice' }));
    const [hit] = await waitFor(async () => (at('/rotated').length ? at('/rotated') : undefined), 'the delivery');
    const headers = hit!.headers as Record<string, string>;
    t.is(headers['webhook-signature']!.split(' ').length, 2);
    t.notThrows(() => new StandardWebhook(rotated.signingSecret).verify(hit!.raw, headers), 'the new secret');
    t.notThrows(() => new StandardWebhook(made.signingSecret!).verify(hit!.raw, headers), 'the old one, during the overlap');

    // The receiver saw it before it answered: the delivery is recorded once its answer is back.
    const delivery = await waitFor(async () => {
      const list = await f.data(
        f.admin,
        `query { node(id: "${made.webhook!.id}") { ... on Webhook { deliveries(first: 1) { edges { node { id state } } } } } }`,
      );
      const d = list.node.deliveries.edges[0]?.node;
      return d?.state === 'delivered' ? d : undefined;
    }, 'the delivery recorded as delivered');
    const resent = (
      await f.gql(f.admin, 'mutation ($id: ID!) { webhooks { resend(deliveryId: $id) { delivery { state } errors { message } } } }', {
        id: delivery.id,
      })
    ).json.data.webhooks.resend;
    t.deepEqual(resent, { delivery: { state: 'pending' }, errors: [] });
    const again = await waitFor(async () => (at('/rotated').length >= 2 ? at('/rotated') : undefined), 'the resend');
    t.true(again[1]!.body.metadata.is_retry);
    t.is(again[1]!.headers['webhook-id'], hit!.headers['webhook-id']);
  },
);

test.serial('when deliveries happen, then /metrics counts them across workers and reports the oldest pending one', async (t) => {
  await workers.close();
  workers = startWorkers(f.ctx.rt); // the closed workers flushed their counts
  const res = await request(f.port, { path: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  t.is(res.status, 200);
  const metrics = res.text;
  const delivered = /lectern_webhook_deliveries_total\{outcome="delivered"\} (\d+)/.exec(metrics);
  t.truthy(delivered, metrics.slice(0, 200));
  t.true(Number(delivered![1]) >= 5);
  t.regex(metrics, /lectern_webhook_deliveries_total\{outcome="retried"\} [1-9]/);
  t.regex(metrics, /lectern_webhook_deliveries_total\{outcome="failed"\} [1-9]/, 'the 410 and the owner without permission failed');
  t.regex(metrics, /lectern_webhook_oldest_pending_seconds 0\n/, 'nothing waits');

  // With no worker running, a delivery that has waited two minutes is what the gauge reports.
  await workers.close();
  try {
    const made = await createWebhook({
      name: 'Waits',
      webhookTypeId: (await typeIds()).get('Event Updated'),
      query: ECHO_QUERY,
      url: url('/waits'),
    });
    const sent = await f.gql(
      f.admin,
      'mutation ($id: ID!) { webhooks { sendTest(webhookId: $id) { delivery { id } errors { message } } } }',
      {
        id: made.webhook!.id,
      },
    );
    t.deepEqual(sent.json.data.webhooks.sendTest.errors, []);
    const moved = await f.ctx.rt
      .knex('platform.outbox')
      .where({ queue_namespace: f.ctx.rt.config.queuePrefix, queue: 'webhooks' })
      .whereNull('settled_at')
      .update({ created_at: f.ctx.rt.knex.raw("now() - interval '120 seconds'") });
    t.is(moved, 1);
    const waiting = (await request(f.port, { path: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text;
    const age = /lectern_webhook_oldest_pending_seconds ([\d.]+)/.exec(waiting);
    t.truthy(age, waiting.slice(0, 300));
    t.true(Number(age![1]) >= 120 && Number(age![1]) < 180, age![1]);
  } finally {
    workers = startWorkers(f.ctx.rt);
  }
});

test.serial(
  "when a record's own rows change (a translation, a price), then it is Updated; when it is deleted with them, only Deleted",
  async (t) => {
    const ids = await typeIds();
    t.deepEqual(
      (await createWebhook({ name: 'Parts', webhookTypeId: ids.get('Course Template Updated'), url: url('/parts'), query: ECHO_QUERY }))
        .errors,
      [],
    );
    await createWebhook({
      name: 'Parts gone',
      webhookTypeId: ids.get('Course Template Deleted'),
      url: url('/parts-gone'),
      query: ECHO_QUERY,
    });
    const en = await f.locale(f.tenant, 'en');
    const made = await f.data(
      f.admin,
      `mutation { courseTemplate { create(input: {title: "Parts", code: "PT1", localeId: "${en}"}) { courseTemplate { id legacyId } } } }`,
    );
    const { id, legacyId } = made.courseTemplate.create.courseTemplate as { id: string; legacyId: number };
    const fr = await f.locale(f.tenant, 'fr');
    const translated = await f.data(
      f.admin,
      'mutation ($input: CourseTemplateTranslationUpsertInput!) { courseTemplate { upsertTranslation(input: $input) { errors { message } } } }',
      { input: { courseTemplateId: id, localeId: fr, title: 'Pièces' } },
    );
    t.deepEqual(translated.courseTemplate.upsertTranslation.errors, []);
    const first = await waitFor(async () => (at('/parts').length ? at('/parts') : undefined), 'the translation to be an update');
    t.is(unb64(first[0]!.body.payload.echo), `CourseTemplate:${legacyId}`);
    await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
      const level = await db('price_levels').first('id');
      await db('prices').insert({ course_template_id: legacyId, price_level_id: level.id, currency_code: 'GBP', amount: 10 });
    });
    await waitFor(async () => (at('/parts').length >= 2 ? true : undefined), 'the price to be an update');
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('course_templates').where({ id: legacyId }).delete());
    await waitFor(async () => (at('/parts-gone').length ? true : undefined), 'the deletion');
    await new Promise((r) => setTimeout(r, 1000));
    t.is(at('/parts').length, 2, 'its rows deleted with it are not an update');
  },
);

test.serial('when a tenant has 100 webhooks, then another is refused with a field error and not stored', async (t) => {
  const ids = await typeIds();
  const have = await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('webhooks').count<{ count: string }[]>('* as count'));
  const input = (n: number) => ({
    name: `Many ${n}`,
    webhookTypeId: ids.get('Event Updated'),
    url: url('/many'),
    query: ECHO_QUERY,
    lifecycleState: 'disabled',
  });
  for (let n = Number(have[0]!.count); n < 100; n++) t.deepEqual((await createWebhook(input(n))).errors, [], `webhook ${n + 1}`);
  const over = await createWebhook(input(101));
  t.is(over.webhook, null);
  t.is(over.errors[0]?.label, 'input');
  t.regex(over.errors[0]?.message ?? '', /at most 100 webhooks/);
  const after = await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('webhooks').count<{ count: string }[]>('* as count'));
  t.is(Number(after[0]!.count), 100);
  // Deleting one makes room.
  const one = await f.data(
    f.admin,
    'query { webhooks(first: 1, filters: [{field: name, operation: eq, value: "Many 99"}]) { edges { node { id } } } }',
  );
  const id = one.webhooks.edges[0].node.id as string;
  const deleted = (
    await f.gql(f.admin, 'mutation ($id: ID!) { webhooks { delete(webhookId: $id) { deleted errors { message } } } }', { id })
  ).json.data.webhooks.delete;
  t.deepEqual(deleted, { deleted: true, errors: [] });
  t.is((await f.data(f.admin, `query { node(id: "${id}") { id } }`)).node, null);
  t.deepEqual((await createWebhook(input(102))).errors, []);
});
