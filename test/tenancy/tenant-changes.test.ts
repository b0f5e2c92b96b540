import test from 'ava';
import pg from 'pg';
import { createServiceClient } from '../../src/modules/oauth/clients.service.js';
import { addPortal } from '../../src/modules/portals/portals.service.js';
import { createTenant } from '../../src/platform/tenancy/provision.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { hex, request } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { basic, PASSWORD } from '../helpers/rest.js';

/**
 * Tenants and portals are looked up from a per-process cache (TENANT_CACHE_TTL_MS, 30 s by
 * default, as here), and a change to them takes effect at once (issue 23): a tenant suspended or
 * removed refuses the very next API request (its first statement checks the tenant, in its own
 * round trip), and every tenant or portal change is announced by the database, so every web
 * process forgets its lookups as soon as it hears of it (`changes.caughtUp()`: it has). Changes
 * are made on a connection of the test's own, as another process or an operator's SQL would.
 */
let f: GraphQLFixture;
let other: pg.Client;
test.serial.before(async () => {
  f = await graphqlFixture('tch', { env: { TENANT_CACHE_TTL_MS: '30000' } });
  other = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await other.connect();
  await f.ctx.rt.changes.ensureStarted();
});
test.after.always(async () => {
  await other?.end();
  await f?.close();
});

const caughtUp = () => f.ctx.rt.changes.caughtUp(f.ctx.rt.knex);
const setStatus = (tenant: Tenant, status: string) =>
  other.query('update platform.tenants set status = $1 where id = $2', [status, tenant.id]);
const contacts = (tenant: Tenant, email: string) =>
  request(f.port, { path: '/api/v2/crm/contacts', host: `${tenant.slug}.localhost`, headers: { authorization: basic(email, PASSWORD) } });
const locales = (token: string) => f.gql(token, '{ locales { edges { node { code } } } }');
const weblink = (host: string, headers: Record<string, string> = {}) =>
  request(f.port, {
    method: 'POST',
    path: '/weblink/graphql',
    host,
    headers: { 'content-type': 'application/json', ...headers },
    body: { query: '{ locales { code } }' },
  });

async function tenantWithUser(label: string): Promise<{ tenant: Tenant; email: string; token: string }> {
  const tenant = await f.ctx.freshTenant(label);
  const email = `api@${label}.test`;
  await f.addUser(tenant, email, 'admin');
  const token = await f.tokenFor(tenant, 'admin');
  return { tenant, email, token };
}

test.serial(
  'when a tenant is suspended on another connection, then its very next REST, GraphQL and WebLink requests are refused',
  async (t) => {
    const { tenant, email, token } = await tenantWithUser('tchs');
    for (let i = 0; i < 2; i++) {
      t.is((await contacts(tenant, email)).status, 200, 'REST before');
      t.is((await locales(token)).status, 200, 'GraphQL before');
      t.is((await weblink(`${tenant.slug}.localhost`)).status, 200, 'WebLink before');
    }
    await setStatus(tenant, 'suspended');
    const rest = await contacts(tenant, email);
    t.is(rest.status, 404, "REST let a suspended tenant's user in");
    t.is(rest.json?.error?.code, 'tenant_not_found');
    t.is((await locales(token)).status, 401, "GraphQL let a suspended tenant's token in");
    t.is((await weblink(`${tenant.slug}.localhost`)).status, 404, 'WebLink answered for a suspended tenant');
    // Active again: answered again as soon as the process has heard of it.
    await setStatus(tenant, 'active');
    await caughtUp();
    t.is((await contacts(tenant, email)).status, 200);
    t.is((await locales(token)).status, 200);
  },
);

test.serial('when a tenant is suspended, then once the process has heard of it, its token endpoint and pages refuse it too', async (t) => {
  const { tenant } = await tenantWithUser('tchp');
  await f.addUser(tenant, 'svc@tchp.test', 'admin');
  const creds = await createServiceClient(f.ctx.rt.knex, tenant, { name: 'svc', serviceUser: 'svc@tchp.test' });
  const tokenRequest = () =>
    request(f.port, {
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: creds.clientId,
        client_secret: creds.clientSecret,
      }).toString(),
    });
  t.is((await tokenRequest()).status, 200);
  t.is((await request(f.port, { path: '/', host: `${tenant.slug}.localhost` })).status, 200);
  await setStatus(tenant, 'suspended');
  await caughtUp();
  t.not((await tokenRequest()).status, 200, 'a token was issued for a suspended tenant');
  t.is((await request(f.port, { path: '/', host: `${tenant.slug}.localhost` })).status, 404, 'its host still answered');
});

test.serial('when a tenant is removed on another connection, then its very next request is refused', async (t) => {
  const { tenant, email, token } = await tenantWithUser('tchr');
  t.is((await contacts(tenant, email)).status, 200);
  t.is((await contacts(tenant, email)).status, 200);
  t.is((await locales(token)).status, 200);
  // Its row only (the schema stays): as an operator would take a tenant out of service.
  await other.query('delete from platform.tenants where id = $1', [tenant.id]);
  t.is((await contacts(tenant, email)).status, 404, "REST let a removed tenant's user in");
  t.is((await locales(token)).status, 401, "GraphQL let a removed tenant's token in");
  await other.query(`drop schema "${tenant.schema}" cascade`);
});

test.serial(
  'when a tenant is made, then once the process has heard of it its host answers, though it was unknown a moment before',
  async (t) => {
    const slug = `t-tchn-${hex(3)}`;
    t.is((await request(f.port, { path: '/', host: `${slug}.localhost` })).status, 404, 'unknown at first');
    const tenant = await createTenant(f.ctx.rt.knex, { slug, name: 'New' });
    f.ctx.tenants.push(tenant);
    await caughtUp();
    t.is((await request(f.port, { path: '/', host: `${slug}.localhost` })).status, 200, "the new tenant's host was still unknown");
  },
);

test.serial('when a portal is removed on another connection, then once the process has heard of it its tokens are refused', async (t) => {
  const domain = `site-${hex(3)}.tch.test`;
  await addPortal(f.ctx.rt.knex, f.tenant, { domain });
  const guest = await request(f.port, {
    method: 'POST',
    path: '/portal/guest',
    host: 'localhost',
    headers: { 'content-type': 'application/json' },
    body: { domain },
  });
  t.is(guest.status, 200, guest.text);
  const portalToken = guest.json.portal_token as string;
  const viaPortal = () => weblink('localhost', { 'weblink-portal': domain, authorization: `Bearer ${portalToken}` });
  t.is((await viaPortal()).status, 200);
  t.is((await viaPortal()).status, 200);
  await other.query('delete from platform.portals where domain = $1', [domain]);
  await caughtUp();
  t.not((await viaPortal()).status, 200, "the removed portal's token was still let in");
});
