import test from 'ava';
import { GRAPHIQL_PLACEHOLDER, GRAPHIQL_SIGN_IN, GRAPHIQL_TOKEN_HINT, SIGN_IN_TOKEN_PATH } from '../../src/app/graphql-endpoint.js';
import { GRAPHIQL_CLIENT } from '../../src/modules/oauth/sign-in-tokens.service.js';
import { hashSecret } from '../../src/modules/oauth/secrets.js';
import { createUser } from '../../src/modules/users/users.service.js';
import { loadConfig } from '../../src/platform/config.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { Browser } from '../helpers/browser.js';
import { developmentAndProductionApps, request, setupTestRuntime, startTestApp, type TestContext } from '../helpers/harness.js';
import { PASSWORD } from '../helpers/rest.js';

/**
 * GraphiQL's first screen (`GET /graphql` from a browser, outside production): a box that says
 * how to get a token, the Request Headers pane open on `Authorization: Bearer `, headers kept in
 * the tab only; on the platform address a form that exchanges client credentials for a token in
 * the page, on an instance's address the way to its Control Panel. Not in production, except on
 * instances' addresses where GRAPHIQL_SIGN_IN_TOKENS turns the button below on.
 * "Use my sign-in" (GRAPHIQL_SIGN_IN_TOKENS): on an instance's address, the user signed in to its
 * Control Panel gets an access token of their own (`POST /graphql/sign-in-token`, same origin and
 * CSRF token only), revocable under Apps you authorized; anyone else is led to the sign-in.
 * (What the page then does in a browser: test/browser/graphiql.browser.ts.)
 */
let apps: Awaited<ReturnType<typeof developmentAndProductionApps>>;
let dev: TestContext;
let port: number;
let prodPort: number;
let tenant: Tenant;
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** Production with GRAPHIQL_SIGN_IN_TOKENS=true. */
let prodOn: TestContext;
let prodOnApp: Awaited<ReturnType<typeof startTestApp>>;
let prodTenant: Tenant;
let prodOnTenant: Tenant;

test.before(async () => {
  apps = await developmentAndProductionApps();
  ({ dev, port, prodPort } = apps);
  tenant = await dev.freshTenant('giql');
  prodTenant = await apps.prod.freshTenant('giql');
  prodOn = await setupTestRuntime({ NODE_ENV: 'production', SESSION_SECRET: 'y'.repeat(32), GRAPHIQL_SIGN_IN_TOKENS: 'true' });
  prodOnApp = await startTestApp(prodOn.rt);
  prodOnTenant = await prodOn.freshTenant('giql');
});
test.after.always(async () => {
  await prodOnApp?.close();
  await prodOn?.cleanup();
  await apps?.close();
});

let users = 0;
/** A new user of `t` (in `ctx`'s database) who signs in with {@link PASSWORD}; a viewer, not an admin. */
async function addUser(ctx: TestContext, t: Tenant): Promise<string> {
  const email = `user-${++users}-${Date.now()}@giql.test`;
  await withTenant(ctx.rt.knex, t, (db) => createUser(db, { email, password: PASSWORD, role: 'viewer' }));
  return email;
}

/** `{ hello }` with a bearer token on an instance's address. */
const hello = (p: number, host: string, token: string, headers: Record<string, string> = {}) =>
  request(p, {
    method: 'POST',
    path: '/graphql',
    host,
    headers: { authorization: `Bearer ${token}`, ...headers },
    body: { query: '{ hello }' },
  });

/** The CSRF token GraphiQL's button sends (in its `data-csrf`), unescaped; undefined when the page has no button. */
function buttonCsrf(page: string): string | undefined {
  const m = /id="lectern-use-sign-in" type="button" data-csrf="([^"]+)"/.exec(box(page));
  return m?.[1]?.replace(/&amp;/g, '&');
}

/**
 * A browser signed in to an instance's Control Panel: the sign-in that GraphiQL links to, which
 * comes back to GraphiQL. `base`: the instance's address; `headers`: sent with every request.
 */
