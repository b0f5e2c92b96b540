import zlib from 'node:zlib';
import test from 'ava';
import Koa from 'koa';
import { errorMapping } from '../../src/kit/http/errors.js';
import { requestContext } from '../../src/kit/http/request-id.js';
import { startHttpServer } from '../../src/kit/http/server.js';
import { request } from '../helpers/harness.js';
import { basic, restFixture, type RestFixture } from '../helpers/rest.js';

/**
 * Client mistakes get a clear 4xx naming what is wrong, never a 500, and write nothing. Each
 * case here once reached PostgreSQL (or zlib, or JSON.stringify) and came back as a 500.
 */
let f: RestFixture;
let campaignId: number;
let eventId: number;
let templateId: number;
let contactId: number;
let unnamedId: number;
let dateMappingId: number;

test.serial.before(async () => {
  f = await restFixture('rbad');
  campaignId = (await f.api('POST', 'crm/campaigns', { name: 'Spring' })).json.id;
  templateId = (await f.api('POST', 'event/event_templates', { title: 'Manual Handling' })).json.id;
  const mapped = await f.api('POST', `system/custom_templates/${templateId}/mappings`, { label: 'Assessed on', type_id: 2 });
  dateMappingId = mapped.json.mappings[0].id;
  eventId = (await f.api('POST', 'event/public_events', { event_template_id: templateId, start_date: '2027-05-01' })).json.id;
  contactId = (await f.api('POST', 'crm/contacts', { last_name: 'Okafor' })).json.id;
  const { withTenant } = await import('../../src/platform/tenancy/with-tenant.js');
  unnamedId = await withTenant(
    f.ctx.rt.knex,
    f.tenant,
    async (db) => (await db('delegates').insert({ event_id: eventId, num_places: 2 }).returning('id'))[0].id,
  );
});
test.after.always(async () => f?.close());

const MA = (extra: Record<string, unknown>) => ({ name: 'n', description: 'd', campaign_id: campaignId, ...extra });

interface Case {
  what: string;
  method: string;
  path: () => string;
  body?: () => unknown;
  /** A body given as text (JSON that JSON.stringify itself could not write, or `null`). */
  raw?: () => string;
  status: number;
  /** The field named in `error.details.fields`, or the error code. */
  field?: string;
  code?: string;
}

