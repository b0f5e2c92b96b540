import test from 'ava';
import { addPortal } from '../../src/modules/portals/portals.service.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { developmentAndProductionApps, hex, request, type TestContext } from '../helpers/harness.js';

/**
 * The platform address (`http://localhost:3000`, what `npm start` prints): `/` says where things
 * are, to a browser as a page and to an API client as JSON, listing the instances outside
 * production only; a path of the platform asked on an instance's address, or an instance's path
 * asked on the platform address, is answered 404 `wrong_address` naming the right address.
 */
let apps: Awaited<ReturnType<typeof developmentAndProductionApps>>;
let dev: TestContext;
let prod: TestContext;
let port: number;
let prodPort: number;
let tenant: Tenant;
const portal = `www.landing-${hex(3)}.test`;
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

test.serial.before(async () => {
  apps = await developmentAndProductionApps();
  ({ dev, prod, port, prodPort } = apps);
  tenant = await dev.freshTenant('land');
  await addPortal(dev.rt.knex, tenant, { domain: portal });
});
test.after.always(async () => apps?.close());

test('when a browser opens the platform address, then a page lists each instance with its Control Panel, GraphiQL, WebLink and example page, and the platform pages', async (t) => {
  const r = await request(port, { path: '/', headers: HTML });
  t.is(r.status, 200, r.text);
  t.regex(String(r.headers['content-type']), /^text\/html/);
  const base = `http://${tenant.slug}.localhost:${port}`;
  for (const link of [
    `${base}/control-panel`,
    `${base}/graphql`,
    `http://localhost:${port}/admin/queues`,
    `http://localhost:${port}/oauth/authorize`,
    `http://localhost:${port}/.well-known/oauth-authorization-server`,
  ])
    t.true(r.text.includes(`href="${link}"`), link);
  const example = `http://localhost:${port}/examples/weblink/?api=${encodeURIComponent(`http://localhost:${port}`)}&amp;portal=${portal}`;
  t.true(r.text.includes(`href="${example}"`), 'the WebLink example for its portal');
  t.true(r.text.includes(tenant.name), "the instance's name");
  t.true(r.text.includes(`<code>POST ${base}/weblink/graphql</code>`), 'WebLink GraphQL (no page: a POST)');
  t.regex(r.text, /README\.md/);
  t.regex(r.text, /then docs\/ \(one page per area/, 'the docs folder, now that there is one');
  // Outside production GraphiQL on an instance's address has the signed-in user's button (GRAPHIQL_SIGN_IN_TOKENS).
  t.regex(r.text, /signed in to its Control Panel, <strong>Use my sign-in<\/strong> there gets you one/);
  // Addresses and commands are not cut anywhere (the shared style's `break-all`), only where one is wider than the column.
  t.regex(r.text, /<style>\.landing code\{word-break:normal;overflow-wrap:anywhere\}<\/style>/);
  t.is(r.headers['x-frame-options'], 'DENY');
});

test('when an API client asks the platform address, then JSON says where things are, instances included outside production', async (t) => {
  for (const headers of [{ accept: 'application/json' }, { accept: '*/*' }, {} as Record<string, string>]) {
    const r = await request(port, { path: '/', headers });
    t.is(r.status, 200, JSON.stringify(headers));
    t.regex(String(r.headers['content-type']), /^application\/json/);
    const p = `http://localhost:${port}`;
    t.is(r.json.name, 'Lectern');
    t.is(r.json.address, p);
    t.is(r.json.instanceAddress, `http://<instance>.localhost:${port}`);
    t.deepEqual(r.json.oauth, {
      issuer: p,
      authorize: `${p}/oauth/authorize`,
      token: `${p}/oauth/token`,
      metadata: `${p}/.well-known/oauth-authorization-server`,
    });
    t.is(r.json.graphql, `${p}/graphql`);
    t.is(r.json.graphiql, `${p}/graphql`);
    t.deepEqual(r.json.weblink, { guestToken: `${p}/portal/guest`, graphql: `${p}/weblink/graphql` });
    t.deepEqual(r.json.health, { live: `${p}/healthz`, ready: `${p}/readyz` });
    t.is(r.json.queueDashboard, `${p}/admin/queues`);
    const mine = r.json.instances.find((i: { slug: string }) => i.slug === tenant.slug);
    const base = `http://${tenant.slug}.localhost:${port}`;
    t.deepEqual(mine, {
      slug: tenant.slug,
      name: tenant.name,
      address: base,
      controlPanel: `${base}/control-panel`,
      graphql: `${base}/graphql`,
      graphiql: `${base}/graphql`,
      rest: `${base}/api/v2`,
      weblink: `${base}/weblink/graphql`,
      portals: [portal],
      weblinkExample: `${p}/examples/weblink/?api=${encodeURIComponent(p)}&portal=${portal}`,
    });
  }
  // What the landing page says is there answers there.
  const r = await request(port, { path: '/' });
  const meta = await request(port, { path: new URL(r.json.oauth.metadata as string).pathname });
  t.is(meta.json.token_endpoint, r.json.oauth.token);
});

test('when NODE_ENV is production, then the platform address lists no instance, to a browser or an API client', async (t) => {
  const other = await prod.freshTenant('landp');
  const json = await request(prodPort, { path: '/', headers: { accept: 'application/json' } });
  t.is(json.status, 200);
  t.false('instances' in json.json, 'instances listed in production');
  t.false('graphiql' in json.json, 'GraphiQL is not served in production');
  t.is(json.json.instanceAddress, 'https://<instance>.localhost');
  t.false(json.text.includes(other.slug));
  const page = await request(prodPort, { path: '/', headers: HTML });
  t.is(page.status, 200);
  t.false(page.text.includes(other.slug), 'an instance named on the public page');
  t.regex(page.text, /https:\/\/&lt;instance&gt;\.localhost/);
});

test('when a platform path is asked on an instance address, then 404 wrong_address names the platform address', async (t) => {
  const host = `${tenant.slug}.localhost:${port}`;
  const p = `http://localhost:${port}`;
  const cases: [string, string, RegExp][] = [
    ['POST', '/oauth/token', /^OAuth is served on the platform address/],
    ['GET', '/oauth/authorize', /^OAuth is served on the platform address/],
    ['GET', '/.well-known/oauth-authorization-server', /^OAuth is served on the platform address/],
    ['GET', '/admin/queues', /^The queue dashboard is served on the platform address/],
    ['GET', '/metrics', /^Metrics are served on the platform address/],
  ];
  for (const [method, path, message] of cases) {
    const r = await request(port, {
      method,
      path,
      host,
      ...(method === 'POST'
        ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: 'grant_type=client_credentials' }
        : {}),
    });
    t.is(r.status, 404, path);
    t.is(r.json?.error?.code, 'wrong_address', path);
    t.regex(r.json.error.message, message, path);
    t.true(r.json.error.message.endsWith(`: ${p}${path}`), r.json.error.message);
    t.is(r.json.error.details.address, `${p}${path}`);
  }
  // Whatever the instance: the address of a path does not depend on it.
  const unknown = await request(port, { method: 'POST', path: '/oauth/token', host: `nosuch-${hex(3)}.localhost` });
  t.is(unknown.json?.error?.code, 'wrong_address');
  // A browser gets a page with the link (the query kept: an authorization request goes on there).
  const page = await request(port, { path: '/oauth/authorize?response_type=code&client_id=lc_x', host, headers: HTML });
  t.is(page.status, 404);
  t.regex(String(page.headers['content-type']), /^text\/html/);
  t.true(page.text.includes(`href="${p}/oauth/authorize?response_type=code&amp;client_id=lc_x"`), page.text);
});