async function signedIn(p: number, base: string, email: string, headers: Record<string, string> = {}) {
  const b = new Browser(p);
  const form = await b.send('GET', `${base}${GRAPHIQL_SIGN_IN}`, { headers });
  if (form.status !== 200) throw new Error(`no sign-in page (${form.status}): ${form.text.slice(0, 300)}`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
  const next = /name="next" value="([^"]+)"/.exec(form.text)![1]!;
  const done = await b.send('POST', `${base}/control-panel/login`, { form: { _csrf: csrf, next, email, password: PASSWORD }, headers });
  return { b, done };
}

/** The text of the page's box (it is inserted by a script, as a JSON string), unescaped. */
function box(page: string): string {
  const m = /box\.innerHTML = ("(?:[^"\\]|\\.)*");/.exec(page);
  if (!m) throw new Error('no token box in the page');
  return JSON.parse(m[1]!) as string;
}

/** The options GraphiQL is started with. */
function init(page: string): string {
  const at = page.indexOf('GraphQLHelixGraphiQL.init(');
  return page.slice(at, page.indexOf('});', at));
}

test('when a browser opens /graphql on the platform address, then the first screen says how to get a token and exchanges client credentials itself', async (t) => {
  const res = await request(port, { path: '/graphql', headers: BROWSER });
  t.is(res.status, 200);
  t.regex(String(res.headers['content-type']), /^text\/html/);
  t.is(res.headers['cache-control'], 'no-store');
  const text = box(res.text);
  t.regex(text, /Every request needs an access token: paste it after <code>Bearer <\/code> in\s+<strong>Request Headers<\/strong>/);
  t.regex(text, /<code>npm run cli -- --help<\/code>/);
  // The command as it reads (and is copied): its arguments are in spans that keep each on one line.
  t.true(
    text
      .replace(/<\/?span[^>]*>/g, '')
      .includes(
        `<code>curl -s -u &quot;$CLIENT_ID:$CLIENT_SECRET&quot; -d grant_type=client_credentials http://localhost:${dev.rt.config.port}/oauth/token</code>`,
      ),
  );
  t.regex(text, /<span class="arg">-u &quot;\$CLIENT_ID:\$CLIENT_SECRET&quot;<\/span>/);
  // The exchange: a secret field, sent by the page's script to the same origin's token endpoint, in the body.
  t.regex(text, /<form id="lectern-exchange">/);
  t.regex(text, /<input id="lectern-client-secret" type="password"/);
  t.notRegex(text, /<form[^>]* action=/, 'the form has no address to be submitted to');
  t.true(res.text.includes("var tokenPath = '/oauth/token'"));
  t.regex(res.text, /grant_type: 'client_credentials'/);
  t.regex(text, /<a href="\/">the platform page<\/a>/);
});

