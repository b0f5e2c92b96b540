import http from 'node:http';
import test from 'ava';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { request, setupTestRuntime, startTestApp, type HttpResult, type TestContext } from '../helpers/harness.js';
import { orderFor, orderSetup, type OrderSetup } from '../helpers/orders.js';
import { basic, PASSWORD } from '../helpers/rest.js';

/**
 * Write admission (ADMISSION_WRITES_PER_SECOND, here 10 a second for the process): over real
 * HTTP, a tenant flooding `POST /api/v2/orders` while another tenant writes is paced at its share
 * (its writes wait their turns) and refused past a second's wait with 429 `rate_limited` and
 * `Retry-After`; the other tenant's orders are admitted; a refused order, or one whose client
 * left while it waited, writes nothing; a tenant writing alone is never held back.
 */
const CAPACITY = 10;
const SCRAPER_TOKEN = 'admission-metrics-token-0123456789';
let ctx: TestContext;
let app: { port: number; close(): Promise<void> };
let noisy: OrderSetup;
let quiet: OrderSetup;
let lone: OrderSetup;

test.serial.before(async () => {
  ctx = await setupTestRuntime({
    ADMISSION_WRITES_PER_SECOND: String(CAPACITY),
    ADMISSION_ACTIVE_WINDOW_MS: '2000',
    METRICS_TOKEN: SCRAPER_TOKEN,
  });
  noisy = await orderSetup(ctx.rt.knex, await ctx.freshTenant('admn'), 'admn');
  quiet = await orderSetup(ctx.rt.knex, await ctx.freshTenant('admq'), 'admq');
  lone = await orderSetup(ctx.rt.knex, await ctx.freshTenant('adml'), 'adml');
  app = await startTestApp(ctx.rt);
});
test.after.always(async () => {
  await app?.close();
  await ctx?.cleanup();
});

const order = (s: OrderSetup, i: number): Promise<HttpResult> =>
  request(app.port, {
    method: 'POST',
    path: '/api/v2/orders',
    host: `${s.tenant.slug}.localhost`,
    headers: { authorization: basic(s.email, PASSWORD), accept: 'application/json' },
    body: orderFor(s, i),
  });

const stored = (tenant: Tenant) =>
  withTenant(ctx.rt.knex, tenant, async (db) => ({
    orders: Number((await db('opportunities').count('* as n').first())!.n),
    lines: Number((await db('opportunity_lines').count('* as n').first())!.n),
    outbox: Number((await db('platform.outbox').where({ tenant_id: tenant.id }).count('* as n').first())!.n),
  }));

/**
 * A read with the tenant's credentials: the password is verified once (argon2, tens of ms) and
 * cached, so the writes that follow reach admission as fast as they are sent.
 */
const signIn = async (s: OrderSetup) => {
  const r = await request(app.port, {
    path: '/api/v2/crm/contacts',
    host: `${s.tenant.slug}.localhost`,
    headers: { authorization: basic(s.email, PASSWORD), accept: 'application/json' },
  });
  if (r.status !== 200) throw new Error(`sign-in read answered ${r.status}`);
};

/** Waits until no tenant has written for the admission window, so each test starts alone. */
const quietPeriod = () => new Promise((r) => setTimeout(r, 2100));

test.serial('when a tenant writes alone, then it is never refused, even past the capacity', async (t) => {
  await quietPeriod();
  const answers = await Promise.all(Array.from({ length: 3 * CAPACITY }, (_, i) => order(lone, i)));
  t.deepEqual(
    answers.map((a) => a.status),
    Array.from({ length: 3 * CAPACITY }, () => 200),
    answers.map((a) => a.text.slice(0, 200)).join('\n'),
  );
  t.is((await stored(lone.tenant)).orders, 3 * CAPACITY);
});

