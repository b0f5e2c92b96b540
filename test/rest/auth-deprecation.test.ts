import test, { type ExecutionContext } from 'ava';
import { request } from '../helpers/harness.js';
import { basic, PASSWORD, restFixture, type RestFixture } from '../helpers/rest.js';
import { runTs } from '../helpers/harness.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';

let a: RestFixture;
let b: RestFixture;
test.serial.before(async () => {
  a = await restFixture('rautha');
  b = await restFixture('rauthb');
});
test.after.always(async () => {
  await a?.close();
  await b?.close();
});

function assertDeprecation(t: ExecutionContext, headers: Record<string, unknown>) {
  t.regex(String(headers.deprecation), /^@\d+$/, 'RFC 9745 Deprecation: a structured date');
  t.is(headers.sunset, 'Tue, 12 May 2026 00:00:00 GMT');
  t.regex(String(headers.link), /<\/api\/v2\/migration>; rel="deprecation"/);
  t.regex(String(headers.link), /rel="sunset"/);
}

test('when credentials are missing, wrong, or of another tenant, then 401 with WWW-Authenticate: Basic', async (t) => {
  const host = `${a.tenant.slug}.localhost`;
  const cases: [string, Record<string, string>][] = [
    ['missing', {}],
    ['malformed', { authorization: 'Basic !!!' }],
    ['bearer', { authorization: 'Bearer abc' }],
    ['wrong password', { authorization: basic(a.email, 'nope-nope-nope') }],
    ['unknown user', { authorization: basic('ghost@x.test', PASSWORD) }],
    ['other tenant', { authorization: basic(b.email, PASSWORD) }],
  ];
  for (const [label, headers] of cases) {
    const r = await request(a.port, { path: '/api/v2/crm/contacts', host, headers });
    t.is(r.status, 401, label);
    t.regex(String(r.headers['www-authenticate']), /^Basic realm=/, label);
    t.is(r.json.error.code, 'invalid_credentials', label);
    assertDeprecation(t, r.headers);
  }
});

test('when a record of tenant A is requested on tenant B, then 404; nothing of A is readable or writable from B', async (t) => {
  const contact = (await a.api('POST', 'crm/contacts', { first_name: 'Only', last_name: 'InA' })).json;
  t.is((await b.api('GET', `crm/contacts/${contact.id}`)).status, 404);
  t.is((await b.api('PUT', `crm/contacts/${contact.id}`, { last_name: 'Hacked' })).status, 404);
  t.is((await b.api('DELETE', `crm/contacts/${contact.id}`)).status, 404);
  t.false((await b.api('GET', 'crm/contacts')).json.some((c: { last_name: string }) => c.last_name === 'InA'));
  t.is((await a.api('GET', `crm/contacts/${contact.id}`)).json.last_name, 'InA');
});

test('every /api/v2 response carries the deprecation headers: success, client errors, unknown tenant', async (t) => {
  assertDeprecation(t, (await a.api('GET', 'crm/contacts')).headers);
  assertDeprecation(t, (await a.api('GET', 'crm/contacts/999999')).headers);
  assertDeprecation(t, (await a.api('GET', 'crm/contacts?bogus=1')).headers);
  const unknown = await request(a.port, { path: '/api/v2/crm/contacts', host: 'nosuch.localhost' });
  t.is(unknown.status, 404);
  assertDeprecation(t, unknown.headers);
  const other = await request(a.port, { path: '/healthz' });
  t.is(other.headers.deprecation, undefined, 'only the REST API is deprecated');
});

test('the migration guide maps REST endpoints to GraphQL', async (t) => {
  const html = await request(a.port, { path: '/api/v2/migration', headers: { accept: 'text/html' } });
  t.is(html.status, 200);
  t.regex(html.text, /<h1>Migrating from the legacy REST API v2 to GraphQL<\/h1>/);
  const json = await request(a.port, { path: '/api/v2/migration', headers: { accept: 'application/json' } });
  t.true(json.json.some((m: { rest: string }) => m.rest.includes('/api/v2/event/delegates/:id/name')));
});

test('when the REST API is switched off, then every call gets 410 Gone pointing to GraphQL', async (t) => {
  const off = await restFixture('rauthoff', { LEGACY_REST_API: 'off' });
  try {
    const r = await off.api('GET', 'crm/contacts');
    t.is(r.status, 410);
    t.is(r.json.error.code, 'api_retired');
    t.regex(r.json.error.details.graphql, /\/graphql$/);
    assertDeprecation(t, r.headers);
    t.is((await request(off.port, { path: '/api/v2/openapi.json' })).status, 200, 'the documents stay readable');
  } finally {
    await off.close();
  }
});

