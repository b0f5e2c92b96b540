import test from 'ava';
import { slugFromHost } from '../../src/tenancy/registry.js';
import { schemaForSlug } from '../../src/tenancy/slug.js';
import { request, setupTestRuntime, startTestApp, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
let port: number;
let close: () => Promise<void>;
let a: { slug: string };
let b: { slug: string };

test.serial.before(async () => {
  ctx = await setupTestRuntime();
  a = await ctx.freshTenant('resa');
  b = await ctx.freshTenant('resb');
  ({ port, close } = await startTestApp(ctx.rt));
});
test.after.always(async () => {
  await close?.();
  await ctx?.cleanup();
});

test('when the host names a tenant, then the request is answered from that tenant schema', async (t) => {
  const ra = await request(port, { host: `${a.slug}.localhost:${port}` });
  const rb = await request(port, { host: `${b.slug}.localhost` });
  t.is(ra.status, 200);
  t.is(ra.json.tenant, a.slug);
  t.is(ra.json.name, 'Test resa');
  t.is(rb.json.name, 'Test resb');
});

test('when the host has a port or upper case, then it still resolves', async (t) => {
  const r = await request(port, { host: `${a.slug.toUpperCase()}.LOCALHOST:9999` });
  t.is(r.status, 200);
  t.is(r.json.tenant, a.slug);
});

test('when the host is unknown, then a clear JSON 404 comes back', async (t) => {
  for (const host of ['nosuch.localhost', 'localhost', `${a.slug}.other.test`, `x.${a.slug}.localhost`, "bad'slug.localhost"]) {
    const r = await request(port, { host, path: '/api/v2/crm/contacts' });
    t.is(r.status, 404, host);
    t.is(r.json.error.code, 'tenant_not_found', host);
    t.regex(r.json.error.message, /No tenant at host/);
  }
});

test('when a path does not exist on a tenant, then 404 route_not_found', async (t) => {
  const r = await request(port, { host: `${a.slug}.localhost`, path: '/no/such/thing' });
  t.is(r.status, 404);
  t.is(r.json.error.code, 'route_not_found');
});

test('slugFromHost takes exactly one label under the base domain', (t) => {
  t.is(slugFromHost('acme.localhost:3000', 'localhost'), 'acme');
  t.is(slugFromHost('acme.lectern.example.com', 'lectern.example.com'), 'acme');
  t.is(slugFromHost('acme.localhost.', 'localhost'), 'acme');
  t.is(slugFromHost('localhost:3000', 'localhost'), undefined);
  t.is(slugFromHost('a.b.localhost', 'localhost'), undefined);
  t.is(slugFromHost('acmelocalhost', 'localhost'), undefined);
});

test('schema names are validated, so a slug cannot inject SQL', (t) => {
  t.is(schemaForSlug('acme-uk'), 'tenant_acme_uk');
  for (const bad of ['acme"; drop schema platform; --', 'Acme', 'a', 'acme_uk', '-acme', 'acme-', 'a--b', 'www', 'x'.repeat(41)]) {
    t.throws(() => schemaForSlug(bad), { message: /Invalid tenant slug|reserved/ }, bad);
  }
});
