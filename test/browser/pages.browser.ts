import http from 'node:http';
import test from 'ava';
import * as client from 'openid-client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createIntegrationClient } from '../../src/modules/oauth/clients.service.js';
import { freePort } from '../../src/platform/util/net.js';
import { oauthFixture, type OAuthFixture } from '../helpers/oauth.js';
import { PASSWORD } from '../helpers/rest.js';

/**
 * The pages in a real browser (Debian's Chromium driven by playwright-core): the instance,
 * sign-in and consent pages of the authorization code flow, the Control Panel's API clients, and
 * the user's Apps you authorized. `npm run test:browser`; CHROMIUM_PATH names the browser (default
 * /usr/bin/chromium).
 */
let f: OAuthFixture;
let browser: Browser;
// The integration's own web server: its callback page, where the browser lands with the code.
let callbackServer: http.Server;
let callback: string;
let integration: client.Configuration;
let integrationName: string;

test.serial.before(async () => {
  f = await oauthFixture('brw');
  const port = await freePort();
  callbackServer = http.createServer((_req, res) => res.end('<p>Integration callback</p>')).listen(port, '127.0.0.1');
  callback = `http://localhost:${port}/callback`;
  integrationName = 'Browser Integration';
  const registered = await createIntegrationClient(f.ctx.rt.knex, { name: integrationName, redirectUris: [callback] });
  integration = await f.configure(registered.clientId, registered.clientSecret);
  await f.addUser(f.tenant, 'svc@brw.test', 'viewer');
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    // Root in CI needs no sandbox; the rest keeps Chromium off a network this machine does not have.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
test.after.always(async () => {
  await browser?.close();
  callbackServer?.close();
  await f?.close();
});

async function newPage(): Promise<Page> {
  return (await browser.newContext()).newPage();
}

test.serial('a user picks the instance, signs in, allows the application, and the code gives a token for { hello }', async (t) => {
  const page = await newPage();
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(integration, {
    redirect_uri: callback,
    scope: 'instance',
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  await page.goto(url.toString());
  t.is(await page.locator('h1').textContent(), 'Which Lectern instance?');
  await page.getByLabel('Instance address').fill(f.instanceOf(f.tenant));
  await page.getByRole('button', { name: 'Continue' }).click();
  t.is(await page.locator('h1').textContent(), `Sign in to ${f.tenant.name}`);
  await page.getByLabel('Email').fill(f.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  t.is(await page.getByRole('alert').textContent(), 'The email or password is not right.');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  t.is(await page.locator('h1').textContent(), `Allow ${integrationName}?`);
  t.true((await page.locator('main').textContent())!.includes(f.email));
  await Promise.all([page.waitForURL(`${callback}**`), page.getByRole('button', { name: 'Allow' }).click()]);
  const landed = new URL(page.url());
  t.is(landed.searchParams.get('state'), state);
  t.true((await page.content()).includes('Integration callback'));
  const tokens = await client.authorizationCodeGrant(integration, landed, { pkceCodeVerifier: verifier, expectedState: state });
  t.is((await f.hello(tokens.access_token)).json.data.hello, `Hello, ${f.email}!`);
  await page.context().close();
});

test.serial('a tenant admin creates client credentials in the Control Panel, uses them, and revokes them', async (t) => {
  const page = await newPage();
  const host = `http://${f.tenant.slug}.localhost:${f.port}`;
  await page.goto(`${host}/control-panel`);
  t.is(await page.locator('h1').textContent(), `Sign in to ${f.tenant.name}`);
  await page.getByLabel('Email').fill(f.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  t.is(await page.locator('h1').textContent(), 'API clients');
  await page.getByLabel('Name').fill('Browser-made sync');
  await page.getByLabel('Acts as').selectOption({ label: 'svc@brw.test (viewer)' });
  await page.getByRole('button', { name: 'Create' }).click();
  const clientId = (await page.locator('#client-id').textContent())!;
  const secret = (await page.locator('#client-secret').textContent())!;
  const config = await f.configure(clientId, secret);
  const tokens = await client.clientCredentialsGrant(config);
  t.is((await f.hello(tokens.access_token)).json.data.hello, 'Hello, svc@brw.test!');
  // A reload posts the form again: nothing is created twice, and the secret is not shown again.
  await page.reload();
  t.regex((await page.getByRole('alert').textContent())!, /already sent/);
  t.false((await page.content()).includes(secret));
  t.is(await page.getByRole('row', { name: /Browser-made sync/ }).count(), 1);
  await page.getByRole('button', { name: 'Revoke Browser-made sync' }).click();
  t.regex((await page.getByRole('status').textContent())!, /is revoked/);
  t.is((await f.hello(tokens.access_token)).status, 401);
  await t.throwsAsync(client.clientCredentialsGrant(config));
  // The user's own page is one click away, named for what it lists; and back again.
  await page.getByRole('navigation').getByRole('link', { name: 'Apps you authorized' }).click();
  t.is(await page.locator('h1').textContent(), 'Apps you authorized');
  t.is(new URL(page.url()).pathname, '/account/applications');
  await page.getByRole('navigation').getByRole('link', { name: 'API clients' }).click();
  t.is(await page.locator('h1').textContent(), 'API clients');
  // A bookmark of the section's old address still opens it.
  await page.goto(`${host}/control-panel/authorized-applications`);
  t.is(new URL(page.url()).pathname, '/control-panel/api-clients');
  t.is(await page.locator('h1').textContent(), 'API clients');
  await page.context().close();
});
