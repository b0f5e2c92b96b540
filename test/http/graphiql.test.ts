import test from 'ava';
import { GRAPHIQL_PLACEHOLDER, GRAPHIQL_TOKEN_HINT } from '../../src/app/graphql-endpoint.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { developmentAndProductionApps, request, type TestContext } from '../helpers/harness.js';

/**
 * GraphiQL's first screen (`GET /graphql` from a browser, outside production): a box that says
 * how to get a token, the Request Headers pane open on `Authorization: Bearer `, headers kept in
 * the tab only; on the platform address a form that exchanges client credentials for a token in
 * the page, on an instance's address the way to its Control Panel. Never in production.
 * (What the page then does in a browser: test/browser/graphiql.browser.ts.)
 */
let apps: Awaited<ReturnType<typeof developmentAndProductionApps>>;
let dev: TestContext;
let port: number;
let prodPort: number;
let tenant: Tenant;
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

test.before(async () => {
  apps = await developmentAndProductionApps();
  ({ dev, port, prodPort } = apps);
  tenant = await dev.freshTenant('giql');
});
test.after.always(async () => apps?.close());

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
  t.true(
    text.includes(
      `curl -s -u &quot;$CLIENT_ID:$CLIENT_SECRET&quot; -d grant_type=client_credentials http://localhost:${dev.rt.config.port}/oauth/token`,
    ),
  );
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
