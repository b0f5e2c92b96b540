import net from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { createPlatformAdmin } from '../../src/modules/admins/admins.service.js';
import { QUERY_LIMITS } from '../../src/kit/graphql/http.js';
import { request } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { basic, PASSWORD } from '../helpers/rest.js';

/**
 * What an anonymous caller (or a careless client) sends that once answered 500, a misleading
 * status or an empty error: every one gets a clear answer with the right status, and none of the
 * service's insides.
 */
let f: GraphQLFixture;
const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';

test.serial.before(async () => {
  f = await graphqlFixture('abuse', { env: { METRICS_TOKEN } });
});
test.after.always(async () => f?.close());

const weblink = (body: unknown) => request(f.port, { method: 'POST', path: '/weblink/graphql', host: `${f.tenant.slug}.localhost`, body });

/**
 * No 500, no stack, no SQL: a GraphQL error body with a message. A document that does not parse
 * or validate answers 200 to `application/json` clients (GraphQL over HTTP §6.4.1), which these are.
 */
function assertClientError(
  t: ExecutionContext,
  res: { status: number; text: string; json: { errors?: { message?: string }[] } },
  message: RegExp,
) {
  t.is(res.status, 200, res.text.slice(0, 500));
  t.regex(res.json?.errors?.[0]?.message ?? '', message, res.text.slice(0, 500));
  t.notRegex(res.text, /at \w+ \(|node_modules|select |RangeError/i);
}

test('when WebLink is sent a mutation, then it says it has none, not 500', async (t) => {
  assertClientError(t, await weblink({ query: 'mutation { __typename }' }), /has no mutations/);
});

/** `fragment F0 on Query { ...F1 } fragment F1 on Query { ...F2 } ... { __typename }`. */
const fragmentChain = (n: number, type: string) =>
  `query { ...F0 } ${Array.from({ length: n }, (_, i) => `fragment F${i} on ${type} { ${i + 1 < n ? `...F${i + 1}` : '__typename'} }`).join(' ')}`;

test('when a query chains 10,000 fragment spreads, then Core and WebLink refuse it as too large', async (t) => {
  const query = fragmentChain(10000, 'Query');
  assertClientError(t, await weblink({ query }), /too large: at most 10,000 tokens/);
  assertClientError(t, await f.gql(f.admin, query), /too large: at most 10,000 tokens/);
  // Within the token bound, fragments leading through each other as far as it allows: the
  // depth limit names the problem (validation follows the chain without running out of stack).
  const deepest = fragmentChain(1200, 'Query');
  for (const res of [await weblink({ query: deepest }), await f.gql(f.admin, deepest)])
    assertClientError(t, res, new RegExp(`depth limit of ${QUERY_LIMITS.depth} exceeded`));
});

test('when a query nests too deeply to parse, then the error says so (not an empty error)', async (t) => {
  const query = `{ ${'a { '.repeat(20000)}${'}'.repeat(20000)} }`;
  for (const res of [await weblink({ query }), await f.gql(f.admin, query)]) {
    assertClientError(t, res, /too large|nested too deeply/);
  }
});

test('when a GraphQL body is over the size limit, then 413, not "not valid JSON"', async (t) => {
  const big = JSON.stringify({ query: `{ __typename }`, variables: { pad: 'x'.repeat(1_100_000) } });
  for (const res of [
    await request(f.port, {
      method: 'POST',
      path: '/weblink/graphql',
      host: `${f.tenant.slug}.localhost`,
      headers: { 'content-type': 'application/json' },
      rawBody: big,
    }),
    await request(f.port, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${f.admin}` },
      rawBody: big,
    }),
  ]) {
    t.is(res.status, 413, res.text);
    t.regex(res.json.errors[0].message, /too large/i);
  }
});

test('when REST is asked with TRACE or PROPFIND, then 405 with Allow, not 501', async (t) => {
  for (const method of ['TRACE', 'PROPFIND']) {
    const res = await f.api(method, 'crm/contacts');
    t.is(res.status, 405, `${method}: ${res.text}`);
    t.truthy(res.headers.allow);
    t.is(res.json.error.code, 'method_not_allowed');
  }
});

test('when a Basic user name holds a NUL byte, then 401 like any wrong credentials', async (t) => {
  const res = await f.api('GET', 'crm/contacts', undefined, { headers: { authorization: basic(`api\u0000@abuse.test`, PASSWORD) } });
  t.is(res.status, 401, res.text);
  t.regex(String(res.headers['www-authenticate']), /^Basic /);
});

test('when /oauth/authorize or a sign-in form carries a NUL byte, then a 400 page, not 500', async (t) => {
  const authorize = await request(f.port, {
    path: `/oauth/authorize?response_type=code&client_id=${encodeURIComponent('lc_\u0000x')}&redirect_uri=http%3A%2F%2Flocalhost%3A9999%2Fcallback`,
  });
  t.is(authorize.status, 400, authorize.text.slice(0, 300));
  t.regex(authorize.text, /Unknown application/);

  // The Control Panel's sign-in form (it needs the page's CSRF token and cookie first).
  const page = await request(f.port, { path: '/control-panel/login', host: `${f.tenant.slug}.localhost` });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
  const cookie = String(page.headers['set-cookie'] ?? '')
    .split(/,(?=\s*lectern)/)
    .map((c) => c.split(';')[0])
    .join('; ');
  const signIn = await request(f.port, {
    method: 'POST',
    path: '/control-panel/login',
    host: `${f.tenant.slug}.localhost`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    rawBody: new URLSearchParams({ _csrf: csrf, email: `a\u0000@abuse.test`, password: 'whatever-1234' }).toString(),
  });
  t.is(signIn.status, 401, signIn.text.slice(0, 300));
  t.regex(signIn.text, /email or password is not right/);
});

test('when a token request authenticates its client twice (Basic and the body), then invalid_request (RFC 6749 §2.3)', async (t) => {
  const { clientId, clientSecret } = f.integration;
  const res = await request(f.port, {
    method: 'POST',
    path: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, clientSecret) },
    rawBody: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(),
  });
  t.is(res.status, 400, res.text);
  t.is(res.json.error, 'invalid_request');
  t.regex(res.json.error_description, /one client authentication/i);
});

test("when /metrics is asked, then only the platform host answers, and only with the metrics token or an administrator's credentials", async (t) => {
  const tenantHost = await request(f.port, {
    path: '/metrics',
    host: `${f.tenant.slug}.localhost`,
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  t.is(tenantHost.status, 404, 'not on a tenant host');
  const anonymous = await request(f.port, { path: '/metrics' });
  t.is(anonymous.status, 401);
  t.notRegex(anonymous.text, /http_request_duration_seconds/);
  t.is((await request(f.port, { path: '/metrics', headers: { authorization: 'Bearer wrong-token' } })).status, 401);
  const withToken = await request(f.port, { path: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  t.is(withToken.status, 200);
  t.regex(withToken.text, /http_request_duration_seconds/);
  const admin = await createPlatformAdmin(f.ctx.rt.knex, { email: `ops-${Date.now()}@abuse.test`, password: PASSWORD });
  const asAdmin = await request(f.port, { path: '/metrics', headers: { authorization: basic(admin.email, PASSWORD) } });
  t.is(asAdmin.status, 200);
});

test('when a raw request line uses an unknown method on REST, then the connection still gets a JSON 405', async (t) => {
  const socket = net.connect(f.port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let text = '';
  socket.on('data', (c: Buffer) => (text += c.toString()));
  const ended = new Promise((r) => socket.once('close', r));
  socket.write(
    `PROPFIND /api/v2/crm/contacts HTTP/1.1\r\nHost: ${f.tenant.slug}.localhost\r\nAuthorization: ${basic(f.email, PASSWORD)}\r\nConnection: close\r\n\r\n`,
  );
  await ended;
  t.regex(text, /^HTTP\/1\.1 405 /);
  t.regex(text, /"method_not_allowed"/);
});
