import test from 'ava';
import * as client from 'openid-client';
import { createServiceClient } from '../../src/modules/oauth/clients.service.js';
import { Browser } from '../helpers/browser.js';
import { within } from '../helpers/harness.js';
import { oauthFixture, type OAuthFixture } from '../helpers/oauth.js';
import { PASSWORD } from '../helpers/rest.js';

/**
 * The Control Panel's API clients section (client credentials an administrator creates) and a
 * user's "Apps you authorized" page, on a tenant's host, driven like a browser (cookie jar, forms
 * with their CSRF fields).
 */
let f: OAuthFixture;
let host: string;

test.serial.before(async () => {
  f = await oauthFixture('ocp');
  await f.addUser(f.tenant, 'svc@ocp.test', 'viewer');
  await f.addUser(f.tenant, 'viewer@ocp.test', 'viewer');
  host = `http://${f.tenant.slug}.localhost:${f.port}`;
});
test.after.always(async () => f?.close());

async function signIn(email = f.email, next = '/control-panel/api-clients'): Promise<Browser> {
  const b = new Browser(f.port);
  const landed = await b.follow(`${host}${next}`);
  if (!('page' in landed) || !landed.url.includes('/control-panel/login')) throw new Error('expected the sign-in page');
  const done = await b.submit(landed.url, { email, password: PASSWORD });
  if (!done.location) throw new Error(`sign-in failed: ${done.status}`);
  await b.follow(done.location);
  return b;
}

const apps = `/control-panel/api-clients`;
/** The section's address before it was named for what it does; bookmarks and links to it still work. */
const oldApps = '/control-panel/authorized-applications';

/** The text of a page without its markup (what a reader sees). */
const textOf = (page: string) => page.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

test.serial(
  'when a tenant admin creates client credentials, then the secret is shown once and they get tokens acting as the chosen user',
  async (t) => {
    const b = await signIn();
    t.regex(b.page!.text, /<h1>API clients<\/h1>/);
    const svcId = /<option value="(\d+)">svc@ocp\.test/.exec(b.page!.text)![1]!;
    const firstFormId = /name="form_id" value="([^"]+)"/.exec(b.page!.text)![1]!;
    const created = await b.submit(`${host}${apps}`, { name: 'Website bookings', service_user: svcId }, { action: apps });
    t.is(created.status, 200);
    const clientId = /id="client-id">([^<]+)</.exec(created.text)![1]!;
    const secret = /id="client-secret">([^<]+)</.exec(created.text)![1]!;
    const again = await b.get(`${host}${apps}`);
    t.true(again.text.includes(clientId));
    t.false(again.text.includes(secret), 'the secret is never shown again');
    // The same form sent again (a reload, the back button): nothing new, no secret.
    const resent = await b.send('POST', `${host}${apps}`, {
      form: {
        _csrf: /name="_csrf" value="([^"]+)"/.exec(created.text)![1]!,
        form_id: firstFormId,
        name: 'Website bookings',
        service_user: svcId,
      },
    });
    t.is(resent.status, 409);
    t.is((resent.text.match(/<tr><td>Website bookings<\/td>/g) ?? []).length, 1, 'still one row');
    const tokens = await client.clientCredentialsGrant(await f.configure(clientId, secret));
    t.is((await f.hello(tokens.access_token)).json.data.hello, 'Hello, svc@ocp.test!');
  },
);

test.serial('when a tenant admin revokes client credentials, then their tokens stop working and they get no new ones', async (t) => {
  const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'Old integration', serviceUser: 'svc@ocp.test' });
  const config = await f.configure(creds.clientId, creds.clientSecret);
  const tokens = await client.clientCredentialsGrant(config);
  const b = await signIn();
  const revoked = await b.submit(`${host}${apps}`, {}, { action: `${apps}/${creds.clientId}/revoke` });
  t.is(revoked.status, 200);
  t.regex(revoked.text, /is revoked/);
  t.not(
    await within(1000, async () => (await f.hello(tokens.access_token)).status === 401),
    undefined,
    'refused within a second (web processes cache tokens)',
  );
  await t.throwsAsync(client.clientCredentialsGrant(config));
});

test.serial('a user without the permission cannot open the section, and nobody signed out can', async (t) => {
  const anonymous = new Browser(f.port);
  const redirect = await anonymous.get(`${host}${apps}`);
  t.is(redirect.status, 302);
  t.is(redirect.location, `${host}/control-panel/login?next=${encodeURIComponent(apps)}`);
  const viewer = await signIn('viewer@ocp.test', '/account/applications');
  const refused = await viewer.get(`${host}${apps}`);
  t.is(refused.status, 403);
  t.regex(refused.text, /AUTHORIZED_APPLICATIONS_EDIT/);
});

