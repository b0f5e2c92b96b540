import test from 'ava';
import * as client from 'openid-client';
import { Browser } from '../helpers/browser.js';
import { request, within } from '../helpers/harness.js';
import { createIntegrationClient } from '../../src/modules/oauth/clients.service.js';
import { CALLBACK, oauthFixture, type OAuthFixture } from '../helpers/oauth.js';

/**
 * The authorization code flow driven by a real OAuth client library (openid-client v6, with
 * PKCE and state, discovering the server from its RFC 8414 metadata), the sign-in and consent
 * pages submitted like a browser would (cookie jar, CSRF fields), then the token used on
 * `/graphql`. Real HTTP, real PostgreSQL.
 */
let f: OAuthFixture;

test.serial.before(async () => {
  f = await oauthFixture('oac');
});
test.after.always(async () => f?.close());

const rows = (table: string) => f.ctx.rt.knex(`platform.${table}`);

test.serial(
  'when a user signs in and allows an integration, then the code exchanges for tokens that query { hello } as that user',
  async (t) => {
    const { callback, verifier, state } = await f.authorize();
    t.is(callback.searchParams.get('state'), state);
    t.is(callback.searchParams.get('iss'), f.issuer);
    const tokens = await client.authorizationCodeGrant(f.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    t.is(tokens.token_type, 'bearer'); // openid-client normalises the case of "Bearer"
    t.is(tokens.expires_in, 3600);
    t.is(tokens.scope, 'instance');
    t.truthy(tokens.refresh_token);
    const hello = await f.hello(tokens.access_token);
    t.is(hello.status, 200, hello.text);
    t.deepEqual(hello.json, { data: { hello: `Hello, ${f.email}!` } });
    // Also on the tenant's own host.
    t.is((await f.hello(tokens.access_token, `${f.tenant.slug}.localhost:${f.port}`)).json.data.hello, `Hello, ${f.email}!`);
    // Stored only as hashes.
    const stored = await rows('oauth_tokens').orderBy('id', 'desc').first();
    t.not(stored.access_token_hash, tokens.access_token);
    t.false(JSON.stringify(stored).includes(tokens.access_token));
    t.false(JSON.stringify(stored).includes(tokens.refresh_token!));
  },
);

test.serial('the token response is exactly what the contract shows, with Cache-Control: no-store', async (t) => {
  const { callback, verifier } = await f.authorize();
  const res = await request(f.port, {
    method: 'POST',
    path: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      client_id: f.integration.clientId,
      client_secret: f.integration.clientSecret,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
    }).toString(),
  });
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.json), ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope']);
  t.like(res.json, { token_type: 'Bearer', expires_in: 3600, scope: 'instance' });
  t.is(res.headers['cache-control'], 'no-store');
});

