import test from 'ava';
import { createApp } from '../../src/app/web.js';
import { startHttpServer } from '../../src/kit/http/server.js';
import { enableLocale } from '../../src/modules/locales/locales.service.js';
import { signPortalToken, verifyPortalToken } from '../../src/modules/portals/portal-tokens.js';
import { addPortal } from '../../src/modules/portals/portals.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { Browser } from '../helpers/browser.js';
import { hex, request, runTs } from '../helpers/harness.js';
import { PASSWORD, restFixture, type RestFixture } from '../helpers/rest.js';

/**
 * Portals as real WebLink websites use them: a guest token from `POST /portal/guest` for the
 * portal's domain, then WebLink requests on the platform address naming the portal
 * (`weblink-portal`) with the token (`Authorization: Bearer`), answered by the portal's instance.
 * Also: the instance's own address as before, the CLI and the Control Panel.
 */
let f: RestFixture;
const METRICS = `metrics-${hex(12)}`;
let other: Tenant;
const run = hex(3);
const domainA = `acme-${run}.administrateweblink.test`;
const domainB = `courses.other-${run}.test`;

// Portal lookups are not cached here (TENANT_CACHE_TTL_MS=0), so a removal is seen at once.
test.serial.before(async () => {
  f = await restFixture('wpt', { TENANT_CACHE_TTL_MS: '0', METRICS_TOKEN: METRICS });
  other = await f.ctx.freshTenant('wpt2');
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => enableLocale(db, 'fr'));
  await withTenant(f.ctx.rt.knex, other, (db) => enableLocale(db, 'de'));
  await addPortal(f.ctx.rt.knex, f.tenant, { domain: domainA });
  await addPortal(f.ctx.rt.knex, other, { domain: domainB });
});
test.after.always(async () => f?.close());