test.serial("another tenant's client credentials cannot be revoked here, and a session does not cross hosts", async (t) => {
  const other = await f.ctx.freshTenant('ocpb');
  await f.addUser(other, 'svc@ocpb.test', 'viewer');
  const theirs = await createServiceClient(f.ctx.rt.knex, other, { name: 'Theirs', serviceUser: 'svc@ocpb.test' });
  const b = await signIn();
  const attempt = await b.send('POST', `${host}${apps}/${theirs.clientId}/revoke`, {
    form: { _csrf: /name="_csrf" value="([^"]+)"/.exec(b.page!.text)![1]! },
  });
  t.is(attempt.status, 404);
  t.true((await client.clientCredentialsGrant(await f.configure(theirs.clientId, theirs.clientSecret))).access_token.length > 10);
  // This browser's session belongs to this tenant's host; the other tenant's pages ask to sign in.
  const elsewhere = await b.get(`http://${other.slug}.localhost:${f.port}${apps}`);
  t.is(elsewhere.status, 302);
  t.regex(elsewhere.location ?? '', /\/control-panel\/login/);
});

test.serial('a form without its CSRF token is refused, and sign-in never redirects off the host', async (t) => {
  const b = await signIn();
  const forged = await b.send('POST', `${host}${apps}`, { form: { name: 'Forged', service_user: '1' } });
  t.is(forged.status, 403);
  t.false((await b.get(`${host}${apps}`)).text.includes('Forged'));
  const away = new Browser(f.port);
  const login = await away.get(`${host}/control-panel/login?next=${encodeURIComponent('//evil.example/x')}`);
  const done = await away.submit(`${host}/control-panel/login`, { email: f.email, password: PASSWORD });
  t.is(login.status, 200);
  t.is(done.location, `${host}${apps}`);
});

test.serial(
  'when a page is shown, then the sections are named by what they do: API clients (made here) and Apps you authorized (allowed by you)',
  async (t) => {
    const b = await signIn();
    const nav = /<nav>([\s\S]*?)<\/nav>/.exec(b.page!.text)![1]!;
    t.regex(nav, /<a href="\/control-panel\/api-clients">API clients<\/a>/);
    t.regex(nav, /<a href="\/account\/applications">Apps you authorized<\/a>/);
    t.regex(textOf(b.page!.text), /Create an API client/);
    const mine = await b.get(`${host}/account/applications`);
    t.is(mine.status, 200);
    t.regex(mine.text, /<h1>Apps you authorized<\/h1>/);
    t.regex(textOf(mine.text), /You have not authorized any app/);
    for (const page of [b.page!.text, mine.text]) {
      t.notRegex(textOf(page), /Authorized Applications|Authorized applications|My applications/i);
    }
  },
);

test.serial('when the old address of the section is asked, then it redirects to API clients for good, forms included', async (t) => {
  const b = await signIn();
  const moved = await b.get(`${host}${oldApps}?from=bookmark`);
  t.is(moved.status, 301);
  t.is(moved.location, `${host}${apps}?from=bookmark`);
  const followed = await b.follow(`${host}${oldApps}`);
  t.true('page' in followed && followed.url === `${host}${apps}` && followed.page.status === 200);
  // A form of a page loaded before the move: posted again to the new address, method and body kept.
  const creds = await createServiceClient(f.ctx.rt.knex, f.tenant, { name: 'Bookmarked', serviceUser: 'svc@ocp.test' });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(b.page!.text)![1]!;
  const revoke = await b.send('POST', `${host}${oldApps}/${creds.clientId}/revoke`, { form: { _csrf: csrf } });
  t.is(revoke.status, 308);
  t.is(revoke.location, `${host}${apps}/${creds.clientId}/revoke`);
  const reposted = await b.send('POST', revoke.location!, { form: { _csrf: csrf } });
  t.is(reposted.status, 200);
  t.regex(reposted.text, /Bookmarked is revoked/);
  // Signed out, the old address leads to sign-in by way of the new one.
  const anonymous = new Browser(f.port);
  t.is((await anonymous.get(`${host}${oldApps}`)).location, `${host}${apps}`);
});

test.serial("when a user removes an application's access, then its access and refresh tokens stop working", async (t) => {
  const { callback, verifier, state } = await f.authorize();
  const tokens = await client.authorizationCodeGrant(f.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  t.is((await f.hello(tokens.access_token)).status, 200);
  const b = await signIn(f.email, '/account/applications');
  t.true(b.page!.text.includes(f.integration.name));
  const removed = await b.submit(`${host}/account/applications`, {}, { action: `/account/applications/${f.integration.clientId}/remove` });
  t.regex(removed.text, /Access removed/);
  t.false(removed.text.includes(`Remove access of ${f.integration.name}`));
  t.not(
    await within(1000, async () => (await f.hello(tokens.access_token)).status === 401),
    undefined,
    'refused within a second (web processes cache tokens)',
  );
  const refresh = await t.throwsAsync(client.refreshTokenGrant(f.config, tokens.refresh_token!));
  t.is((refresh as unknown as { error?: string }).error, 'invalid_grant');
});