const CASES: Case[] = [
  {
    what: 'an amount beyond numeric(14,2)',
    method: 'POST',
    path: () => 'crm/marketing_activities',
    body: () => MA({ cost: 1e13 }),
    status: 404,
    field: 'cost',
  },
  {
    what: 'a negative cost',
    method: 'POST',
    path: () => 'crm/marketing_activities',
    body: () => MA({ cost: -5 }),
    status: 404,
    field: 'cost',
  },
  {
    what: 'a huge target_sales on PUT',
    method: 'PUT',
    path: () => `crm/campaigns/${campaignId}`,
    body: () => ({ target_sales: 1e20 }),
    status: 400,
    field: 'target_sales',
  },
  {
    what: 'attendance above 100 percent',
    method: 'POST',
    path: () => 'event/public_events',
    body: () => ({ title: 't', overall_attendance: 12345 }),
    status: 404,
    field: 'overall_attendance',
  },
  {
    what: '30 February',
    method: 'POST',
    path: () => 'crm/marketing_activities',
    body: () => MA({ date: '2027-02-30' }),
    status: 404,
    field: 'date',
  },
  {
    what: '31 April on PUT',
    method: 'PUT',
    path: () => `crm/campaigns/${campaignId}`,
    body: () => ({ start_date: '2027-04-31' }),
    status: 400,
    field: 'start_date',
  },
  {
    what: '29 February of a common year',
    method: 'POST',
    path: () => 'event/public_events',
    body: () => ({ title: 't', start_date: '2027-02-29' }),
    status: 404,
    field: 'start_date',
  },
  {
    what: 'year zero',
    method: 'POST',
    path: () => 'event/public_events',
    body: () => ({ title: 't', start_date: '0000-01-01' }),
    status: 404,
    field: 'start_date',
  },
  {
    what: 'an impossible date-time',
    method: 'POST',
    path: () => 'event/public_events',
    body: () => ({ title: 't', classroom_start: '2027-02-30T10:00' }),
    status: 404,
    field: 'classroom_start',
  },
  {
    what: 'an hour of 25',
    method: 'POST',
    path: () => 'event/public_events',
    body: () => ({ title: 't', start_time: '25:99' }),
    status: 404,
    field: 'start_time',
  },
  {
    what: 'a line break in an event title (one rule with GraphQL)',
    method: 'POST',
    path: () => 'event/public_events',
    body: () => ({ title: 'First\nAid' }),
    status: 404,
    field: 'title',
  },
  {
    what: 'a line break in an event code on PUT',
    method: 'PUT',
    path: () => `event/public_events/${eventId}`,
    body: () => ({ code: 'A\nB' }),
    status: 400,
    field: 'code',
  },
  {
    what: 'an unknown event type',
    method: 'POST',
    path: () => 'event/public_events',
    body: () => ({ title: 't', type: 'weird' }),
    status: 404,
    field: 'type',
  },
  {
    what: 'a tax type that does not exist',
    method: 'POST',
    path: () => 'event/public_events',
    body: () => ({ title: 't', tax_type_id: 999999 }),
    status: 404,
    field: 'tax_type_id',
  },
  {
    what: 'a tax type that does not exist on PUT',
    method: 'PUT',
    path: () => `event/public_events/${eventId}`,
    body: () => ({ tax_type_id: 999999 }),
    status: 400,
    field: 'tax_type_id',
  },
  {
    what: 'a venue that does not exist',
    method: 'POST',
    path: () => 'event/public_events',
    body: () => ({ title: 't', venue_id: 999999 }),
    status: 404,
    field: 'venue_id',
  },
  {
    what: 'a venue that does not exist on PUT',
    method: 'PUT',
    path: () => `event/public_events/${eventId}`,
    body: () => ({ venue_id: 999999 }),
    status: 400,
    field: 'venue_id',
  },
  {
    what: 'a NUL in a name',
    method: 'POST',
    path: () => 'crm/marketing_activities',
    body: () => MA({ name: 'a\u0000b' }),
    status: 404,
    field: 'name',
  },
  {
    what: 'a NUL inside a jsonb array',
    method: 'POST',
    path: () => 'crm/marketing_activities',
    body: () => MA({ courses: ['a\u0000'] }),
    status: 404,
    field: 'courses',
  },
  {
    what: 'an array nested 5000 deep',
    method: 'POST',
    path: () => 'crm/marketing_activities',
    raw: () => JSON.stringify(MA({ region_categories: '@' })).replace('"@"', `${'['.repeat(5000)}"x"${']'.repeat(5000)}`),
    status: 404,
    field: 'region_categories',
  },
  {
    what: 'a NUL in delegate notes',
    method: 'POST',
    path: () => 'event/delegates',
    body: () => ({ event_id: eventId, contact_id: contactId, notes: '\u0000' }),
    status: 404,
    field: 'notes',
  },
  {
    what: 'a key named like an Object.prototype member',
    method: 'POST',
    path: () => 'crm/contacts',
    body: () => ({ last_name: 'x', constructor: 'y' }),
    status: 404,
    field: 'constructor',
  },
  {
    what: 'a NUL in a score value',
    method: 'POST',
    path: () => `event/delegates/${unnamedId}/scores`,
    body: () => ({ [dateMappingId]: '\u0000' }),
    status: 400,
    code: 'invalid_scores',
  },
  {
    what: 'a score keyed like an Object.prototype member',
    method: 'POST',
    path: () => `event/delegates/${unnamedId}/scores`,
    body: () => ({ constructor: 'x' }),
    status: 400,
    field: 'constructor',
  },
  {
    what: 'an impossible date as a date score',
    method: 'POST',
    path: () => `event/delegates/${unnamedId}/scores`,
    body: () => ({ [dateMappingId]: '2027-02-30' }),
    status: 400,
    code: 'invalid_scores',
  },
  {
    what: 'a NUL in a mapping label',
    method: 'POST',
    path: () => `system/custom_templates/${templateId}/mappings`,
    body: () => ({ label: 'a\u0000', type_id: 1 }),
    status: 404,
    code: 'could_not_create',
  },
  {
    what: 'a mapping label of 100,000 characters',
    method: 'POST',
    path: () => `system/custom_templates/${templateId}/mappings`,
    body: () => ({ label: 'x'.repeat(100000), type_id: 1 }),
    status: 404,
    code: 'could_not_create',
  },
  {
    what: 'naming with a contact_id beyond integer range',
    method: 'POST',
    path: () => `event/delegates/${unnamedId}/name`,
    body: () => ({ contact_id: 99999999999 }),
    status: 404,
    code: 'contact_not_found',
  },
  {
    what: 'naming with a contact_id that is a string',
    method: 'POST',
    path: () => `event/delegates/${unnamedId}/name`,
    body: () => ({ contact_id: String(contactId) }),
    status: 404,
    code: 'contact_not_found',
  },
  { what: 'a NUL in a filter', method: 'GET', path: () => 'crm/marketing_activities?name=%00', status: 400, code: 'invalid_filter' },
  {
    what: 'a NUL in a like filter',
    method: 'GET',
    path: () => 'crm/marketing_activities?name__like=%00',
    status: 400,
    code: 'invalid_filter',
  },
  {
    what: 'a NUL in an in-list',
    method: 'GET',
    path: () => 'crm/marketing_activities?name__in=a,%00',
    status: 400,
    code: 'invalid_filter',
  },
  {
    what: 'a like pattern ending in a backslash',
    method: 'GET',
    path: () => 'crm/marketing_activities?name__like=%5C',
    status: 400,
    code: 'invalid_filter',
  },
  {
    what: 'an impossible date filter',
    method: 'GET',
    path: () => 'crm/marketing_activities?date__gt=2027-02-30',
    status: 400,
    code: 'invalid_filter',
  },
  {
    what: 'an impossible date in an in-list',
    method: 'GET',
    path: () => 'event/public_events?start_date__in=2027-01-01,2027-02-29',
    status: 400,
    code: 'invalid_filter',
  },
  {
    what: 'an impossible date-time filter',
    method: 'GET',
    path: () => 'crm/contacts?created_on__gt=2020-13-45T99:99',
    status: 400,
    code: 'invalid_filter',
  },
  {
    what: 'an impossible time filter',
    method: 'GET',
    path: () => 'event/public_events?start_time__gt=25:00',
    status: 400,
    code: 'invalid_filter',
  },
  {
    what: 'a hexadecimal number filter',
    method: 'GET',
    path: () => 'crm/marketing_activities?cost__gt=0x10',
    status: 400,
    code: 'invalid_filter',
  },
  {
    what: 'a JSON body that is not an object',
    method: 'POST',
    path: () => 'crm/contacts',
    raw: () => 'null',
    status: 400,
    code: 'invalid_body',
  },
];