const CLIENT_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/plain, */*' };

const guest = (domain: unknown, opts: { host?: string; from?: string; port?: number } = {}) =>
  request(opts.port ?? f.port, {
    method: 'POST',
    path: '/portal/guest',
    host: opts.host ?? 'localhost',
    headers: CLIENT_HEADERS,
    body: { domain },
    ...(opts.from ? { from: opts.from } : {}),
  });

async function tokenFor(domain: string): Promise<string> {
  const res = await guest(domain);
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.json.portal_token as string;
}

const QUERY = '{ __typename locales { code } }';
const weblink = (opts: { portal?: string; token?: string; host?: string; path?: string; headers?: Record<string, string> } = {}) =>
  request(f.port, {
    method: 'POST',
    path: opts.path ?? '/weblink/graphql',
    host: opts.host ?? 'localhost',
    headers: {
      ...CLIENT_HEADERS,
      ...(opts.portal ? { 'weblink-portal': opts.portal } : {}),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers,
    },
    body: { query: QUERY, variables: {} },
  });
const codes = (res: { json: { data: { locales: { code: string }[] } } }) => res.json.data.locales.map((l) => l.code).sort();

test.serial(
  "when a website gets a guest token for its portal, then WebLink on the platform address answers with that instance's catalogue",
  async (t) => {
    const res = await guest(domainA);
    t.is(res.status, 200, res.text);
    t.regex(String(res.headers['content-type']), /^application\/json/);
    t.is(res.headers['cache-control'], 'no-store');
    t.deepEqual(Object.keys(res.json).sort(), ['expires_in', 'portal_token']);
    t.is(res.json.expires_in, 7200);
    const answer = await weblink({ portal: domainA, token: res.json.portal_token, headers: { 'weblink-client': 'AB-booking-portal' } });
    t.is(answer.status, 200, answer.text);
    t.is(answer.json.data.__typename, 'Query');
    t.true(codes(answer).includes('fr'));
    t.false(codes(answer).includes('de'));
    t.truthy(answer.headers['ratelimit-remaining']);
    // The other portal's token answers with the other instance.
    const theirs = await weblink({ portal: domainB, token: await tokenFor(domainB) });
    t.is(theirs.status, 200, theirs.text);
    t.true(codes(theirs).includes('de'));
    t.false(codes(theirs).includes('fr'));
    // weblink-client is recorded, as a label of the WebLink request counter.
    const metrics = await request(f.port, { path: '/metrics', headers: { authorization: `Bearer ${METRICS}` } });
    t.regex(metrics.text, /weblink_requests_total\{via="portal",client="AB-booking-portal",status="200"\} 1/);
  },
);

test('portal tokens: the newest key signs, every listed key verifies (rotation), and they last two hours', (t) => {
  const old = 'o'.repeat(32);
  const now = Date.now();
  const { token, claims } = signPortalToken([old], { portalId: 7, tenantId: 3 }, now);
  t.is(claims.expiresAt, Math.floor(now / 1000) + 7200);
  t.like(verifyPortalToken(['n'.repeat(32), old], token, now), { ok: true, claims: { portalId: 7, tenantId: 3 } });
  t.like(verifyPortalToken(['n'.repeat(32)], token, now), { ok: false, reason: 'invalid' });
  t.like(verifyPortalToken([old], token, now + 7200_000), { ok: false, reason: 'expired' });
});

test.serial('the token service answers on instance addresses too, and takes the domain in any case', async (t) => {
  const res = await guest(domainA.toUpperCase(), { host: `${other.slug}.localhost` });
  t.is(res.status, 200, res.text);
  t.is((await weblink({ portal: domainA, token: res.json.portal_token })).status, 200);
});

test.serial("when the domain is no portal, then 404 in the app's error shape; a body without a domain is 400", async (t) => {
  const unknown = await guest(`nobody-${run}.example`);
  t.is(unknown.status, 404);
  t.is(unknown.json.error.code, 'portal_not_found');
  for (const body of [{}, { domain: 42 }, null]) {
    const bad = await request(f.port, { method: 'POST', path: '/portal/guest', headers: CLIENT_HEADERS, rawBody: JSON.stringify(body) });
    t.is(bad.status, 400, JSON.stringify(body));
    t.truthy(bad.json.error.code);
  }
  const notAHost = await guest('https://x.example/some/path');
  t.is(notAHost.status, 400);
  t.is(notAHost.json.error.code, 'invalid_domain');
  const broken = await request(f.port, { method: 'POST', path: '/portal/guest', headers: CLIENT_HEADERS, rawBody: '{"domain":' });
  t.is(broken.status, 400);
  t.is(broken.json.error.code, 'invalid_json');
});

test.serial(
  "on the platform address: a missing, malformed, forged, expired or other portal's token is 401 with WWW-Authenticate; an unknown portal 404",
  async (t) => {
    const token = await tokenFor(domainA);
    const tokenB = await tokenFor(domainB);
    const claims = JSON.parse(Buffer.from(token.slice(4, token.lastIndexOf('.')), 'base64url').toString()) as { p: number; t: number };
    const expired = signPortalToken(
      f.ctx.rt.config.portalTokenKeys,
      { portalId: claims.p, tenantId: claims.t },
      Date.now() - 3 * 3600_000,
    ).token;
    const forged = signPortalToken(['x'.repeat(40)], { portalId: claims.p, tenantId: claims.t }).token;
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;

    const missing = await weblink({ portal: domainA });
    t.is(missing.status, 401);
    t.regex(String(missing.headers['www-authenticate']), /^Bearer realm="Lectern WebLink"$/);
    t.is(missing.json.errors[0].extensions.code, 'UNAUTHENTICATED');
    for (const [what, bad] of [
      ['expired', expired],
      ['forged', forged],
      ['tampered', tampered],
      ["other portal's", tokenB],
      ['garbage', 'not-a-token'],
    ] as const) {
      const res = await weblink({ portal: domainA, token: bad });
      t.is(res.status, 401, what);
      t.regex(String(res.headers['www-authenticate']), /^Bearer .*error="invalid_token"/, what);
      t.regex(String(res.headers['content-type']), /json/, what);
      t.is(res.json.errors[0].extensions.code, 'UNAUTHENTICATED', what);
      t.is(res.json.data, undefined, what);
    }
    t.regex((await weblink({ portal: domainA, token: expired })).json.errors[0].message, /expired/);
    const notBearer = await weblink({ portal: domainA, headers: { authorization: 'Basic eDp5' } });
    t.is(notBearer.status, 401);

    const unknown = await weblink({ portal: `nobody-${run}.example`, token });
    t.is(unknown.status, 404);
    t.is(unknown.json.errors[0].extensions.code, 'NOT_FOUND');
    const noPortal = await weblink({ token });
    t.is(noPortal.status, 404);
  },
);

test.serial('the trailing-slash address works, with CORS allowing the portal headers', async (t) => {
  const token = await tokenFor(domainA);
  const res = await weblink({ path: '/weblink/graphql/', portal: domainA, token });
  t.is(res.status, 200, res.text);
  t.true(codes(res).includes('fr'));
  const preflight = await request(f.port, {
    method: 'OPTIONS',
    path: '/weblink/graphql/',
    headers: {
      origin: 'https://site.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,weblink-portal,weblink-client,content-type',
    },
  });
  t.is(preflight.status, 204);
  for (const h of ['authorization', 'weblink-portal', 'weblink-client', 'weblink-content-locale'])
    t.true(String(preflight.headers['access-control-allow-headers']).toLowerCase().includes(h), h);
  const tokenPreflight = await request(f.port, {
    method: 'OPTIONS',
    path: '/portal/guest',
    headers: { origin: 'https://site.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  t.is(tokenPreflight.status, 204);
  t.is(tokenPreflight.headers['access-control-allow-origin'], '*');
});

test.serial("on an instance's own address: no token works as before; a token must be valid and for that instance", async (t) => {
  const host = `${f.tenant.slug}.localhost`;
  const anonymous = await weblink({ host });
  t.is(anonymous.status, 200, anonymous.text);
  t.true(codes(anonymous).includes('fr'));
  const slash = await weblink({ host, path: '/weblink/graphql/' });
  t.is(slash.status, 200);
  t.is((await weblink({ host, token: await tokenFor(domainA) })).status, 200);
  const theirs = await weblink({ host, token: await tokenFor(domainB) });
  t.is(theirs.status, 401);
  t.regex(String(theirs.headers['www-authenticate']), /error="invalid_token"/);
  t.is((await weblink({ host, token: 'lpt_nope.nope' })).status, 401);
});

test.serial('when a portal is removed, then its tokens stop working and it gets no new ones', async (t) => {
  const domain = `gone-${run}.example`;
  await addPortal(f.ctx.rt.knex, f.tenant, { domain });
  const token = await tokenFor(domain);
  t.is((await weblink({ portal: domain, token })).status, 200);
  const removed = await runTs('src/cli/main.ts', ['portals:remove', '--domain', domain]);
  t.is(removed.code, 0, removed.stderr);
  t.like(JSON.parse(removed.stdout), { domain, tenant: f.tenant.slug, removed: true });
  t.is((await weblink({ portal: domain, token })).status, 404);
  t.is((await weblink({ host: `${f.tenant.slug}.localhost`, token })).status, 401);
  t.is((await guest(domain)).status, 404);
});

test.serial('a domain belongs to one instance: adding it to another is refused, and domains are normalised', async (t) => {
  const err = await t.throwsAsync(addPortal(f.ctx.rt.knex, other, { domain: domainA }));
  t.is((err as { status?: number }).status, 409);
  t.regex(err!.message, /portal of another instance/);
  const again = await t.throwsAsync(addPortal(f.ctx.rt.knex, f.tenant, { domain: `https://${domainA.toUpperCase()}/` }));
  t.regex(again!.message, /portal of this instance already/);
  for (const bad of ['https://x.example/path', 'x.example:8080', 'localhost', '1.2.3.4', 'a_b.example', `${'a'.repeat(64)}.example`]) {
    const refused = await t.throwsAsync(addPortal(f.ctx.rt.knex, f.tenant, { domain: bad }));
    t.is((refused as { status?: number }).status, 422, bad);
  }
  const normalised = await addPortal(f.ctx.rt.knex, f.tenant, { domain: `HTTPS://Www.Norm-${run}.Example/` });
  t.is(normalised.domain, `www.norm-${run}.example`);
});

test.serial('CLI: portals:add, portals:list and portals:remove', async (t) => {
  const domain = `cli-${run}.example`;
  const added = await runTs('src/cli/main.ts', ['portals:add', '--tenant', other.slug, '--domain', `https://${domain}/`]);
  t.is(added.code, 0, added.stderr);
  t.like(JSON.parse(added.stdout), { domain, tenant: other.slug });
  const taken = await runTs('src/cli/main.ts', ['portals:add', '--tenant', f.tenant.slug, '--domain', domain]);
  t.is(taken.code, 1);
  t.regex(taken.stderr, /portal of another instance/);
  const bad = await runTs('src/cli/main.ts', ['portals:add', '--tenant', f.tenant.slug, '--domain', 'not a domain']);
  t.is(bad.code, 1);
  t.regex(bad.stderr, /must be a website host name/);
  const listed = await runTs('src/cli/main.ts', ['portals:list', '--tenant', other.slug]);
  t.is(listed.code, 0, listed.stderr);
  t.deepEqual(
    JSON.parse(listed.stdout).map((p: { domain: string; tenant: string }) => [p.domain, p.tenant]),
    [
      [domainB, other.slug],
      [domain, other.slug],
    ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
  );
  const all = JSON.parse((await runTs('src/cli/main.ts', ['portals:list'])).stdout) as { domain: string; tenant: string }[];
  t.like(
    all.find((p) => p.domain === domainA),
    { tenant: f.tenant.slug },
  );
  const removed = await runTs('src/cli/main.ts', ['portals:remove', '--domain', domain]);
  t.is(removed.code, 0, removed.stderr);
  const gone = await runTs('src/cli/main.ts', ['portals:remove', '--domain', domain]);
  t.is(gone.code, 1);
  t.regex(gone.stderr, /No portal/);
  const usage = await runTs('src/cli/main.ts', ['portals:add', '--tenant', other.slug]);
  t.is(usage.code, 2);
  t.regex(usage.stderr, /--domain is required/);
});

test.serial(
  'Control Panel: an admin adds and removes portals (CSRF-protected); a viewer may not; signed out goes to sign-in',
  async (t) => {
    const host = `http://${f.tenant.slug}.localhost:${f.port}`;
    const section = '/control-panel/portals';
    const b = new Browser(f.port);
    const landed = await b.follow(`${host}${section}`);
    if (!('page' in landed)) throw new Error('expected a page');
    t.true(landed.url.includes('/control-panel/login'));
    const signedIn = await b.submit(landed.url, { email: f.email, password: PASSWORD });
    t.is(signedIn.location, `${host}${section}`);
    const list = await b.get(`${host}${section}`);
    t.is(list.status, 200);
    t.true(list.text.includes(domainA));
    t.false(list.text.includes(domainB), "only this instance's portals");

    const domain = `cp-${run}.example`;
    const added = await b.submit(`${host}${section}`, { domain: `https://${domain}/` }, { action: section });
    t.is(added.status, 200, added.text);
    t.regex(added.text, new RegExp(`${domain.replace(/\./g, '\\.')} is a portal of this instance now`));
    t.is((await guest(domain)).status, 200);
    const taken = await b.submit(`${host}${section}`, { domain: domainB }, { action: section });
    t.is(taken.status, 409);
    t.regex(taken.text, /portal of another instance/);
    const forged = await b.send('POST', `${host}${section}`, { form: { domain: `forged-${run}.example` } });
    t.is(forged.status, 403);
    t.false((await b.get(`${host}${section}`)).text.includes(`forged-${run}.example`));

    const removed = await b.submit(`${host}${section}`, {}, { action: `${section}/remove`, where: { domain } });
    t.is(removed.status, 200);
    t.regex(removed.text, /is removed/);
    t.is((await guest(domain)).status, 404);
    // Another instance's portal cannot be removed from here.
    const csrf = /name="_csrf" value="([^"]+)"/.exec(removed.text)![1]!;
    const theirs = await b.send('POST', `${host}${section}/remove`, { form: { _csrf: csrf, domain: domainB } });
    t.is(theirs.status, 404);
    t.is((await guest(domainB)).status, 200);

    await withTenant(f.ctx.rt.knex, f.tenant, (db) => createUser(db, { email: 'viewer@wpt.test', password: PASSWORD, role: 'viewer' }));
    const viewer = new Browser(f.port);
    const login = await viewer.follow(`${host}${section}`);
    if (!('page' in login)) throw new Error('expected a page');
    await viewer.submit(login.url, { email: 'viewer@wpt.test', password: PASSWORD });
    const refused = await viewer.get(`${host}${section}`);
    t.is(refused.status, 403);
    t.regex(refused.text, /WEBLINK_PORTALS_EDIT/);
  },
);

test.serial('POST /portal/guest is rate-limited per client address (WEBLINK_RATE_LIMIT a minute), with 429 and Retry-After', async (t) => {
  const rt = f.ctx.rt;
  const limited = await startHttpServer(createApp({ ...rt, config: { ...rt.config, weblinkRateLimit: 3 } }), 0, '127.0.0.1');
  try {
    const from = `127.0.0.${10 + Math.floor(Math.random() * 200)}`;
    const statuses = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await guest(domainA, { port: limited.port, from });
      statuses.push(last.status);
    }
    t.deepEqual(statuses, [200, 200, 200, 429]);
    t.is(last!.json.error.code, 'rate_limited');
    const retry = Number(last!.headers['retry-after']);
    t.true(retry >= 1 && retry <= 60, String(retry));
    // Unknown domains count too: the budget cannot be used to probe for portals.
    t.is((await guest(`nobody-${run}.example`, { port: limited.port, from })).status, 429);
    // Another address has its own budget.
    t.is((await guest(domainA, { port: limited.port, from: '127.0.0.250' })).status, 200);
  } finally {
    await limited.close(1000);
  }
});
