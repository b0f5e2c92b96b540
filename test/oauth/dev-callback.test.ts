import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import * as client from 'openid-client';
import { Browser } from '../helpers/browser.js';
import { request, runTs, setupTestRuntime, startTestApp } from '../helpers/harness.js';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { oauthFixture, type OAuthFixture } from '../helpers/oauth.js';
import { PASSWORD } from '../helpers/rest.js';

/**
 * The development callback (`GET /oauth/dev-callback`, OAUTH_DEV_CALLBACK): an integration
 * registered with it as its redirect URI gets, after sign-in and consent, a page on the platform
 * address showing the code, state and iss and the exact command that exchanges the code. The code
 * client is registered with `clients:create` (a real CLI process) and its printed `authorizeUrl`
 * followed as docs/oauth.md says; the flow is also driven by openid-client (discovery, state, PKCE);
 * the pages are submitted like a browser would, and the command shown is run as printed (sh and
 * curl), with the secret in $SECRET.
 */
let f: OAuthFixture;
let devCallback: string;
let app: { clientId: string; clientSecret: string; authorizeUrl: string };

test.serial.before(async () => {
  f = await oauthFixture('odc');
  devCallback = `${f.issuer}/oauth/dev-callback`;
  const created = await runTs('src/cli/main.ts', ['clients:create', '--name', 'Dev callback try-out', '--redirect-uri', devCallback], {
    PORT: String(f.port),
  });
  if (created.code !== 0) throw new Error(created.stderr);
  app = JSON.parse(created.stdout);
});
test.after.always(async () => f?.close());

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** From an authorization URL, signs in (naming the instance when asked) and decides; the callback page the browser lands on. */
async function landOnDevCallback(url: string, decision: 'allow' | 'deny' = 'allow') {
  const browser = new Browser(f.port);
  let at = await browser.follow(url);
  if ('page' in at && at.url.endsWith('/oauth/instance')) {
    const chosen = await browser.submit(at.url, { instance: f.tenant.slug });
    at = await browser.follow(chosen.location!);
  }
  if (!('page' in at) || !at.url.endsWith('/oauth/login')) throw new Error(`expected the sign-in page: ${JSON.stringify(at)}`);
  const login = await browser.submit(at.url, { email: f.email, password: PASSWORD });
  const consent = await browser.follow(login.location!);
  if (!('page' in consent)) throw new Error('expected the consent page');
  const decided = await browser.submit(consent.url, {}, { where: { decision } });
  if (!decided.location?.startsWith(`${devCallback}?`)) throw new Error(`not sent to the dev callback: ${decided.location}`);
  return { callback: new URL(decided.location), page: await browser.get(decided.location) };
}

/** An authorization URL made by openid-client, from the server's metadata. */
async function libraryAuthorization(params: Record<string, string>) {
  const config = await f.configure(app.clientId, app.clientSecret);
  const url = client.buildAuthorizationUrl(config, { redirect_uri: devCallback, instance: f.instanceOf(f.tenant), ...params });
  return { config, url: url.toString() };
}

/** The command of the page's first <pre>, as a user copies it. */
const commandOf = (text: string) => decode(/<pre[^>]*><code[^>]*>([\s\S]*?)<\/code><\/pre>/.exec(text)?.[1] ?? '');

test.serial(
  "when clients:create's authorizeUrl is followed to the dev callback, then the page shows the code and a command that, run as shown with $SECRET, gets tokens",
  async (t) => {
    t.is(
      app.authorizeUrl,
      `${f.issuer}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: devCallback })}`,
    );
    const { callback, page } = await landOnDevCallback(app.authorizeUrl);
    t.is(page.status, 200, page.text);
    const code = callback.searchParams.get('code')!;
    t.regex(code, /^lac_/);
    t.true(page.text.includes(code));
    t.true(page.text.includes(`<code>${f.issuer}</code> <span class="muted">(this server)</span>`));
    const command = commandOf(page.text);
    t.is(
      command.replace(/ \\\n\s*/g, ' '), // one line, as the shell reads it
      `curl -s -X POST ${f.issuer}/oauth/token -u "${app.clientId}:$SECRET" -d grant_type=authorization_code -d code=${code} -d redirect_uri=${devCallback}`,
    );
    t.false(page.text.includes(app.clientSecret), 'the secret is never shown (only its hash is kept)');
    const run = await promisify(execFile)('sh', ['-c', command], { env: { ...process.env, SECRET: app.clientSecret } });
    const tokens = JSON.parse(run.stdout);
    t.like(tokens, { token_type: 'Bearer', expires_in: 3600, scope: 'instance' });
    t.deepEqual((await f.hello(tokens.access_token)).json, { data: { hello: `Hello, ${f.email}!` } });
    // The same page again: the code is spent, and the page says so instead of showing a command that cannot work.
    const again = await request(f.port, { path: callback.pathname + callback.search });
    t.is(again.status, 400);
    t.regex(again.text, /used already/);
    t.false(again.text.includes('curl'));
  },
);