for (const c of CASES) {
  // Serial: ava runs serial tests before the concurrent ones below, so the counts are not disturbed.
  test.serial(`when a request carries ${c.what}, then ${c.status} names it and nothing is written`, async (t) => {
    const counts = async () => ({
      contacts: (await f.api('GET', 'crm/contacts?_limit=1000')).json.length,
      campaigns: (await f.api('GET', 'crm/campaigns?_limit=1000')).json.length,
      activities: (await f.api('GET', 'crm/marketing_activities?_limit=1000')).json.length,
      events: (await f.api('GET', 'event/public_events?_limit=1000')).json.length,
      delegates: (await f.api('GET', 'event/delegates?_limit=1000')).json.length,
      mappings: (await f.api('GET', `system/custom_templates/${templateId}`)).json.mappings.length,
      scores: (await f.api('GET', `event/delegates/${unnamedId}/scores`)).json.length,
    });
    const before = await counts();
    const r = c.raw ? await f.api(c.method, c.path(), undefined, { rawBody: c.raw() }) : await f.api(c.method, c.path(), c.body?.());
    t.is(r.status, c.status, r.text.slice(0, 300));
    if (c.field) t.true(Object.hasOwn(r.json.error.details.fields, c.field), `names ${c.field}: ${r.text.slice(0, 300)}`);
    if (c.code) t.is(r.json.error.code, c.code);
    t.deepEqual(await counts(), before);
  });
}