test.serial('when a refresh token is used, then it rotates; presented again, it revokes the whole family', async (t) => {
  const { callback, verifier, state } = await f.authorize();
  const first = await client.authorizationCodeGrant(f.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  const second = await client.refreshTokenGrant(f.config, first.refresh_token!);
  t.not(second.refresh_token, first.refresh_token);
  t.not(second.access_token, first.access_token);
  t.is((await f.hello(second.access_token)).status, 200);
  // The rotated-out token comes back (stolen, copied): refused, and everything from this grant dies.
  const reuse = await t.throwsAsync(client.refreshTokenGrant(f.config, first.refresh_token!));
  t.is((reuse as unknown as { error?: string }).error, 'invalid_grant');
  t.not(
    await within(1000, async () => (await f.hello(second.access_token)).status === 401),
    undefined,
    'refused within a second (web processes cache tokens)',
  );
  await t.throwsAsync(client.refreshTokenGrant(f.config, second.refresh_token!));
});

test.serial('when a code is presented a second time, then it is refused and the tokens it gave are revoked', async (t) => {
  const { callback, verifier, state } = await f.authorize();
  const tokens = await client.authorizationCodeGrant(f.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  t.is((await f.hello(tokens.access_token)).status, 200);
  const replay = await t.throwsAsync(
    client.authorizationCodeGrant(f.config, callback, { pkceCodeVerifier: verifier, expectedState: state }),
  );
  t.is((replay as unknown as { error?: string }).error, 'invalid_grant');
  // Web processes cache tokens; a revocation reaches them within a second.
  t.not(await within(1000, async () => (await f.hello(tokens.access_token)).status === 401), undefined);
  await t.throwsAsync(client.refreshTokenGrant(f.config, tokens.refresh_token!));
});

test.serial('when a code has expired, or the PKCE verifier does not match, then the exchange is refused', async (t) => {
  const expired = await f.authorize();
  await rows('oauth_codes')
    .whereNull('consumed_at')
    .update({ expires_at: f.ctx.rt.knex.raw(`now() - interval '1 second'`) });
  const e1 = await t.throwsAsync(
    client.authorizationCodeGrant(f.config, expired.callback, { pkceCodeVerifier: expired.verifier, expectedState: expired.state }),
  );
  t.is((e1 as unknown as { error?: string }).error, 'invalid_grant');
  const wrong = await f.authorize();
  const e2 = await t.throwsAsync(
    client.authorizationCodeGrant(f.config, wrong.callback, {
      pkceCodeVerifier: client.randomPKCECodeVerifier(),
      expectedState: wrong.state,
    }),
  );
  t.is((e2 as unknown as { error?: string }).error, 'invalid_grant');
  // Codes live at most 10 minutes.
  const lifetimes = await rows('oauth_codes').select(f.ctx.rt.knex.raw('extract(epoch from expires_at - created_at) as s'));
  t.true(lifetimes.every((r: { s: string }) => Number(r.s) <= 600));
});

test.serial('when the user denies the application, then the client gets access_denied with its state', async (t) => {
  const { callback, state } = await f.authorize({ decision: 'deny' });
  t.is(callback.searchParams.get('error'), 'access_denied');
  t.is(callback.searchParams.get('state'), state);
  t.is(callback.searchParams.get('code'), null);
});

test.serial(
  'when the client_id is unknown or the redirect URI is not the registered one, then the error is a page, never a redirect',
  async (t) => {
    const browser = new Browser(f.port);
    const base = { response_type: 'code', client_id: f.integration.clientId, redirect_uri: CALLBACK, state: 'x'.repeat(32) };
    for (const params of [
      { ...base, client_id: 'lc_unknown' },
      { ...base, redirect_uri: 'http://localhost:9999/elsewhere' },
      { ...base, redirect_uri: `${CALLBACK}/` },
      { ...base, redirect_uri: '' },
    ]) {
      const res = await browser.get(`${f.issuer}/oauth/authorize?${new URLSearchParams(params)}`);
      t.is(res.status, 400, JSON.stringify(params));
      t.is(res.headers.location, undefined);
      t.regex(res.headers['content-type'] ?? '', /text\/html/);
    }
  },
);

test.serial(
  'when the request is wrong after the redirect URI is trusted, then the client gets the RFC 6749 error with its state',
  async (t) => {
    const browser = new Browser(f.port);
    const base = { response_type: 'code', client_id: f.integration.clientId, redirect_uri: CALLBACK, state: 's'.repeat(32) };
    const cases: [Record<string, string>, string][] = [
      [{ ...base, response_type: 'token' }, 'unsupported_response_type'],
      [{ ...base, scope: 'admin' }, 'invalid_scope'],
      [{ ...base, code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
      [{ ...base, code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request'],
    ];
    for (const [params, error] of cases) {
      const res = await browser.get(`${f.issuer}/oauth/authorize?${new URLSearchParams(params)}`);
      t.is(res.status, 302);
      const to = new URL(res.location!);
      t.is(`${to.origin}${to.pathname}`, CALLBACK);
      t.is(to.searchParams.get('error'), error, JSON.stringify(params));
      t.is(to.searchParams.get('state'), base.state);
    }
  },
);

test.serial(
  'when the state holds a control character, then the client gets invalid_request without a state and no code, as for a non-ASCII state',
  async (t) => {
    const browser = new Browser(f.port);
    // A bad state is not echoed (it is no state the client can have sent on purpose), as the library does too.
    for (const state of ['bad\u0001state', 'bad\u007fstate', 'bad\nstate', 'bad\u0000state', 'caf\u00e9']) {
      const params = {
        response_type: 'code',
        client_id: f.integration.clientId,
        redirect_uri: CALLBACK,
        state,
        instance: f.instanceOf(f.tenant),
      };
      const res = await browser.get(`${f.issuer}/oauth/authorize?${new URLSearchParams(params)}`);
      t.is(res.status, 302, JSON.stringify(state));
      const to = new URL(res.location!);
      t.is(`${to.origin}${to.pathname}`, CALLBACK, `${JSON.stringify(state)} went to ${res.location}`);
      t.is(to.searchParams.get('error'), 'invalid_request');
      t.is(to.searchParams.get('error_description'), 'state must be printable ASCII');
      t.is(to.searchParams.get('state'), null);
      t.is(to.searchParams.get('code'), null);
      t.is(to.searchParams.get('iss'), f.issuer);
    }
  },
);

test.serial(
  'when another parameter holds a control character after the redirect URI is trusted, then it is refused with its state, never taken as absent',
  async (t) => {
    const browser = new Browser(f.port);
    const base = {
      response_type: 'code',
      client_id: f.integration.clientId,
      redirect_uri: CALLBACK,
      state: 'q'.repeat(32),
      instance: f.instanceOf(f.tenant),
    };
    const cases: [Record<string, string>, string][] = [
      // Taken as absent, this was the default scope and a code issued.
      [{ ...base, scope: 'inst\u0001ance' }, 'invalid_scope'],
      // Taken as absent, this was a code issued without PKCE to a client that asked for it.
      [{ ...base, code_challenge: `${'a'.repeat(42)}\u0001` }, 'invalid_request'],
      [{ ...base, response_type: 'co\u0001de' }, 'unsupported_response_type'],
    ];
    for (const [params, error] of cases) {
      const res = await browser.get(`${f.issuer}/oauth/authorize?${new URLSearchParams(params)}`);
      t.is(res.status, 302);
      const to = new URL(res.location!);
      t.is(`${to.origin}${to.pathname}`, CALLBACK, `${JSON.stringify(params)} went to ${res.location}`);
      t.is(to.searchParams.get('error'), error, JSON.stringify(params));
      t.is(to.searchParams.get('state'), base.state);
    }
  },
);

test.serial('without an instance hint the user is asked for the instance; an unknown one is said so on the page', async (t) => {
  const browser = new Browser(f.port);
  const url = `${f.issuer}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: f.integration.clientId, redirect_uri: CALLBACK, state: 'i'.repeat(32) })}`;
  const landed = await browser.follow(url);
  t.true('page' in landed && landed.url.endsWith('/oauth/instance'));
  const wrong = await browser.submit(`${f.issuer}/oauth/instance`, { instance: 'nosuchinstance.localhost' });
  t.is(wrong.status, 400);
  t.regex(wrong.text, /no Lectern instance at that address/);
  const right = await browser.submit(`${f.issuer}/oauth/instance`, { instance: f.instanceOf(f.tenant) });
  t.is(right.location, `${f.issuer}/oauth/login`);
  t.regex((await browser.get(right.location!)).text, new RegExp(`Sign in to ${f.tenant.name}`));
});

test.serial(
  'sign-in failures say the same for a wrong password and an unknown email, and a form without its CSRF token is refused',
  async (t) => {
    const browser = new Browser(f.port);
    await browser.follow(
      client
        .buildAuthorizationUrl(f.config, { redirect_uri: CALLBACK, state: 'c'.repeat(32), instance: f.instanceOf(f.tenant) })
        .toString(),
    );
    const wrongPassword = await browser.submit(`${f.issuer}/oauth/login`, { email: f.email, password: 'not-the-password' });
    const unknownEmail = await browser.submit(`${f.issuer}/oauth/login`, { email: 'nobody@nowhere.test', password: 'not-the-password' });
    t.is(wrongPassword.status, 401);
    t.is(unknownEmail.status, 401);
    const message = (html: string) => /<p class="error"[^>]*>([^<]*)</.exec(html)?.[1];
    t.is(message(wrongPassword.text), message(unknownEmail.text));
    const forged = await browser.send('POST', `${f.issuer}/oauth/login`, { form: { email: f.email, password: 'integration-secret-1' } });
    t.is(forged.status, 403);
    t.is(forged.location, undefined);
  },
);

test.serial('after five failed sign-ins on one account, the next attempts wait, even with the right password', async (t) => {
  const email = 'guessed@oac.test';
  await f.addUser(f.tenant, email);
  const browser = new Browser(f.port);
  await browser.follow(
    client.buildAuthorizationUrl(f.config, { redirect_uri: CALLBACK, state: 'g'.repeat(32), instance: f.instanceOf(f.tenant) }).toString(),
  );
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++)
    statuses.push((await browser.submit(`${f.issuer}/oauth/login`, { email, password: `wrong-guess-${i}` })).status);
  t.deepEqual(statuses.slice(0, 4), [401, 401, 401, 401]);
  t.is(statuses[4], 429);
  const right = await browser.submit(`${f.issuer}/oauth/login`, { email, password: 'integration-secret-1' });
  t.is(right.status, 429);
  t.truthy(right.headers['retry-after']);
  t.regex(right.text, /Too many sign-in attempts/);
});

test.serial('the session cookie is HttpOnly and SameSite=Lax, and a new one is issued at sign-in', async (t) => {
  const browser = new Browser(f.port);
  const url = client
    .buildAuthorizationUrl(f.config, { redirect_uri: CALLBACK, state: 'k'.repeat(32), instance: f.instanceOf(f.tenant) })
    .toString();
  const first = await browser.get(url);
  const cookie = (first.headers['set-cookie'] ?? []).find((c) => c.startsWith('lectern.sid='))!;
  t.regex(cookie, /HttpOnly/i);
  t.regex(cookie, /SameSite=Lax/i);
  t.notRegex(cookie, /Secure/i); // plain HTTP in development; under HTTPS it is Secure (tested in token-endpoint.test.ts)
  const before = (await browser.jar.getCookies(f.issuer)).find((c) => c.key === 'lectern.sid')!.value;
  await browser.get(`${f.issuer}/oauth/login`);
  await browser.submit(`${f.issuer}/oauth/login`, { email: f.email, password: 'integration-secret-1' });
  const after = (await browser.jar.getCookies(f.issuer)).find((c) => c.key === 'lectern.sid')!.value;
  t.not(after, before, 'a fresh session id after signing in (no session fixation)');
});

test.serial("when a token of tenant A is used on tenant B's host, then it is refused as invalid", async (t) => {
  const other = await f.ctx.freshTenant('oacb');
  const { callback, verifier, state } = await f.authorize();
  const tokens = await client.authorizationCodeGrant(f.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  const res = await f.hello(tokens.access_token, `${other.slug}.localhost:${f.port}`);
  t.is(res.status, 401);
  t.regex(res.headers['www-authenticate'] ?? '', /error="invalid_token"/);
  t.is(res.json.data, undefined);
});

test.serial('when an access token has expired, then /graphql answers 401 invalid_token', async (t) => {
  const { callback, verifier, state } = await f.authorize();
  const tokens = await client.authorizationCodeGrant(f.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  t.is((await f.hello(tokens.access_token)).status, 200);
  // The clock moves past the token's hour.
  await rows('oauth_tokens')
    .whereNull('revoked_at')
    .update({ access_expires_at: f.ctx.rt.knex.raw(`now() - interval '1 second'`) });
  t.not(
    await within(1000, async () => (await f.hello(tokens.access_token)).status === 401),
    undefined,
    'refused within a second (web processes cache tokens)',
  );
  const res = await f.hello(tokens.access_token);
  t.is(res.status, 401);
  t.regex(res.headers['www-authenticate'] ?? '', /Bearer .*error="invalid_token", error_description="The access token expired"/);
  // The refresh token still works: that is what it is for.
  const renewed = await client.refreshTokenGrant(f.config, tokens.refresh_token!);
  t.is((await f.hello(renewed.access_token)).status, 200);
});

test.serial('when a refresh token has gone unused for six months, then it is dead', async (t) => {
  const { callback, verifier, state } = await f.authorize();
  const tokens = await client.authorizationCodeGrant(f.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  const term = await rows('oauth_tokens')
    .orderBy('id', 'desc')
    .first(f.ctx.rt.knex.raw('extract(epoch from refresh_expires_at - created_at) / 86400 as days'));
  t.true(Number(term.days) >= 182 && Number(term.days) <= 184, `refresh term ${term.days} days`);
  await rows('oauth_tokens')
    .whereNull('revoked_at')
    .update({ refresh_expires_at: f.ctx.rt.knex.raw(`now() - interval '1 second'`) });
  const dead = await t.throwsAsync(client.refreshTokenGrant(f.config, tokens.refresh_token!));
  t.is((dead as unknown as { error?: string }).error, 'invalid_grant');
});

test.serial('no bearer token, or a malformed one: 401 with a Bearer challenge (invalid_token only when one was sent)', async (t) => {
  const none = await f.hello(undefined);
  t.is(none.status, 401);
  t.is(none.headers['www-authenticate'], 'Bearer realm="Lectern GraphQL"');
  t.is(none.json.errors[0].extensions.code, 'UNAUTHENTICATED');
  const basic = await request(f.port, {
    method: 'POST',
    path: '/graphql',
    headers: { authorization: 'Basic abc' },
    body: { query: '{ hello }' },
  });
  t.is(basic.status, 401);
  t.regex(basic.headers['www-authenticate'] ?? '', /error="invalid_token"/);
  const unknown = await f.hello('lat_not-a-token');
  t.is(unknown.status, 401);
  t.regex(unknown.headers['www-authenticate'] ?? '', /error="invalid_token"/);
});

test.serial(
  'when a second authorization starts in the same browser, then Allow on the first consent page never issues a code to the second application',
  async (t) => {
    const other = await createIntegrationClient(f.ctx.rt.knex, {
      name: 'Other application',
      redirectUris: ['http://localhost:9998/other'],
    });
    const browser = new Browser(f.port);
    const first = client
      .buildAuthorizationUrl(f.config, { redirect_uri: CALLBACK, state: 'x'.repeat(32), instance: f.instanceOf(f.tenant) })
      .toString();
    await browser.follow(first, CALLBACK);
    const login = await browser.submit(`${f.issuer}/oauth/login`, { email: f.email, password: 'integration-secret-1' });
    const consentX = await browser.follow(login.location!, CALLBACK);
    t.true('page' in consentX);
    const pageX = browser.page!;
    t.regex(pageX.text, new RegExp(`<strong>oac integration</strong> wants to use Lectern`));

    // In another tab, the same browser is sent to authorize another application.
    const second = `${f.issuer}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: other.clientId, redirect_uri: 'http://localhost:9998/other', state: 'y'.repeat(32), instance: f.instanceOf(f.tenant) })}`;
    const consentY = await browser.follow(second, 'http://localhost:9998/other');
    t.true('page' in consentY && /<strong>Other application<\/strong>/.test(consentY.page.text));

    // Back in the first tab, the user clicks Allow on the page that named the first application.
    browser.page = pageX;
    const decided = await browser.submit(`${f.issuer}/oauth/consent`, {}, { where: { decision: 'allow' } });
    t.false(
      String(decided.location ?? '').startsWith('http://localhost:9998/other'),
      `no code for the application the page did not name: ${decided.location}`,
    );
    if (decided.location?.startsWith(CALLBACK))
      t.truthy(new URL(decided.location).searchParams.get('code'), 'a code for the application the page named');
    else t.regex(decided.text, /start again|out of date|no longer/i);
  },
);

test.serial('when pages are only looked at, then no session is stored; signing in stores one', async (t) => {
  const countSessions = async () => Number((await rows('web_sessions').count('* as n').first())!.n);
  const sidOf = (res: { headers: Record<string, unknown> }) =>
    ([] as string[]).concat((res.headers['set-cookie'] as string[] | undefined) ?? []).find((c) => c.startsWith('lectern.sid='));
  const anonymous = new Browser(f.port);
  for (const url of [
    `${f.issuer}/oauth/instance`,
    `${f.issuer}/oauth/login`,
    `http://${f.tenant.slug}.localhost:${f.port}/control-panel/login`,
    `http://${f.tenant.slug}.localhost:${f.port}/account/applications`,
  ]) {
    const res = await anonymous.get(url);
    t.is(sidOf(res), undefined, `${url} made a session`);
  }
  // A sign-in form still works without one, and signing in makes one.
  const before = await countSessions();
  const page = await anonymous.follow(`http://${f.tenant.slug}.localhost:${f.port}/control-panel/login`);
  t.true('page' in page);
  const signedIn = await anonymous.submit(`http://${f.tenant.slug}.localhost:${f.port}/control-panel/login`, {
    email: f.email,
    password: 'integration-secret-1',
  });
  t.is(signedIn.status, 302, signedIn.text.slice(0, 300));
  t.truthy(sidOf(signedIn));
  t.true((await countSessions()) > before);
});

test.serial('when a user signs in, then the CSRF tokens of the pages seen before no longer work', async (t) => {
  const host = `http://${f.tenant.slug}.localhost:${f.port}`;
  const browser = new Browser(f.port);
  await browser.follow(`${host}/control-panel/login`);
  const before = /name="_csrf" value="([^"]+)"/.exec(browser.page!.text)![1]!;
  const signedIn = await browser.submit(`${host}/control-panel/login`, { email: f.email, password: 'integration-secret-1' });
  t.is(signedIn.status, 302);
  await browser.follow(signedIn.location!);
  const after = /name="_csrf" value="([^"]+)"/.exec(browser.page!.text)![1]!;
  // A token planted before sign-in (a login-CSRF attacker knows it) no longer signs a form.
  const stale = await browser.send('POST', `${host}/control-panel/logout`, { form: { _csrf: before } });
  t.is(stale.status, 403, stale.text.slice(0, 200));
  const fresh = await browser.send('POST', `${host}/control-panel/logout`, { form: { _csrf: after } });
  t.is(fresh.status, 302);
});