test.serial(
  'when the application sent PKCE, then the command asks for the verifier, and openid-client exchanges the code from the page address with its checks of state and iss',
  async (t) => {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const { config, url } = await libraryAuthorization({
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const { callback, page } = await landOnDevCallback(url);
    t.is(page.status, 200, page.text);
    t.true(page.text.includes(`<code>${state}</code>`));
    t.true(commandOf(page.text).includes('-d code_verifier="$VERIFIER"'));
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    t.is((await f.hello(tokens.access_token)).status, 200);
  },
);

test.serial('the page cannot run script, be framed, be cached or leak its address in Referer', async (t) => {
  const { page } = await landOnDevCallback((await libraryAuthorization({ state: client.randomState() })).url);
  t.is(page.headers['cache-control'], 'no-store');
  t.is(page.headers['x-frame-options'], 'DENY');
  t.is(page.headers['referrer-policy'], 'no-referrer');
  t.regex(String(page.headers['content-security-policy']), /default-src 'none'/);
  t.regex(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
  t.false(/<script/i.test(page.text));
});

test.serial(
  'when the values are not a code Lectern issued, then they are shown escaped, and no command (a crafted link could not make one to copy)',
  async (t) => {
    const crafted = new URLSearchParams({
      code: 'lac_x$(touch /tmp/pwned)<script>alert(1)</script>',
      state: '"><img src=x onerror=alert(1)>',
      iss: 'https://evil.example',
    });
    const res = await request(f.port, { path: `/oauth/dev-callback?${crafted}` });
    t.is(res.status, 400);
    t.false(/<script|<img/i.test(res.text));
    t.true(res.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    t.true(res.text.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'));
    t.regex(res.text, /not this server/);
    t.false(res.text.includes('curl'));
    t.is(res.headers['cache-control'], 'no-store');
    const empty = await request(f.port, { path: '/oauth/dev-callback' });
    t.is(empty.status, 400);
    t.regex(empty.text, /no code/i);
  },
);

test.serial('when the user denies the application, then the page shows the error the application would get', async (t) => {
  const state = client.randomState();
  const { page } = await landOnDevCallback((await libraryAuthorization({ state })).url, 'deny');
  t.is(page.status, 200);
  t.regex(page.text, /access_denied/);
  t.true(page.text.includes(state));
  t.false(page.text.includes('curl'));
});

test.serial('the page is on the platform address only, not on an instance address', async (t) => {
  const res = await request(f.port, { path: '/oauth/dev-callback?code=lac_x', host: `${f.tenant.slug}.localhost:${f.port}` });
  t.is(res.status, 404);
});

test('OAUTH_DEV_CALLBACK: on by default outside production, off in production unless set; a bad value stops the boot naming it', (t) => {
  t.true(loadConfig({}).oauthDevCallback);
  t.true(loadConfig({ DATABASE_URL: 'postgres://localhost/x' }).oauthDevCallback);
  const production = { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32) };
  t.false(loadConfig(production).oauthDevCallback);
  t.true(loadConfig({ ...production, OAUTH_DEV_CALLBACK: '1' }).oauthDevCallback);
  t.false(loadConfig({ OAUTH_DEV_CALLBACK: '0' }).oauthDevCallback);
  const bad = t.throws(() => loadConfig({ OAUTH_DEV_CALLBACK: 'maybe' }), { instanceOf: ConfigError });
  t.regex(bad!.message, /OAUTH_DEV_CALLBACK: must be true or false/);
});

test.serial('when OAUTH_DEV_CALLBACK is off, then there is no such page', async (t) => {
  const ctx = await setupTestRuntime({ OAUTH_DEV_CALLBACK: 'false' });
  const off = await startTestApp(ctx.rt);
  try {
    const res = await request(off.port, { path: '/oauth/dev-callback?code=lac_x&state=s' });
    t.is(res.status, 404);
    t.false(res.text.includes('lac_x'));
  } finally {
    await off.close();
    await ctx.cleanup();
  }
});