test('when GraphiQL starts, then Request Headers is the open pane, holds Authorization: Bearer, and is never persisted', async (t) => {
  const res = await request(port, { path: '/graphql', headers: BROWSER });
  const options = init(res.text);
  t.true(options.includes(`headers: ${JSON.stringify(JSON.stringify({ Authorization: GRAPHIQL_PLACEHOLDER }, null, 2))}`), options);
  t.regex(options, /headerEditorEnabled: true,/);
  t.regex(options, /shouldPersistHeaders: false,/);
  t.regex(options, /defaultQuery: "# Lectern Core GraphQL API: the box above says how to get an access token\./);
  // GraphiQL 1.x opens the tab its storage names: set before it starts.
  const tab = res.text.indexOf("localStorage.setItem('graphiql:headerEditorActive', 'true')");
  t.true(tab > 0 && tab < res.text.indexOf('var GraphQLHelixGraphiQL='));
  // A query run before a token is answered in the page with the hint, readable (no quotes to escape).
  t.notRegex(GRAPHIQL_TOKEN_HINT, /["\\]/);
});

test('when a browser opens /graphql on an instance address, then the box leads to its Control Panel and to GraphiQL on the platform address', async (t) => {
  const res = await request(port, { path: '/graphql', host: `${tenant.slug}.localhost:${port}`, headers: BROWSER });
  t.is(res.status, 200);
  const text = box(res.text);
  t.regex(text, /create them in its <a href="\/control-panel">Control Panel<\/a>/);
  t.true(text.includes(`<a href="http://localhost:${dev.rt.config.port}/graphql">GraphiQL on the platform address</a>`));
  t.notRegex(text, /lectern-client-secret/, 'no secret field where /oauth/token is not served');
});

test('when NODE_ENV is production, then GET /graphql from a browser is the API, not GraphiQL', async (t) => {
  const res = await request(prodPort, { path: '/graphql', headers: { ...BROWSER, 'x-forwarded-proto': 'https' } });
  t.not(res.status, 200);
  t.notRegex(res.text, /GraphiQL|lectern-start/);
});

test('when a user signed in to the Control Panel uses the button, then they get an ordinary access token that acts as them', async (t) => {
  const base = `http://${tenant.slug}.localhost:${port}`;
  const email = await addUser(dev, tenant);
  const { b, done } = await signedIn(port, base, email, BROWSER);
  t.is(done.location, `${base}/graphql`, "the Control Panel's sign-in comes back to GraphiQL");
  const page = await b.send('GET', `${base}/graphql`, { headers: BROWSER });
  t.is(page.status, 200);
  t.is(page.headers['cache-control'], 'no-store');
  const text = box(page.text);
  t.regex(text, /<button id="lectern-use-sign-in" type="button" data-csrf="[^"]+">Use my sign-in<\/button>/);
  t.true(text.includes(`a token for <strong>${email}</strong>`));
  t.regex(text, /<a href="\/account\/applications">Apps you authorized<\/a>/);
  t.true(page.text.includes(`var signInTokenPath = "${SIGN_IN_TOKEN_PATH}"`));

  const res = await b.send('POST', `${base}${SIGN_IN_TOKEN_PATH}`, { form: { _csrf: buttonCsrf(page.text)! }, headers: { origin: base } });
  t.is(res.status, 200, res.text);
  t.is(res.headers['cache-control'], 'no-store');
  t.like(res.json, { token_type: 'Bearer', expires_in: 3600, scope: 'instance', user: { email } });
  const token = res.json.access_token as string;
  t.regex(token, /^lat_/);
  t.is(res.json.refresh_token, undefined);
  const greeting = await hello(port, `${tenant.slug}.localhost:${port}`, token);
  t.is(greeting.json?.data?.hello, `Hello, ${email}!`, greeting.text);

  // Stored as every access token is (a hash), issued to Lectern's first-party GraphiQL client, for this user.
  const row = await dev.rt
    .knex('platform.oauth_tokens as t')
    .join('platform.oauth_clients as c', 'c.id', 't.client_id')
    .where('t.access_token_hash', hashSecret(token))
    .first('t.tenant_id', 't.refresh_token_hash', 't.access_expires_at', 'c.name', 'c.created_by', 'c.tenant_id as client_tenant');
  t.like(row, {
    tenant_id: tenant.id,
    refresh_token_hash: null,
    name: GRAPHIQL_CLIENT.name,
    created_by: GRAPHIQL_CLIENT.createdBy,
    client_tenant: null,
  });
  const left = (row.access_expires_at as Date).getTime() - Date.now();
  t.true(left > 3500_000 && left <= 3600_000, `expires in ${left} ms`);
});

test('when nobody is signed in, then GraphiQL says so and links to the sign-in, and the token route answers 401 with that link', async (t) => {
  const base = `http://${tenant.slug}.localhost:${port}`;
  const b = new Browser(port);
  const page = await b.send('GET', `${base}/graphql`, { headers: BROWSER });
  const text = box(page.text);
  t.notRegex(text, /lectern-use-sign-in/);
  t.true(
    text.includes(
      `You are not signed in to this instance: <a href="${GRAPHIQL_SIGN_IN.replace(/&/g, '&amp;')}">sign in to its Control Panel</a>`,
    ),
  );
  t.is(GRAPHIQL_SIGN_IN, '/control-panel/login?next=%2Fgraphql');
  // With a CSRF token of this browser (the sign-in page's), still nobody to give a token to.
  const form = await b.send('GET', `${base}${GRAPHIQL_SIGN_IN}`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
  const res = await b.send('POST', `${base}${SIGN_IN_TOKEN_PATH}`, { form: { _csrf: csrf }, headers: { origin: base } });
  t.is(res.status, 401);
  t.like(res.json, { error: { code: 'not_signed_in', details: { signIn: GRAPHIQL_SIGN_IN } } });
  t.regex(String(res.headers['www-authenticate']), /^Session /, 'no Basic challenge: a browser asks for no password');
  t.notRegex(res.text, /lat_/);
});

test('when another origin, or a request without the CSRF token, asks for a token for a signed-in user, then it is refused', async (t) => {
  const base = `http://${tenant.slug}.localhost:${port}`;
  const email = await addUser(dev, tenant);
  const { b } = await signedIn(port, base, email, BROWSER);
  const page = await b.send('GET', `${base}/graphql`, { headers: BROWSER });
  const csrf = buttonCsrf(page.text)!;
  const other = await dev.freshTenant('giqlx');
  for (const origin of ['http://evil.example', `http://${other.slug}.localhost:${port}`, `http://localhost:${port}`, 'null']) {
    const res = await b.send('POST', `${base}${SIGN_IN_TOKEN_PATH}`, { form: { _csrf: csrf }, headers: { origin } });
    t.is(res.status, 403, origin);
    t.is(res.json?.error?.code, 'cross_origin_refused', origin);
    t.notRegex(res.text, /lat_/);
  }
  const noOrigin = await b.send('POST', `${base}${SIGN_IN_TOKEN_PATH}`, { form: { _csrf: csrf } });
  t.is(noOrigin.status, 403);
  const noCsrf = await b.send('POST', `${base}${SIGN_IN_TOKEN_PATH}`, { form: {}, headers: { origin: base } });
  t.is(noCsrf.status, 403);
  t.is(noCsrf.json?.error?.code, 'csrf_failed');
  const get = await b.send('GET', `${base}${SIGN_IN_TOKEN_PATH}`, { headers: { origin: base } });
  t.is(get.status, 405);
  // The same browser, from the page itself: a token.
  const ok = await b.send('POST', `${base}${SIGN_IN_TOKEN_PATH}`, { form: { _csrf: csrf }, headers: { origin: base } });
  t.is(ok.status, 200);
});

test('when the token route is asked on the platform address, then it names where tokens for a signed-in user are given', async (t) => {
  const res = await request(port, { method: 'POST', path: SIGN_IN_TOKEN_PATH, headers: { origin: `http://localhost:${port}` } });
  t.is(res.status, 404);
  t.regex(res.json.error.message, /on an instance's address/);
  // The platform's GraphiQL says where the button is.
  const page = await request(port, { path: '/graphql', headers: BROWSER });
  t.regex(box(page.text), /open the instance's own GraphiQL[\s\S]*<strong>Use my sign-in<\/strong>/);
});

test('when NODE_ENV is production without GRAPHIQL_SIGN_IN_TOKENS, then the token route is not there (404) and instances serve no GraphiQL', async (t) => {
  const host = `${prodTenant.slug}.localhost`;
  const https = { 'x-forwarded-proto': 'https' };
  const res = await request(prodPort, { method: 'POST', path: SIGN_IN_TOKEN_PATH, host, headers: { ...https, origin: `https://${host}` } });
  t.is(res.status, 404);
  t.is(res.json?.error?.code, 'route_not_found');
  const page = await request(prodPort, { path: '/graphql', host, headers: { ...BROWSER, ...https } });
  t.notRegex(page.text, /GraphiQL|lectern-start/);
});

test('when NODE_ENV is production with GRAPHIQL_SIGN_IN_TOKENS=true, then an instance serves GraphiQL with the button, over HTTPS', async (t) => {
  const base = `https://${prodOnTenant.slug}.localhost`;
  const https = { 'x-forwarded-proto': 'https' };
  const email = await addUser(prodOn, prodOnTenant);
  const { b, done } = await signedIn(prodOnApp.port, base, email, { ...BROWSER, ...https });
  t.is(done.location, `${base}/graphql`);
  const page = await b.send('GET', `${base}/graphql`, { headers: { ...BROWSER, ...https } });
  t.is(page.status, 200);
  // Never framed (it holds the CSRF token), and no link to a platform GraphiQL production does not serve.
  t.is(page.headers['x-frame-options'], 'DENY');
  t.regex(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
  t.notRegex(page.text, /GraphiQL on the platform address/);
  const csrf = buttonCsrf(page.text);
  t.truthy(csrf);
  const res = await b.send('POST', `${base}${SIGN_IN_TOKEN_PATH}`, { form: { _csrf: csrf! }, headers: { ...https, origin: base } });
  t.is(res.status, 200, res.text);
  const greeting = await hello(prodOnApp.port, `${prodOnTenant.slug}.localhost`, res.json.access_token, https);
  t.is(greeting.json?.data?.hello, `Hello, ${email}!`, greeting.text);
  // Plain HTTP is refused, as on every page.
  const plain = await request(prodOnApp.port, { path: '/graphql', host: `${prodOnTenant.slug}.localhost`, headers: BROWSER });
  t.not(plain.status, 200);
  // The platform address still serves no GraphiQL in production.
  const platform = await request(prodOnApp.port, { path: '/graphql', headers: { ...BROWSER, ...https } });
  t.notRegex(platform.text, /lectern-start/);
});

test("when the user removes GraphiQL's access under Apps you authorized, then its tokens stop working", async (t) => {
  const base = `http://${tenant.slug}.localhost:${port}`;
  const email = await addUser(dev, tenant);
  const { b } = await signedIn(port, base, email, BROWSER);
  const page = await b.send('GET', `${base}/graphql`, { headers: BROWSER });
  const csrf = buttonCsrf(page.text)!;
  const tokens: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await b.send('POST', `${base}${SIGN_IN_TOKEN_PATH}`, { form: { _csrf: csrf }, headers: { origin: base } });
    tokens.push(res.json.access_token as string);
  }
  for (const token of tokens) t.is((await hello(port, `${tenant.slug}.localhost:${port}`, token)).status, 200);

  const apps = await b.get(`${base}/account/applications`);
  t.is(apps.status, 200);
  t.true(apps.text.includes(`<td>${GRAPHIQL_CLIENT.name.replace(/'/g, '&#39;')}</td>`), apps.text);
  const action = /<form method="post" action="(\/account\/applications\/[^"]+\/remove)"/.exec(apps.text)![1]!;
  const removed = await b.submit(`${base}/account/applications`, {}, { action });
  t.is(removed.status, 200);
  for (const token of tokens) {
    const res = await hello(port, `${tenant.slug}.localhost:${port}`, token);
    t.is(res.status, 401, res.text);
  }
  // A new click gives a new token, listed again.
  const again = await b.send('POST', `${base}${SIGN_IN_TOKEN_PATH}`, { form: { _csrf: csrf }, headers: { origin: base } });
  t.is((await hello(port, `${tenant.slug}.localhost:${port}`, again.json.access_token)).status, 200);
});

test('GRAPHIQL_SIGN_IN_TOKENS is on outside production and off in production unless set', (t) => {
  const production = { NODE_ENV: 'production', SESSION_SECRET: 'z'.repeat(32) };
  t.true(loadConfig({}).graphiqlSignInTokens);
  t.true(loadConfig({ DATABASE_URL: 'postgres://localhost/x' }).graphiqlSignInTokens);
  t.false(loadConfig(production).graphiqlSignInTokens);
  t.true(loadConfig({ ...production, GRAPHIQL_SIGN_IN_TOKENS: 'true' }).graphiqlSignInTokens);
  t.false(loadConfig({ GRAPHIQL_SIGN_IN_TOKENS: 'false' }).graphiqlSignInTokens);
  t.throws(() => loadConfig({ GRAPHIQL_SIGN_IN_TOKENS: 'maybe' }), { message: /GRAPHIQL_SIGN_IN_TOKENS: must be true or false/ });
});

test.serial(
  'when a request comes with no token, then outside production the answer names the one-step command that prints one',
  async (t) => {
    const tenant = await apps.dev.freshTenant('hint');
    const body = { query: '{ hello }' };
    const dev = await request(apps.port, { method: 'POST', path: '/graphql', host: `${tenant.slug}.localhost:${apps.port}`, body });
    t.is(dev.status, 401);
    t.is(
      dev.json.errors[0].message,
      `An access token is required: send Authorization: Bearer <token> (here: npm run cli -- tokens:create --tenant ${tenant.slug})`,
    );
    const platform = await request(apps.port, { method: 'POST', path: '/graphql', body });
    t.regex(platform.json.errors[0].message, /tokens:create --tenant <instance>\)$/);
    const prod = await request(apps.prodPort, { method: 'POST', path: '/graphql', headers: { 'x-forwarded-proto': 'https' }, body });
    t.is(prod.status, 401);
    t.is(prod.json.errors[0].message, 'An access token is required: send Authorization: Bearer <token>');
  },
);