test('when a body does not decompress, then 400 (not a zlib 500), also without credentials', async (t) => {
  for (const encoding of ['gzip', 'deflate']) {
    const r = await f.api('POST', 'crm/contacts', undefined, { rawBody: 'not compressed', headers: { 'content-encoding': encoding } });
    t.is(r.status, 400, encoding);
    t.is(r.json.error.code, 'invalid_body');
  }
  // A body that does decompress is read as usual.
  const gz = zlib.gzipSync(JSON.stringify({ last_name: 'Zipped' }));
  const ok = await request(f.port, {
    method: 'POST',
    path: '/api/v2/crm/contacts',
    host: `${f.tenant.slug}.localhost`,
    rawBody: gz,
    headers: { authorization: basic(f.email, 'integration-secret-1'), 'content-type': 'application/json', 'content-encoding': 'gzip' },
  });
  t.is(ok.status, 200);
  t.is(ok.json.last_name, 'Zipped');
});

test('when credentials are missing, then 401 comes first, whatever the body', async (t) => {
  const host = `${f.tenant.slug}.localhost`;
  const r = await request(f.port, {
    method: 'POST',
    path: '/api/v2/crm/contacts',
    host,
    rawBody: '{nope',
    headers: { 'content-type': 'application/json' },
  });
  t.is(r.status, 401);
  t.truthy(r.headers['www-authenticate']);
  const authed = await f.api('POST', 'crm/contacts', undefined, { rawBody: '{nope' });
  t.is(authed.status, 400);
  t.is(authed.json.error.code, 'invalid_json');
});

test('when a method is not supported on a path, then 405 with Allow and the JSON error shape', async (t) => {
  const r = await f.api('PATCH', 'crm/contacts/1', { last_name: 'x' });
  t.is(r.status, 405);
  t.regex(String(r.headers.allow), /PUT/);
  t.is(r.json.error.code, 'method_not_allowed');
});

test('when PostgreSQL refuses a value that got past validation, then 400 without SQL in the body', async (t) => {
  // The net under validation: a real data exception (SQLSTATE 22012) from the real database.
  const app = new Koa();
  app.use(requestContext(f.ctx.rt.log));
  app.use(errorMapping());
  app.use(async (ctx) => {
    ctx.body = await f.ctx.rt.knex.raw('select 1 / 0 as boom');
  });
  const server = await startHttpServer(app, 0, '127.0.0.1');
  try {
    const r = await request(server.port, {});
    t.is(r.status, 400);
    t.is(r.json.error.code, 'invalid_value');
    t.notRegex(r.text, /select|division|22012/i);
  } finally {
    await server.close(1000);
  }
});

test('when a contact update would blank every name, then it is refused, also when sent as null', async (t) => {
  const c = (await f.api('POST', 'crm/contacts', { first_name: 'Ada' })).json;
  const r = await f.api('PUT', `crm/contacts/${c.id}`, { first_name: null });
  t.is(r.status, 400);
  t.truthy(r.json.error.details.fields.last_name);
  t.is((await f.api('GET', `crm/contacts/${c.id}`)).json.first_name, 'Ada');
});