test("when an instance's path is asked on the platform address, then 404 wrong_address names how to reach it, an instance's outside production", async (t) => {
  const cases: [string, RegExp][] = [
    ['/control-panel', /^The Control Panel is served on an instance's address/],
    ['/control-panel/webhooks', /^The Control Panel is served on an instance's address/],
    ['/account/applications', /^Account pages are served on an instance's address/],
    ['/api/v2/crm/contacts', /^The REST API is served on an instance's address/],
  ];
  const before = (await dev.rt.registry.list()).map((i) => i.slug);
  for (const [path, message] of cases) {
    const r = await request(port, { path });
    t.is(r.status, 404, path);
    t.is(r.json?.error?.code, 'wrong_address', path);
    t.regex(r.json.error.message, message);
    t.true(r.json.error.message.includes(`http://<instance>.localhost:${port}${path}`), r.json.error.message);
    // Outside production an instance that exists is named, and its address answers.
    const named = new URL(r.json.error.details.address as string);
    t.regex(named.host, new RegExp(`^[a-z0-9-]+\\.localhost:${port}$`));
    t.is(named.pathname, path);
    t.true(r.json.error.message.includes(named.toString()), r.json.error.message);
    // (The demo when there is one, else the oldest instance: older than this file's, so active before the request.)
    t.true(before.includes(named.host.split('.')[0]!), `the instance named (${named.host}) is no instance`);
  }
  const inProduction = await request(prodPort, { path: '/control-panel' });
  t.is(inProduction.status, 404);
  t.is(inProduction.json.error.code, 'wrong_address');
  t.is(inProduction.json.error.details.address, 'https://<instance>.localhost/control-panel');
  t.is(inProduction.json.error.message, "The Control Panel is served on an instance's address: https://<instance>.localhost/control-panel");
  const page = await request(port, { path: '/control-panel', headers: HTML });
  t.is(page.status, 404);
  t.regex(String(page.headers['content-type']), /^text\/html/);
  t.regex(page.text, /Control Panel is served on an instance/);
});

test('when another path is asked on the platform address, then 404 route_not_found says what the platform address serves', async (t) => {
  const r = await request(port, { path: '/no/such/thing' });
  t.is(r.status, 404);
  t.is(r.json.error.code, 'route_not_found');
  t.is(
    r.json.error.message,
    `No route for GET /no/such/thing on the platform address: GET http://localhost:${port}/ says where things are`,
  );
  t.is((await request(port, { method: 'POST', path: '/' })).status, 405);
});

test('when the WebLink example is asked on the platform address, then its page and script are served outside production only', async (t) => {
  const page = await request(port, { path: '/examples/weblink/', headers: HTML });
  t.is(page.status, 200);
  t.regex(String(page.headers['content-type']), /^text\/html/);
  t.regex(page.text, /<script src="app\.js"><\/script>/);
  const script = await request(port, { path: '/examples/weblink/app.js' });
  t.is(script.status, 200);
  t.regex(String(script.headers['content-type']), /javascript/);
  t.regex(script.text, /portal\/guest/);
  const bare = await request(port, { path: '/examples/weblink?portal=x' });
  t.is(bare.status, 301);
  t.is(bare.headers.location, '/examples/weblink/?portal=x');
  t.is((await request(port, { path: '/examples/weblink/../../package.json' })).status, 404);
  t.is((await request(port, { path: '/examples/weblink/README.md' })).status, 404);
  t.is((await request(prodPort, { path: '/examples/weblink/' })).status, 404);
});
