import test from 'ava';
import { request, setupTestRuntime, startTestApp, type TestContext } from '../helpers/harness.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { createUser } from '../../src/modules/users/users.service.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { basic } from '../helpers/rest.js';

let ctx: TestContext;
let port: number;
let close: () => Promise<void>;
let tenant: Tenant;
const SCRAPER_TOKEN = 'plumbing-metrics-token-0123456789';

test.serial.before(async () => {
  ctx = await setupTestRuntime({ BODY_LIMIT: '2kb', METRICS_TOKEN: SCRAPER_TOKEN });
  tenant = await ctx.freshTenant('plumb');
  await withTenant(ctx.rt.knex, tenant, (db) => createUser(db, { email: 'plumb@x.test', password: 'plumbing-secret-1', role: 'admin' }));
  ({ port, close } = await startTestApp(ctx.rt));
});
test.after.always(async () => {
  await close?.();
  await ctx?.cleanup();
});

const host = () => `${tenant.slug}.localhost`;
// Body errors surface on routes that read bodies, after authentication (see src/http/body.ts).
const auth = () => ({ authorization: basic('plumb@x.test', 'plumbing-secret-1') });

test('when a request has no X-Request-Id, then one is made and echoed; a well-formed one is kept', async (t) => {
  const made = await request(port, { path: '/healthz' });
  t.regex(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const kept = await request(port, { path: '/healthz', headers: { 'x-request-id': 'abc-123.trace' } });
  t.is(kept.headers['x-request-id'], 'abc-123.trace');
  const replaced = await request(port, { path: '/healthz', headers: { 'x-request-id': 'no spaces <script>' } });
  t.not(replaced.headers['x-request-id'], 'no spaces <script>');
});

test('when the body is not valid JSON, then 400 invalid_json', async (t) => {
  const r = await request(port, {
    method: 'POST',
    host: host(),
    path: '/api/v2/crm/contacts',
    rawBody: '{"name": ',
    headers: { 'content-type': 'application/json', ...auth() },
  });
  t.is(r.status, 400);
  t.deepEqual(r.json, { error: { code: 'invalid_json', message: 'Request body is not valid JSON' } });
});

test('when the body is over the limit, then 413 with a clear error', async (t) => {
  const r = await request(port, {
    method: 'POST',
    host: host(),
    path: '/api/v2/crm/contacts',
    body: { notes: 'x'.repeat(4000) },
    headers: auth(),
  });
  t.is(r.status, 413);
  t.is(r.json.error.code, 'payload_too_large');
});

test('when the process is up, then /healthz answers ok on any host', async (t) => {
  const r = await request(port, { path: '/healthz', host: 'whatever.example' });
  t.is(r.status, 200);
  t.deepEqual(r.json, { status: 'ok' });
});

test('when database and queue answer, then /readyz is 200 with each check', async (t) => {
  const r = await request(port, { path: '/readyz' });
  t.is(r.status, 200);
  t.deepEqual(r.json.checks, { database: 'ok', queue: 'ok' });
  t.is(r.json.queueBackend, ctx.rt.config.redisUrl ? 'redis' : 'postgres');
});

test('when the queue store is unreachable, then /readyz is 503 naming it', async (t) => {
  const broken = await setupTestRuntime(
    ctx.rt.config.redisUrl ? { REDIS_URL: 'redis://127.0.0.1:1' } : { REDIS_URL: undefined, DATABASE_URL: ctx.rt.databaseUrl },
  );
  if (!ctx.rt.config.redisUrl) {
    // On the PostgreSQL backend the queue lives in the app's database: break the database side instead.
    await broken.rt.knex.destroy();
  }
  const app = await startTestApp(broken.rt);
  try {
    const r = await request(app.port, { path: '/readyz' });
    t.is(r.status, 503);
    t.is(r.json.status, 'not_ready');
    t.true(r.json.checks.queue === 'unreachable' || r.json.checks.database === 'unreachable');
  } finally {
    await app.close();
    await broken.rt.queues.close();
    await broken.rt.changes.stop();
  }
});

test('when /metrics is scraped, then it has HTTP latency by route and status, and queue depth by queue', async (t) => {
  await request(port, { host: host() });
  const r = await request(port, { path: '/metrics', headers: { authorization: `Bearer ${SCRAPER_TOKEN}` } });
  t.is(r.status, 200);
  t.regex(String(r.headers['content-type']), /text\/plain/);
  t.regex(r.text, /http_request_duration_seconds_count\{method="GET",route="\/",status="200"\} \d+/);
  t.regex(r.text, /bullmq_queue_jobs\{queue="tenant-stats",state="waiting"\} \d+/);
  t.regex(r.text, /process_resident_memory_bytes \d+/);
});

test('when a server error happens, then the body carries no internals', async (t) => {
  const broken = await ctx.freshTenant('plumbbroken');
  await ctx.rt.knex.raw('drop table ??.settings', [broken.schema]);
  const r = await request(port, { host: `${broken.slug}.localhost` });
  t.is(r.status, 500);
  t.is(r.json.error.code, 'internal_error');
  t.is(r.json.error.message, 'Internal server error');
  t.truthy(r.json.error.requestId);
  t.notRegex(r.text, /settings|relation|select|tenant_/i);
});