test('when a category would become its own ancestor, then it is refused', async (t) => {
  const top = (await f.api('POST', 'event/categories', { name: 'Safety', priority: 1 })).json;
  const child = (await f.api('POST', 'event/categories', { name: 'Fire', priority: 1, parent_id: top.id })).json;
  const grandchild = (await f.api('POST', 'event/categories', { name: 'Extinguishers', priority: 1, parent_id: child.id })).json;
  for (const parent of [top.id, grandchild.id, child.id]) {
    const r = await f.api('PUT', `event/categories/${top.id}`, { parent_id: parent });
    t.is(r.status, 400, `parent ${parent}`);
    t.truthy(r.json.error.details.fields.parent_id);
  }
  t.deepEqual(
    (await f.api('GET', `event/categories/${top.id}`)).json.sub_categories.map((s: { id: number }) => s.id),
    [child.id],
  );
  // Moving a category under an unrelated one is fine.
  const other = (await f.api('POST', 'event/categories', { name: 'Health', priority: 2 })).json;
  t.is((await f.api('PUT', `event/categories/${grandchild.id}`, { parent_id: other.id })).status, 200);
});

test('when a campaign would end before it starts, then it is refused', async (t) => {
  const r = await f.api('POST', 'crm/campaigns', { name: 'Backwards', start_date: '2027-06-01', end_date: '2027-05-01' });
  t.is(r.status, 404);
  t.truthy(r.json.error.details.fields.end_date);
});

test('when an event still has delegates, then deleting it is refused with 409 and nothing is lost', async (t) => {
  const ev = (await f.api('POST', 'event/public_events', { event_template_id: templateId })).json;
  const d = (await f.api('POST', 'event/delegates', { event_id: ev.id, contact_id: contactId })).json;
  const r = await f.api('DELETE', `event/public_events/${ev.id}`);
  t.is(r.status, 409);
  t.is(r.json.error.code, 'in_use');
  t.is((await f.api('GET', `event/delegates/${d.id}`)).status, 200);
  t.is((await f.api('DELETE', `event/delegates/${d.id}`)).status, 200);
  t.is((await f.api('DELETE', `event/public_events/${ev.id}`)).status, 200);
});

test('when ordering descending on a field with empty values, then records with values come first', async (t) => {
  await f.api('POST', 'crm/contacts', { first_name: 'Nobody', last_name: null, email: 'nolast@x.test' });
  const r = await f.api('GET', 'crm/contacts?_order=-last_name&_limit=1000');
  t.is(r.status, 200);
  const names = r.json.map((c: { last_name: string | null }) => c.last_name);
  t.not(names[0], null);
  t.is(names.at(-1), null);
});

test('a date-time filter takes a bare date as its midnight', async (t) => {
  const r = await f.api('GET', 'crm/contacts?created_on__gte=2000-01-01');
  t.is(r.status, 200);
  t.true(r.json.length > 0);
  t.deepEqual((await f.api('GET', 'crm/contacts?created_on__lt=2000-01-01')).json, []);
});

test('when an event template title holds a line break, then REST refuses it as GraphQL does, naming title (a create 404 as the contract has it, an update 400), and writes nothing', async (t) => {
  const created = await f.api('POST', 'event/event_templates', { title: 'Manual\nHandling' });
  t.is(created.status, 404);
  t.is(created.json.error.details.fields.title, 'must be a single line');
  const updated = await f.api('PUT', `event/event_templates/${templateId}`, { title: 'Manual\r\nHandling' });
  t.is(updated.status, 400);
  t.is(updated.json.error.details.fields.title, 'must be a single line');
  t.is((await f.api('GET', `event/event_templates/${templateId}`)).json.title, 'Manual Handling');
  t.false((await f.api('GET', 'event/event_templates?_limit=1000')).json.some((tpl: { title: string }) => /[\r\n]/.test(tpl.title)));
});
