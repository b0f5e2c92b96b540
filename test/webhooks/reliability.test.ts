import test, { type ExecutionContext } from 'ava';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import type { Runtime } from '../../src/app/runtime.js';
import { loadConfig, type WebhookSettings } from '../../src/platform/config.js';
import type { Knex } from '../../src/platform/db/knex.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { setupTestRuntime, spawnTs, waitFor } from '../helpers/harness.js';
import { hasRedisServer, privateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { startReceiver, type Hit, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * Webhook deliveries when things go wrong (issue 24, "Delivered by the workers", "Retries",
 * "Safe", "E-mail for real"): Redis restarted empty and a worker SIGKILLed in the middle of a
 * burst lose no delivery (duplicates only under one `webhook-id`), a receiver that never answers
 * does not hold another tenant's deliveries, retries run out into a failed delivery and a notice
 * received on a real SMTP server, and the disable rule. Real workers (in this process or spawned),
 * real HTTP to a receiver on 127.0.0.1, real Redis or BullMQ's PostgreSQL backend.
 */

let f: GraphQLFixture;
let rx: Receiver;
let redis: PrivateRedis | undefined;
let smtp: { port: number; mails: { to: string[]; raw: string }[]; close(): Promise<void> };
/**
 * The worker process the kill test SIGKILLs, started with the fixture: it takes seconds to boot,
 * which it does while the test before it runs (on a queue namespace of its own).
 */
let doomed: ReturnType<typeof spawnTs> | undefined;

const url = (path: string) => rx.url(path);
const at = (path: string) => rx.at(path);
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The event a delivery of the echo query is about (`$objectid` is `Course:<id>` for events). */
const eventOf = (h: Hit) => Number(unb64(h.body.payload.echo as string).split(':')[1]);

const ECHO_QUERY = 'query ($objectid: String!) { echo(value: $objectid) }';
const EVENT_CREATED = b64('WebhookType:event_created');
const CREATE = `mutation ($input: WebhookCreateInput!) { webhooks { create(input: $input) { webhook { id } errors { label message } } } }`;
const WEBHOOK_STATE = `query ($id: ID!) { node(id: $id) { ... on Webhook { lifecycleState disabledReason
  deliveries(first: 100) { edges { node { state attempts statusCode error } } } } } }`;

/** A real SMTP server on 127.0.0.1 that keeps what it receives. */
async function smtpServer(): Promise<typeof smtp> {
  const mails: { to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    // The client is 127.0.0.1: a reverse lookup would send a DNS query off the machine.
    disableReverseLookup: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test.serial.before(async () => {
  rx = await startReceiver();
  smtp = await smtpServer();
  f = await graphqlFixture('whrel', {
    env: {
      WEBHOOK_ALLOW: 'loopback',
      WEBHOOK_RETRY_SCHEDULE: '300ms,300ms',
      WEBHOOK_TIMEOUT_MS: '5000',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'lectern@example.test',
      RECONCILE_AFTER_MS: '1500',
      WORKER_LOCK_MS: '2000',
    },
  });
  // A one-node cluster in a REDIS_CLUSTER=on run, so the runtime's cluster clients have one to talk to.
  if (hasRedisServer) redis = await privateRedis({ cluster: loadConfig().redisCluster });
  doomed = spawnTs('workers/main.ts', [], workerEnv(f.ctx.rt, { WEBHOOK_CONCURRENCY: '4', LOG_LEVEL: 'info' }));
});
test.after.always(async () => {
  await noStrayWorker();
  await f?.close();
  await redis?.stop();
  await smtp?.close();
  await rx?.close();
});

/** A tenant of its own for a test, and an admin's token on it. */
async function tenantWithAdmin(label: string, ctx = f.ctx): Promise<{ tenant: Tenant; token: string }> {
  const tenant = await ctx.freshTenant(label);
  return { tenant, token: await f.tokenFor(tenant, 'admin') };
}

/** Creates a webhook through Core GraphQL, as the clients do; answers its id. */
async function createWebhook(token: string, input: Record<string, unknown>): Promise<string> {
  const res = await f.gql(token, CREATE, { input: { webhookTypeId: EVENT_CREATED, query: ECHO_QUERY, ...input } });
  const made = res.json?.data?.webhooks?.create;
  if (!made?.webhook) throw new Error(`create failed: ${res.text}`);
  return made.webhook.id as string;
}

/** Inserts `n` events, each in a transaction of its own (each commit is a change the triggers capture). */
async function insertEvents(knex: Knex, tenant: Tenant, n: number, label: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const [row] = await withTenant(knex, tenant, (db) =>
      db('events')
        .insert({ title: `${label} ${i}` })
        .returning('id'),
    );
    ids.push((row as { id: number }).id);
  }
  return ids;
}

/**
 * Every event reached the receiver at least once, every repeat of one carried its first
 * `webhook-id`, and no two events shared one. Answers how many repeats there were.
 */
function assertAtLeastOnce(t: ExecutionContext, received: Hit[], eventIds: number[]): number {
  const byEvent = new Map<number, Set<string>>();
  for (const h of received) byEvent.set(eventOf(h), (byEvent.get(eventOf(h)) ?? new Set()).add(h.webhookId));
  t.deepEqual(
    eventIds.filter((id) => !byEvent.has(id)),
    [],
    'events never delivered',
  );
  t.deepEqual(
    [...byEvent.keys()].filter((id) => !eventIds.includes(id)),
    [],
    'deliveries of events not made here',
  );
  t.deepEqual(
    [...byEvent].filter(([, ids]) => ids.size !== 1).map(([id, ids]) => ({ event: id, webhookIds: [...ids] })),
    [],
    'an event delivered under two webhook-ids',
  );
  t.is(new Set(received.map((h) => h.webhookId)).size, eventIds.length, 'one webhook-id per event');
  return received.length - eventIds.length;
}

/** Every delivery of the tenant settled as delivered. */
async function assertAllDelivered(t: ExecutionContext, knex: Knex, tenant: Tenant, n: number): Promise<void> {
  const states = await withTenant(knex, tenant, (db) =>
    db('webhook_deliveries').select('state').count<{ state: string; count: string }[]>('* as count').groupBy('state'),
  );
  t.deepEqual(
    states.map((s) => ({ state: s.state, count: Number(s.count) })),
    [{ state: 'delivered', count: n }],
  );
}

/** The worker process's settings: the test's database, queue store and namespace; loopback allowed. */
function workerEnv(rt: Runtime, extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    DATABASE_URL: rt.databaseUrl,
    REDIS_URL: rt.config.redisUrl,
    QUEUE_PREFIX: rt.config.queuePrefix,
    WORKER_LOCK_MS: '2000',
    RECONCILE_AFTER_MS: '1500',
    OUTBOX_SWEEP_MS: '200',
    WEBHOOK_ALLOW: 'loopback',
    WEBHOOK_RETRY_SCHEDULE: '300ms,300ms',
    ...extra,
  };
}

/** Ends the kill test's worker process if that test did not run (it would take this file's jobs). */
async function noStrayWorker(): Promise<void> {
  if (doomed && doomed.child.exitCode === null && doomed.child.signalCode === null) {
    doomed.child.kill('SIGKILL');
    await doomed.done;
  }
}

/** This process's workers with webhook settings of the test's own. */
function workersWith(settings: Partial<WebhookSettings>): RunningWorkers {
  const rt = f.ctx.rt;
  return startWorkers({ ...rt, config: { ...rt.config, webhooks: { ...rt.config.webhooks, ...settings } } });
}

(hasRedisServer ? test.serial : test.serial.skip)(
  'when Redis is killed mid-burst and comes back empty, then every event is delivered at least once, a repeat only under its webhook-id',
  async (t) => {
    // A runtime whose queues are on a Redis of this test's own, which it may kill.
    const ctx = await setupTestRuntime({
      REDIS_URL: redis!.url,
      RECONCILE_AFTER_MS: '1500',
      WORKER_LOCK_MS: '2000',
      WEBHOOK_ALLOW: 'loopback',
      WEBHOOK_CONCURRENCY: '2',
    });
    let workers: RunningWorkers | undefined;
    try {
      const { tenant, token } = await tenantWithAdmin('whredis', ctx);
      await createWebhook(token, { name: 'Redis burst', url: url('/redis') });
      // A little slow, and two at a time: a backlog builds up in Redis for the kill to take.
      rx.answers.set('/redis', { status: 200, delayMs: 40 });
      workers = startWorkers(ctx.rt);
      const ids = await insertEvents(ctx.rt.knex, tenant, 30, 'Before');
      await waitFor(async () => at('/redis').length >= 4, 'the worker to be part way through', 30000, 10);
      await redis!.kill();
      // Captured while Redis is down: they wait in the outbox.
      ids.push(...(await insertEvents(ctx.rt.knex, tenant, 15, 'During')));
      await sleep(300);
      await redis!.start();
      ids.push(...(await insertEvents(ctx.rt.knex, tenant, 15, 'After')));
      await waitFor(async () => new Set(at('/redis').map(eventOf)).size >= ids.length, 'every event to be delivered', 60000, 100);
      await waitFor(
        async () =>
          (await withTenant(ctx.rt.knex, tenant, (db) => db('webhook_deliveries').where({ state: 'pending' }).first('id'))) === undefined,
        'no delivery left pending',
        20000,
      );
      const repeats = assertAtLeastOnce(t, at('/redis'), ids);
      await assertAllDelivered(t, ctx.rt.knex, tenant, ids.length);
      const requeued = await ctx.rt
        .knex('platform.outbox')
        .where({ tenant_id: tenant.id, queue: 'webhooks' })
        .where('requeues', '>', 0)
        .count<{ n: string }[]>('* as n');
      t.true(Number(requeued[0]!.n) > 0, 'the kill lost queued deliveries, and the reconciler queued them again');
      t.log(`${ids.length} events, ${repeats} repeated deliveries, ${requeued[0]!.n} queued again by the reconciler`);
    } finally {
      await workers?.close();
      await ctx.cleanup();
    }
  },
);

test.serial(
  'when a worker process is SIGKILLed with deliveries in flight, then after a new worker starts every event is delivered at least once, a repeat only under its webhook-id',
  async (t) => {
    const { tenant, token } = await tenantWithAdmin('whkill');
    await createWebhook(token, { name: 'Kill burst', url: url('/kill') });
    // Slow enough that deliveries are in flight at any moment.
    rx.answers.set('/kill', { status: 200, delayMs: 400 });
    const ids: number[] = [];
    const first = doomed!;
    let inFlight = 0;
    try {
      await waitFor(async () => first.output().stdout.includes('workers started'), 'the worker process to start', 60000);
      ids.push(...(await insertEvents(f.ctx.rt.knex, tenant, 40, 'Kill')));
      await waitFor(
        async () => {
          const got = at('/kill');
          inFlight = got.filter((h) => !h.answered).length;
          return got.length >= 6 && inFlight > 0;
        },
        'the first worker to be part way through, deliveries in flight',
        30000,
        5,
      );
    } finally {
      // Whatever happens, never leave it running (its relay serves this file's namespace).
      first.child.kill('SIGKILL');
    }
    t.is((await first.done).signal, 'SIGKILL');
    const inFlightEvents = at('/kill')
      .filter((h) => !h.answered)
      .map(eventOf);
    t.true(new Set(at('/kill').map(eventOf)).size < ids.length, 'work was left when the worker died');

    // A new worker (this process's, which starts at once): jobs the dead one held come back once
    // their lock lapses (WORKER_LOCK_MS).
    const second = workersWith({ concurrency: 4 });
    try {
      await waitFor(async () => new Set(at('/kill').map(eventOf)).size >= ids.length, 'every event after the kill', 60000);
      await waitFor(
        async () =>
          (await withTenant(f.ctx.rt.knex, tenant, (db) => db('webhook_deliveries').where({ state: 'pending' }).first('id'))) === undefined,
        'no delivery left pending',
        20000,
      );
    } finally {
      await second.close();
    }
    const repeats = assertAtLeastOnce(t, at('/kill'), ids);
    // What was in flight at the kill was never recorded as delivered: sent again, under its webhook-id.
    for (const id of inFlightEvents) t.true(at('/kill').filter((h) => eventOf(h) === id).length >= 2, `event ${id} sent again`);
    await assertAllDelivered(t, f.ctx.rt.knex, tenant, ids.length);
    t.log(`${ids.length} events, ${inFlight} in flight at the kill, ${repeats} repeated deliveries`);
  },
);

test.serial(
  'when the queue store loses the jobs of pending deliveries, then the reconciler queues them again and each event is delivered, any repeat under its webhook-id',
  async (t) => {
    await noStrayWorker();
    const { tenant, token } = await tenantWithAdmin('whlost');
    await createWebhook(token, { name: 'Lost jobs', url: url('/lost') });
    // More than the worker's database pool (DB_POOL_MAX, 10): the jobs the reconciler queues again
    // run and complete while its sweep is still going through the rest. When its sweep held its
    // rows locked and asked the pool for a connection per row, the jobs' outbox updates waited
    // for those locks holding the pool's other connections: nothing moved until the pool's
    // acquire timeout (10 s) failed the sweep (its record of the jobs it queued rolled back) and
    // the deliveries waiting for a connection (one sent, its outcome never recorded: left pending
    // at the stop below, or sent again by the job's retry).
    const ids = await insertEvents(f.ctx.rt.knex, tenant, 20, 'Lost');
    // Queued (as a worker's relay would), then lost with everything else the store held: on
    // BullMQ's PostgreSQL backend as on Redis.
    while ((await f.ctx.rt.dispatcher.enqueuePending('webhooks')) > 0);
    for (const q of f.ctx.rt.queues.shards('webhooks')) await q.obliterate({ force: true });
    const workers = startWorkers(f.ctx.rt);
    try {
      await waitFor(async () => new Set(at('/lost').map(eventOf)).size >= ids.length, 'the deliveries whose jobs were lost', 30000);
    } finally {
      // Lets the jobs in hand finish: a delivery sent is recorded before its worker stops.
      await workers.close();
    }
    // At least once, a repeat only under its webhook-id (the contract): a job whose lock lapsed
    // under load may send once more. The figure is logged.
    t.log(`${assertAtLeastOnce(t, at('/lost'), ids)} repeated deliveries`);
    await assertAllDelivered(t, f.ctx.rt.knex, tenant, ids.length);
    const attempts = await withTenant(f.ctx.rt.knex, tenant, (db) =>
      db('webhook_deliveries').whereNot({ attempts: 1 }).select('id', 'attempts', 'error'),
    );
    t.deepEqual(attempts, [], 'a delivery needed more than one attempt (its receiver answered 200 each time)');
    // The reconciler's record of what it did: each lost job queued again once, under its new id.
    const rows = await f.ctx.rt
      .knex('platform.outbox')
      .where({ tenant_id: tenant.id, queue: 'webhooks' })
      .orderBy('id')
      .select('job_id', 'requeues');
    t.deepEqual(
      rows.filter((r: { job_id: string; requeues: number }) => r.requeues !== 1 || !r.job_id.endsWith('-q1')),
      [],
      'outbox rows whose jobs were lost and not recorded as queued again once',
    );
    t.is(rows.length, ids.length);
  },
);

/** Deliveries of one webhook a process sends at once in the hanging-receiver test. */
const ENDPOINT_CONCURRENCY = 4;

test.serial(
  "when one tenant's receiver never answers, then another tenant's deliveries still arrive promptly (WEBHOOK_ENDPOINT_CONCURRENCY)",
  async (t) => {
    await noStrayWorker();
    const one = await tenantWithAdmin('whhang');
    const two = await tenantWithAdmin('whquick');
    const hanging = await createWebhook(one.token, { name: 'Hangs', url: url('/hang') });
    await createWebhook(two.token, { name: 'Quick', url: url('/quick') });
    rx.answers.set('/hang', 'hang');
    // Longer than the bound asserted below: with a 1 s timeout the fair priorities alone bring the
    // other tenant through in under 3 s (1.6 s with WEBHOOK_ENDPOINT_CONCURRENCY=100), so the test
    // would not show the per-endpoint bound; with 5 s and no bound the other tenant waits ~6 s.
    const timeoutMs = 5000;
    const workers = workersWith({ timeoutMs, endpointConcurrency: ENDPOINT_CONCURRENCY, retryScheduleMs: [300, 300] });
    try {
      // 30 deliveries to a receiver that never answers: 30 x 3 attempts x 5 s of waiting, 4 at a time.
      await withTenant(f.ctx.rt.knex, one.tenant, (db) =>
        db('events').insert(Array.from({ length: 30 }, (_, i) => ({ title: `Hang ${i}` }))),
      );
      await waitFor(async () => rx.held.size >= 4, 'the hanging receiver to hold requests', 10000, 10);
      const start = Date.now();
      const ids = await withTenant(f.ctx.rt.knex, two.tenant, async (db) =>
        (
          (await db('events')
            .insert(Array.from({ length: 10 }, (_, i) => ({ title: `Quick ${i}` })))
            .returning('id')) as { id: number }[]
        ).map((r) => r.id),
      );
      await waitFor(async () => new Set(at('/quick').map(eventOf)).size >= ids.length, "the other tenant's deliveries", 20000, 10);
      const tookMs = Math.max(...at('/quick').map((h) => h.at)) - start;
      t.log(`10 deliveries of the other tenant in ${tookMs} ms while ${rx.held.size} requests hang`);
      t.true(tookMs < 3000, `the other tenant waited ${tookMs} ms`);
      t.true(rx.held.size > 0, 'the receiver was still hanging');
      t.true(rx.mostHeld() <= ENDPOINT_CONCURRENCY, `${rx.mostHeld()} requests of the hanging webhook at once`);
      assertAtLeastOnce(t, at('/quick'), ids);
      const waiting = await withTenant(f.ctx.rt.knex, one.tenant, (db) =>
        db('webhook_deliveries').where({ state: 'pending' }).count<{ n: string }[]>('* as n'),
      );
      t.is(Number(waiting[0]!.n), 30, 'every delivery of the hanging webhook still waits');
    } finally {
      // Let the hanging webhook go quickly: disabled, its open requests cut.
      await f.gql(
        one.token,
        `mutation ($id: ID!) { webhooks { update(input: { webhookId: $id, lifecycleState: disabled }) { errors { message } } } }`,
        { id: hanging },
      );
      for (const s of rx.held) s.destroy();
      await workers.close();
    }
  },
);

test.serial(
  'when a receiver always answers 500, then after 3 attempts the delivery is failed and a notice arrives over SMTP, marked mailed',
  async (t) => {
    await noStrayWorker();
    const { tenant, token } = await tenantWithAdmin('whfail');
    const id = await createWebhook(token, { name: 'Always 500', url: url('/fail'), notificationEmails: ['ops-fail@example.test'] });
    rx.answers.set('/fail', { status: 500 });
    const workers = workersWith({ retryScheduleMs: [200, 200] });
    try {
      await insertEvents(f.ctx.rt.knex, tenant, 1, 'Failing');
      const delivery = await waitFor(async () => {
        const d = (await f.data(token, WEBHOOK_STATE, { id })).node.deliveries.edges[0]?.node;
        return d?.state === 'failed' ? d : undefined;
      }, 'the delivery to fail');
      t.like(delivery, { state: 'failed', attempts: 3, statusCode: 500 });
      t.regex(delivery.error, /500/);
      const sent = at('/fail');
      t.is(sent.length, 3);
      t.deepEqual(
        sent.map((h) => h.body.metadata.is_retry),
        [false, true, true],
      );
      t.is(new Set(sent.map((h) => h.webhookId)).size, 1, 'one webhook-id across the retries');
      const mail = await waitFor(async () => smtp.mails.find((m) => m.to.includes('ops-fail@example.test')), 'the notice e-mail');
      t.regex(mail.raw, /Subject: Webhook delivery failed: Always 500/);
      t.regex(mail.raw, /after 3 attempts/);
      const notices = await waitFor(
        async () => {
          const rows = await withTenant(f.ctx.rt.knex, tenant, (db) => db('webhook_notices').select('subject', 'recipients', 'mailed'));
          return rows.every((r: { mailed: boolean }) => r.mailed) ? rows : undefined;
        },
        'the notice to be marked mailed',
        5000,
      );
      t.deepEqual(notices, [{ subject: 'Webhook delivery failed: Always 500', recipients: ['ops-fail@example.test'], mailed: true }]);
    } finally {
      await workers.close();
    }
  },
);

test.serial(
  'when many deliveries of one webhook fail within the hour, then one notice is mailed and the others are kept for the Control Panel',
  async (t) => {
    await noStrayWorker();
    const { tenant, token } = await tenantWithAdmin('whmany');
    await createWebhook(token, { name: 'Fails a lot', url: url('/many-fail'), notificationEmails: ['ops-many@example.test'] });
    rx.answers.set('/many-fail', { status: 500 });
    const workers = workersWith({ retryScheduleMs: [] });
    try {
      await insertEvents(f.ctx.rt.knex, tenant, 5, 'Many');
      const rows = await waitFor(async () => {
        const r = await withTenant(f.ctx.rt.knex, tenant, (db) => db('webhook_notices').select('mailed'));
        return r.length === 5 ? r : undefined;
      }, 'a notice per failed delivery');
      await new Promise((r) => setTimeout(r, 500));
      t.is(smtp.mails.filter((m) => m.to.includes('ops-many@example.test')).length, 1, 'one mail an hour');
      t.is(rows.length, 5);
      const mailed = await waitFor(async () => {
        const r = await withTenant(f.ctx.rt.knex, tenant, (db) =>
          db('webhook_notices').where({ mailed: true }).count<{ count: string }[]>('* as count'),
        );
        return Number(r[0]!.count) > 0 ? Number(r[0]!.count) : undefined;
      }, 'the mailed notice to be marked');
      t.is(mailed, 1);
    } finally {
      await workers.close();
    }
  },
);

test.serial(
  'when every delivery of a webhook fails for WEBHOOK_DISABLE_AFTER, then it is disabled saying why, with a notice',
  async (t) => {
    await noStrayWorker();
    const { tenant, token } = await tenantWithAdmin('whoff');
    const id = await createWebhook(token, { name: 'Never works', url: url('/off'), emailAddress: 'ops-off@example.test' });
    rx.answers.set('/off', { status: 500 });
    const workers = workersWith({ disableAfterMs: 1000, retryScheduleMs: [300, 300, 300, 300, 300, 300] });
    try {
      await insertEvents(f.ctx.rt.knex, tenant, 1, 'Off');
      const state = await waitFor(async () => {
        const n = (await f.data(token, WEBHOOK_STATE, { id })).node;
        return n.lifecycleState === 'disabled' ? n : undefined;
      }, 'the webhook to be disabled');
      t.is(state.disabledReason, 'every delivery failed for 1 second');
      const mail = await waitFor(async () => smtp.mails.find((m) => m.to.includes('ops-off@example.test')), 'the notice e-mail');
      t.regex(mail.raw, /Subject: Webhook disabled: Never works/);
      // The delivery's next attempt finds its webhook disabled: it fails without being sent.
      const delivery = await waitFor(async () => {
        const d = (await f.data(token, WEBHOOK_STATE, { id })).node.deliveries.edges[0]?.node;
        return d?.state === 'failed' ? d : undefined;
      }, 'the delivery to fail');
      t.true(delivery.attempts < 7, 'not every retry was made');
      const sentBefore = at('/off').length;
      await sleep(700);
      t.is(at('/off').length, sentBefore, 'nothing sent once disabled');
      const notices = await waitFor(
        async () => {
          const rows = await withTenant(f.ctx.rt.knex, tenant, (db) => db('webhook_notices').orderBy('id').select('subject', 'mailed'));
          return rows.every((r: { mailed: boolean }) => r.mailed) ? rows : undefined;
        },
        'the notice to be marked mailed',
        5000,
      );
      t.deepEqual(notices, [{ subject: 'Webhook disabled: Never works', mailed: true }]);
    } finally {
      await workers.close();
    }
  },
);
