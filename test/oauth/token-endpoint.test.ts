import test from 'ava';
import * as client from 'openid-client';
import { createServiceClient, revokeClient } from '../../src/modules/oauth/clients.service.js';
import { Browser } from '../helpers/browser.js';
import { request, setupTestRuntime, startTestApp, within, type HttpResult } from '../helpers/harness.js';
import { CALLBACK, oauthFixture, type OAuthFixture } from '../helpers/oauth.js';

/**
 * The token endpoint as off-the-shelf clients use it: client credentials (Basic and body),
 * form-urlencoded Basic credentials, parameters in the query string, RFC 6749 §5.2 errors,
 * revoked credentials, and HTTPS in production.
 */
let f: OAuthFixture;
let serviceUserId: number;

test.serial.before(async () => {
  f = await oauthFixture('otk');
  serviceUserId = await f.addUser(f.tenant, 'svc@otk.test', 'viewer');
});
test.after.always(async () => f?.close());

const token = (params: Record<string, string>, opts: { basic?: string; query?: boolean } = {}): Promise<HttpResult> =>
  request(f.port, {
    method: 'POST',
    path: opts.query ? `/oauth/token?${new URLSearchParams(params)}` : '/oauth/token',
    headers: {
      ...(opts.query ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      ...(opts.basic ? { authorization: `Basic ${Buffer.from(opts.basic).toString('base64')}` } : {}),
    },
    ...(opts.query ? {} : { rawBody: new URLSearchParams(params).toString() }),
  });

test.serial(
  'when client credentials are exchanged (Basic or body), then the token acts as the service user and has no refresh token',
  async (t) => {
    const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'Nightly sync', serviceUser: 'svc@otk.test' });
    for (const auth of ['basic', 'post'] as const) {
      const config = await f.configure(creds.clientId, creds.clientSecret, auth);
      const tokens = await client.clientCredentialsGrant(config);
      t.is(tokens.expires_in, 3600);
      t.is(tokens.scope, 'instance');
      t.is(tokens.refresh_token, undefined);
      t.is((await f.hello(tokens.access_token)).json.data.hello, 'Hello, svc@otk.test!');
    }
    const raw = await token({ grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret });
    t.deepEqual(Object.keys(raw.json), ['access_token', 'token_type', 'expires_in', 'scope']);
    t.is(raw.headers['cache-control'], 'no-store');
    t.is(serviceUserId > 0, true);
  },
);

test.serial(
  'when the Basic credentials are form-urlencoded (RFC 6749 §2.3.1), then they are decoded before they are checked',
  async (t) => {
    const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'Encoded', serviceUser: 'svc@otk.test' });
    // Every character percent-encoded: only a server that decodes sees the real id and secret.
    const enc = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
    const res = await token({ grant_type: 'client_credentials' }, { basic: `${enc(creds.clientId)}:${enc(creds.clientSecret)}` });
    t.is(res.status, 200, res.text);
    t.truthy(res.json.access_token);
  },
);

test.serial('when the parameters come in the query string with an empty body, then the token endpoint takes them', async (t) => {
  const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'Query string', serviceUser: 'svc@otk.test' });
  const res = await token(
    { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret },
    { query: true },
  );
  t.is(res.status, 200, res.text);
  t.is(res.json.token_type, 'Bearer');
});

test.serial('wrong or missing client authentication gets RFC 6749 §5.2 errors, with 401 and WWW-Authenticate for Basic', async (t) => {
  const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'Wrong secret', serviceUser: 'svc@otk.test' });
  const body = await token({ grant_type: 'client_credentials', client_id: creds.clientId, client_secret: 'lcs_wrong' });
  t.is(body.status, 400);
  t.is(body.json.error, 'invalid_client');
  t.is(body.headers['cache-control'], 'no-store');
  const basic = await token({ grant_type: 'client_credentials' }, { basic: `${creds.clientId}:lcs_wrong` });
  t.is(basic.status, 401);
  t.is(basic.json.error, 'invalid_client');
  t.regex(basic.headers['www-authenticate'] ?? '', /^Basic/);
  const unknown = await token({ grant_type: 'client_credentials', client_id: 'lc_nobody', client_secret: 'x' });
  t.is(unknown.json.error, 'invalid_client');
  // RFC 6749 §5.2: "no client authentication included" is invalid_client too.
  const noSecret = await token({ grant_type: 'client_credentials', client_id: creds.clientId });
  t.is(noSecret.json.error, 'invalid_client');
  const noGrant = await token({ client_id: creds.clientId, client_secret: creds.clientSecret });
  t.is(noGrant.json.error, 'invalid_request');
  const grant = await token({
    grant_type: 'password',
    client_id: creds.clientId,
    client_secret: creds.clientSecret,
    username: 'a',
    password: 'b',
  });
  t.is(grant.json.error, 'unauthorized_client');
  const bogus = await token({ grant_type: 'magic', client_id: creds.clientId, client_secret: creds.clientSecret });
  t.is(bogus.json.error, 'unsupported_grant_type');
  // An integration cannot use client credentials, nor the other way round.
  const wrongKind = await token({
    grant_type: 'client_credentials',
    client_id: f.integration.clientId,
    client_secret: f.integration.clientSecret,
  });
  t.is(wrongKind.json.error, 'unauthorized_client');
  // No internals in any error.
  for (const r of [body, basic, unknown, noSecret, noGrant, grant, bogus, wrongKind])
    t.notRegex(r.text, /select|insert|knex|stack|at \w+ \(/i);
});