test.serial(
  "when a tenant floods orders while another writes, then the flood is paced at its share and gets 429 with Retry-After past a second's wait, writes nothing for them, and the other's orders are admitted",
  async (t) => {
    await Promise.all([signIn(noisy), signIn(quiet)]);
    await quietPeriod();
    const before = await stored(noisy.tenant);
    // The quiet tenant writes: from now on two tenants are writing, each with half the capacity.
    t.is((await order(quiet, 1)).status, 200);
    const started = Date.now();
    const answeredAt: number[] = [];
    const flood = await Promise.all(
      Array.from({ length: 5 * CAPACITY }, (_, i) =>
        order(noisy, 100 + i).then((a) => {
          if (a.status === 200) answeredAt.push(Date.now());
          return a;
        }),
      ),
    );
    // The seconds the flood's requests were answered across (on a loaded machine, more than one or two).
    const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
    const admitted = flood.filter((a) => a.status === 200);
    const refused = flood.filter((a) => a.status === 429);
    t.is(admitted.length + refused.length, flood.length, flood.map((a) => `${a.status} ${a.text.slice(0, 200)}`).join('\n'));
    t.true(refused.length > 0, 'the flood was refused past its share');
    // The process's capacity a second at most, over the seconds the flood straddled.
    t.true(admitted.length <= seconds * CAPACITY, `${admitted.length} admitted in ${seconds} s`);
    // Paced, not taken at once: the admitted writes were spread over the second their share
    // allows (about 9 a second here), each waiting for its turn, rather than all let in together
    // and the rest refused. Their answers span most of a second (a loaded machine only widens it).
    t.true(admitted.length >= CAPACITY / 2, `${admitted.length} admitted`);
    const span = Math.max(...answeredAt) - Math.min(...answeredAt);
    t.true(span >= 700, `the admitted writes were answered within ${span} ms of each other`);
    const r = refused[0]!;
    t.is(r.json.error.code, 'rate_limited');
    const retry = Number(r.headers['retry-after']);
    t.true(retry >= 1 && retry <= 2, String(r.headers['retry-after']));
    t.is(r.json.error.details.retryAfterSeconds, retry);
    // Nothing half-written: exactly the admitted orders are stored, with their lines and outbox rows.
    const after = await stored(noisy.tenant);
    t.is(after.orders - before.orders, admitted.length);
    t.is(after.lines - before.lines, admitted.length);
    t.is(after.outbox - before.outbox, admitted.length);
    // The quiet tenant's writes are admitted during the flood.
    const quietAnswers = await Promise.all([order(quiet, 2), order(quiet, 3)]);
    t.deepEqual(
      quietAnswers.map((a) => a.status),
      [200, 200],
    );
    // After Retry-After, the flooding tenant's order is admitted again.
    await new Promise((res) => setTimeout(res, retry * 1000));
    t.is((await order(noisy, 999)).status, 200);
  },
);

test.serial('when a write waiting for its turn loses its client, then nothing of it is written', async (t) => {
  await Promise.all([signIn(noisy), signIn(quiet)]);
  await quietPeriod();
  t.is((await order(quiet, 10)).status, 200);
  const before = await stored(noisy.tenant);
  // Eight of the flood's orders at once: at 9 a second they take the turns of the next 0.8 s.
  const taken = Promise.all(Array.from({ length: 8 }, (_, i) => order(noisy, 2000 + i)));
  await new Promise((r) => setTimeout(r, 20));
  // The ninth waits about 0.8 s for its turn; its client gives up after 0.1 s.
  const body = JSON.stringify(orderFor(noisy, 2100));
  const gone = new Promise<void>((resolve) => {
    const req = http.request({
      host: '127.0.0.1',
      port: app.port,
      method: 'POST',
      path: '/api/v2/orders',
      headers: {
        host: `${noisy.tenant.slug}.localhost`,
        authorization: basic(noisy.email, PASSWORD),
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
    });
    req.on('error', () => resolve());
    req.end(body);
    setTimeout(() => {
      req.destroy();
      resolve();
    }, 100);
  });
  t.deepEqual(
    (await taken).map((a) => a.status),
    new Array<number>(8).fill(200),
  );
  await gone;
  // Past the ninth's turn, and then some.
  await new Promise((r) => setTimeout(r, 1500));
  const after = await stored(noisy.tenant);
  t.is(after.orders - before.orders, 8, 'only the eight answered orders are stored');
  t.is(after.outbox - before.outbox, 8);
  // It did reach admission and wait: it is counted as a request whose client left (499).
  const metrics = await request(app.port, { path: '/metrics', headers: { authorization: `Bearer ${SCRAPER_TOKEN}` } });
  // (counted where admission runs, on the REST API's router: the order route was never reached)
  t.regex(metrics.text, /http_request_duration_seconds_count\{method="POST",route="[^"]*",status="499"\} 1\b/);
  // The earlier test's refusals are counted as what they were answered: 429, not the default 404.
  t.regex(metrics.text, /http_request_duration_seconds_count\{method="POST",route="[^"]*",status="429"\} [1-9]/);
  t.notRegex(metrics.text, /http_request_duration_seconds_count\{method="POST",route="[^"]*",status="404"\}/);
});