test('each REST call is counted per tenant, user, endpoint and day, and the CLI prints it', async (t) => {
  const c = await restFixture('rusage');
  try {
    await c.api('GET', 'crm/contacts');
    await c.api('GET', 'crm/contacts');
    await c.api('GET', 'crm/contacts/12345');
    await c.api('GET', 'crm/campaigns', undefined, { headers: { authorization: basic(c.email, 'wrong-password') } });
    await c.api('PUT', 'crm/contacts/12345', { first_name: 'X' });
    await c.api('GET', 'crm/no-such-thing-1');
    await c.api('GET', 'crm/no-such-thing-2');
    await c.ctx.rt.legacyUsage.flush();
    const r = await runTs('src/cli/main.ts', ['legacy-usage', '--tenant', c.tenant.slug]);
    t.is(r.code, 0, r.stderr);
    const rows = JSON.parse(r.stdout) as { endpoint: string; email: string | null; calls: number; day: string }[];
    const today = new Date().toISOString().slice(0, 10);
    t.like(
      rows.find((x) => x.endpoint === 'GET /api/v2/crm/contacts'),
      { calls: 2, email: c.email, day: today },
    );
    t.like(
      rows.find((x) => x.endpoint === 'GET /api/v2/crm/contacts/:id'),
      { calls: 1, email: c.email },
    );
    t.like(
      rows.find((x) => x.endpoint === 'GET /api/v2/crm/campaigns'),
      { calls: 1, email: null },
    );
    t.like(
      rows.find((x) => x.endpoint === 'PUT /api/v2/crm/contacts/:id'),
      { calls: 1, email: c.email },
    );
    // A path no route matches is not counted (the router runs nothing for it): never the path asked.
    t.false(rows.some((x) => x.endpoint.includes('no-such-thing')));
    t.is(rows.length, 4, JSON.stringify(rows.map((x) => x.endpoint)));
  } finally {
    await c.close();
  }
});

test('when a viewer uses the REST API, then reads work and every write is refused with 403, writing nothing', async (t) => {
  const { createUser } = await import('../../src/modules/users/users.service.js');
  await withTenant(a.ctx.rt.knex, a.tenant, (db) => createUser(db, { email: 'viewer@rautha.test', password: PASSWORD, role: 'viewer' }));
  const host = `${a.tenant.slug}.localhost`;
  const as = (method: string, path: string, body?: unknown) =>
    request(a.port, {
      method,
      path: `/api/v2/${path}`,
      host,
      headers: { authorization: basic('viewer@rautha.test', PASSWORD) },
      ...(body ? { body } : {}),
    });
  const contact = (await a.api('POST', 'crm/contacts', { first_name: 'Seen', last_name: 'ByViewer' })).json;
  const template = (await a.api('POST', 'event/event_templates', { title: 'Viewer course' })).json;

  t.is((await as('GET', 'crm/contacts')).status, 200);
  t.is((await as('GET', `crm/contacts/${contact.id}`)).json.last_name, 'ByViewer');
  t.is((await as('GET', `system/custom_template/${template.id}`)).status, 200);
  const writes: [string, string, unknown?][] = [
    ['POST', 'crm/contacts', { last_name: 'Nope' }],
    ['PUT', `crm/contacts/${contact.id}`, { last_name: 'Changed' }],
    ['DELETE', `crm/contacts/${contact.id}`],
    ['POST', `system/custom_templates/${template.id}/mappings`, { label: 'x', type_id: 1 }],
    ['POST', 'event/delegates/1/name', { contact_id: contact.id }],
    // Checked before anything is read: a missing record is still a 403, not a 404 that would reveal it.
    ['DELETE', 'crm/contacts/999999'],
  ];
  for (const [method, path, body] of writes) {
    const r = await as(method, path, body);
    t.is(r.status, 403, `${method} ${path}`);
    t.is(r.json.error.code, 'permission_denied');
    t.regex(r.json.error.message, /_EDIT permission/);
  }
  t.is((await a.api('GET', `crm/contacts/${contact.id}`)).json.last_name, 'ByViewer');
  t.false((await a.api('GET', 'crm/contacts')).json.some((c: { last_name: string }) => c.last_name === 'Nope'));
  t.deepEqual((await a.api('GET', `system/custom_template/${template.id}`)).json.mappings, []);
});