test.serial(
  'when an authorization code is exchanged with a wrong secret, a wrong redirect URI or by another client, then it is refused',
  async (t) => {
    const wrongSecret = await f.authorize();
    const e1 = await token({
      grant_type: 'authorization_code',
      code: wrongSecret.callback.searchParams.get('code')!,
      client_id: f.integration.clientId,
      client_secret: 'lcs_wrong',
      redirect_uri: CALLBACK,
      code_verifier: wrongSecret.verifier,
    });
    t.is(e1.json.error, 'invalid_client');
    const wrongUri = await f.authorize();
    const e2 = await token({
      grant_type: 'authorization_code',
      code: wrongUri.callback.searchParams.get('code')!,
      client_id: f.integration.clientId,
      client_secret: f.integration.clientSecret,
      redirect_uri: 'http://localhost:9999/other',
      code_verifier: wrongUri.verifier,
    });
    t.is(e2.json.error, 'invalid_request');
    const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'Thief', serviceUser: 'svc@otk.test' });
    const stolen = await f.authorize();
    const e3 = await token({
      grant_type: 'authorization_code',
      code: stolen.callback.searchParams.get('code')!,
      client_id: creds.clientId,
      client_secret: creds.clientSecret,
      redirect_uri: CALLBACK,
      code_verifier: stolen.verifier,
    });
    t.is(e3.status >= 400, true);
    t.regex(e3.json.error, /unauthorized_client|invalid_grant/);
  },
);

test.serial('when client credentials are revoked, then they get no more tokens and the tokens they had stop working', async (t) => {
  const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'To revoke', serviceUser: 'svc@otk.test' });
  const config = await f.configure(creds.clientId, creds.clientSecret);
  const tokens = await client.clientCredentialsGrant(config);
  t.is((await f.hello(tokens.access_token)).status, 200);
  await revokeClient(f.ctx.rt.knex, creds.clientId);
  t.not(
    await within(1000, async () => (await f.hello(tokens.access_token)).status === 401),
    undefined,
    'refused within a second (web processes cache tokens)',
  );
  const again = await t.throwsAsync(client.clientCredentialsGrant(config));
  t.is((again as unknown as { error?: string }).error, 'invalid_client');
});

test.serial('when the service user is deactivated, then its client credentials get no tokens and its tokens stop working', async (t) => {
  const userId = await f.addUser(f.tenant, 'leaver@otk.test', 'viewer');
  const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'Leaver', serviceUser: userId });
  const config = await f.configure(creds.clientId, creds.clientSecret);
  const tokens = await client.clientCredentialsGrant(config);
  await f.ctx.rt.knex(`${f.tenant.schema}.users`).where({ id: userId }).update({ is_active: false });
  t.not(
    await within(1000, async () => (await f.hello(tokens.access_token)).status === 401),
    undefined,
    'refused within a second (web processes cache tokens)',
  );
  const refused = await t.throwsAsync(client.clientCredentialsGrant(config));
  t.is((refused as unknown as { error?: string }).error, 'invalid_grant');
});

test.serial(
  'in production, plain HTTP is refused and HTTPS (X-Forwarded-Proto from the router) is served, with Secure cookies',
  async (t) => {
    const prod = await setupTestRuntime({ NODE_ENV: 'production', SESSION_SECRET: 'p'.repeat(40) });
    const app = await startTestApp(prod.rt);
    try {
      const plain = await request(app.port, {
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        rawBody: 'grant_type=client_credentials',
      });
      t.is(plain.status, 400);
      t.deepEqual(plain.json, { error: 'invalid_request', error_description: 'HTTPS is required' });
      const plainGraphql = await request(app.port, {
        method: 'POST',
        path: '/graphql',
        headers: { authorization: 'Bearer x' },
        body: { query: '{ hello }' },
      });
      t.is(plainGraphql.status, 400);
      const https = await request(app.port, {
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https' },
        rawBody: 'grant_type=client_credentials&client_id=lc_x&client_secret=y',
      });
      t.is(https.json.error, 'invalid_client');
      const page = await new Browser(app.port).send('GET', `http://localhost:${app.port}/oauth/instance`, {
        headers: { 'x-forwarded-proto': 'https' },
      });
      // Looking at a page stores no session, but its forms' CSRF cookie is set: Secure like every cookie here.
      const cookies = page.headers['set-cookie'] ?? [];
      t.truthy(cookies.find((c) => c.startsWith('lectern.csrf=')));
      for (const c of cookies) t.regex(c, /; secure/i, c);
      const plainPage = await request(app.port, { path: '/oauth/instance' });
      t.is(plainPage.status, 400);
      t.regex(plainPage.text, /HTTPS is required/);
    } finally {
      await app.close();
      await prod.cleanup();
    }
  },
);

test.serial('the authorization server publishes its RFC 8414 metadata', async (t) => {
  const res = await request(f.port, { path: '/.well-known/oauth-authorization-server' });
  t.is(res.status, 200);
  t.like(res.json, {
    issuer: f.issuer,
    authorization_endpoint: `${f.issuer}/oauth/authorize`,
    token_endpoint: `${f.issuer}/oauth/token`,
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['instance'],
  });
});
