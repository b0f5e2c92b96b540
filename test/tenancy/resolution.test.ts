import test from 'ava';
import { slugFromHost } from '../../src/platform/tenancy/registry.js';
import { schemaForSlug } from '../../src/platform/tenancy/slug.js';
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
  for (const host of ['nosuch.localhost', "bad'slug.localhost"]) {
    const r = await request(port, { host, path: '/api/v2/crm/contacts' });
    t.is(r.status, 404, host);
    t.is(r.json.error.code, 'tenant_not_found', host);
    t.regex(r.json.error.message, /No tenant at host/);
  }
  // A host that is no instance's is the platform's: it names where the REST API is (test/http/landing.test.ts).
  for (const host of ['localhost', `${a.slug}.other.test`, `x.${a.slug}.localhost`]) {
    const r = await request(port, { host, path: '/api/v2/crm/contacts' });
    t.is(r.status, 404, host);
    t.is(r.json.error.code, 'wrong_address', host);
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

// Serial: the cache counts must not see the other tests' lookups.
test.serial('when hosts that cannot be a tenant are asked on every API, then none is looked up or remembered', async (t) => {
  const before = ctx.rt.registry.cached();
  const hosts = ['bad_label.localhost', `${'a'.repeat(60)}.localhost`, 'UPPER--DOUBLE.localhost', 'www.localhost', '-x.localhost'];
  for (const host of hosts) {
    for (const path of ['/', '/graphql', '/weblink/graphql', '/api/v2/crm/contacts']) {
      const r = await request(port, {
        host,
        path,
        method: path.endsWith('graphql') ? 'POST' : 'GET',
        body: path.endsWith('graphql') ? { query: '{ __typename }' } : undefined,
      });
      t.is(r.status, 404, `${host}${path}: ${r.text}`);
    }
  }
  const after = ctx.rt.registry.cached();
  t.true(
    after.unknown <= before.unknown && after.known <= before.known,
    `no entry for a name that is no slug: ${JSON.stringify({ before, after })}`,
  );
});

test.serial('when thousands of unknown tenant names are asked, then the tenant cache stays bounded', async (t) => {
  const names = Array.from({ length: 1200 }, (_, i) => `nobody-${i}-${a.slug.slice(-4)}`);
  for (let i = 0; i < names.length; i += 50) {
    await Promise.all(
      names
        .slice(i, i + 50)
        .map((n) => request(port, { host: `${n}.localhost`, path: '/weblink/graphql', method: 'POST', body: { query: '{ __typename }' } })),
    );
  }
  const { unknown } = ctx.rt.registry.cached();
  t.true(unknown <= 1000, `unknown names remembered: ${unknown}`);
  // Known tenants are still answered (from the cache or the database).
  t.is((await request(port, { host: `${a.slug}.localhost` })).json.tenant, a.slug);
});
