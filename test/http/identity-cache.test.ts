import test from 'ava';
import pg from 'pg';
import { createRole } from '../../src/modules/users/roles.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import { hashPassword } from '../../src/modules/users/password.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { createTenant, dropTenant } from '../../src/platform/tenancy/provision.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { request, within } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { basic, PASSWORD } from '../helpers/rest.js';

/**
 * Users and access tokens are cached per web process (no lookup per request); every change to
 * them reaches every process through the database's notifications and takes effect within a
 * second. Changes here are made on a connection of the test's own, as another process, the CLI
 * or an operator's SQL would make them.
 */
let f: GraphQLFixture;
let other: pg.Client;
let b: Tenant;
test.serial.before(async () => {
  f = await graphqlFixture('idc');
  other = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await other.connect();
  b = await f.ctx.freshTenant('idcb');
});
test.after.always(async () => {
  await other?.end();
  await f?.close();
});

const contacts = (tenant: Tenant, email: string, password: string) =>
  request(f.port, { path: '/api/v2/crm/contacts', host: `${tenant.slug}.localhost`, headers: { authorization: basic(email, password) } });

async function newUser(tenant: Tenant, email: string, role = 'admin', password = PASSWORD): Promise<void> {
  await withTenant(f.ctx.rt.knex, tenant, (db) => createUser(db, { email, password, role }));
}

test.serial("when a user's password is changed elsewhere, then within a second the old one gets 401 and the new one works", async (t) => {
  await newUser(f.tenant, 'pw@idc.test');
  t.is((await contacts(f.tenant, 'pw@idc.test', PASSWORD)).status, 200);
  t.is((await contacts(f.tenant, 'pw@idc.test', PASSWORD)).status, 200, 'served from the cache now');
  await other.query(`update "${f.tenant.schema}".users set password_hash = $1 where email = 'pw@idc.test'`, [
    await hashPassword('a-new-password-2'),
  ]);
  const took = await within(1000, async () => (await contacts(f.tenant, 'pw@idc.test', PASSWORD)).status === 401);
  t.not(took, undefined, 'the old password still worked a second after the change');
  t.is((await contacts(f.tenant, 'pw@idc.test', 'a-new-password-2')).status, 200);
});

test.serial('when a user is deactivated elsewhere, then within a second REST and GraphQL refuse them', async (t) => {
  await newUser(f.tenant, 'gone@idc.test');
  const token = await f.tokenFor(f.tenant, 'admin');
  const tokenUser = (await other.query(`select u.email from "${f.tenant.schema}".users u order by u.id desc limit 1`)).rows[0]
    .email as string;
  t.is((await contacts(f.tenant, 'gone@idc.test', PASSWORD)).status, 200);
  t.is((await f.gql(token, '{ locales { edges { node { code } } } }')).status, 200);
  t.is((await f.gql(token, '{ locales { edges { node { code } } } }')).status, 200);
  await other.query(`update "${f.tenant.schema}".users set is_active = false where email = any($1)`, [['gone@idc.test', tokenUser]]);
  t.not(await within(1000, async () => (await contacts(f.tenant, 'gone@idc.test', PASSWORD)).status === 401), undefined, 'REST');
  t.not(
    await within(1000, async () => (await f.gql(token, '{ locales { edges { node { code } } } }')).status === 401),
    undefined,
    'GraphQL',
  );
});

test.serial('when a role loses a permission elsewhere, then within a second its users get 403', async (t) => {
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => createRole(db, { name: 'crm-reader', permissions: ['CONTACT_VIEW'] }));
  await newUser(f.tenant, 'reader@idc.test', 'crm-reader');
  t.is((await contacts(f.tenant, 'reader@idc.test', PASSWORD)).status, 200);
  t.is((await contacts(f.tenant, 'reader@idc.test', PASSWORD)).status, 200);
  await other.query(`update "${f.tenant.schema}".roles set permissions = '{}' where name = 'crm-reader'`);
  t.not(await within(1000, async () => (await contacts(f.tenant, 'reader@idc.test', PASSWORD)).status === 403), undefined);
});

test.serial('when an access token is revoked elsewhere, then within a second it gets 401', async (t) => {
  const token = await f.tokenFor(f.tenant, 'admin');
  t.is((await f.gql(token, '{ locales { edges { node { code } } } }')).status, 200);
  t.is((await f.gql(token, '{ locales { edges { node { code } } } }')).status, 200);
  await other.query(`update platform.oauth_tokens set revoked_at = now() where revoked_at is null and tenant_id = $1`, [f.tenant.id]);
  t.not(await within(1000, async () => (await f.gql(token, '{ locales { edges { node { code } } } }')).status === 401), undefined);
});

test.serial("when a user of tenant A is cached, then it is never used on tenant B's host, whatever the credentials", async (t) => {
  // The same email in both tenants: admin in A; in B another password and a role that cannot see contacts.
  await newUser(f.tenant, 'same@idc.test', 'admin');
  await withTenant(f.ctx.rt.knex, b, (db) => createRole(db, { name: 'no-crm', permissions: ['EVENT_VIEW'] }));
  await newUser(b, 'same@idc.test', 'no-crm', 'b-password-000');
  t.is((await contacts(f.tenant, 'same@idc.test', PASSWORD)).status, 200);
  t.is((await contacts(f.tenant, 'same@idc.test', PASSWORD)).status, 200, "A's user cached");
  t.is((await contacts(b, 'same@idc.test', PASSWORD)).status, 401, "A's password on B's host");
  t.is((await contacts(b, 'same@idc.test', 'b-password-000')).status, 403, "B's user, with B's role");
  t.is((await contacts(b, 'same@idc.test', 'b-password-000')).status, 403, "B's user, cached");
  t.is((await contacts(f.tenant, 'same@idc.test', 'b-password-000')).status, 401, "B's password on A's host");
  t.is((await contacts(f.tenant, 'same@idc.test', PASSWORD)).status, 200, 'A unchanged');
  // A user only A has is unknown on B's host, cached or not.
  t.is((await contacts(b, f.email, PASSWORD)).status, 401);
  // A token of A is refused on B's host though A's token and user are cached.
  const token = await f.tokenFor(f.tenant, 'admin');
  t.is((await f.gql(token, '{ locales { edges { node { code } } } }')).status, 200);
  t.is((await f.gql(token, '{ locales { edges { node { code } } } }', undefined, { host: `${b.slug}.localhost` })).status, 401);
});

test.serial(
  'when the process loses its notifications connection and a change happens meanwhile, then the change still takes effect',
  async (t) => {
    await newUser(f.tenant, 'cut@idc.test');
    t.is((await contacts(f.tenant, 'cut@idc.test', PASSWORD)).status, 200);
    t.is((await contacts(f.tenant, 'cut@idc.test', PASSWORD)).status, 200);
    // This process's listener only: other test files' processes keep theirs.
    const cut = await other.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'lectern-changes' and pid = $1`,
      [f.ctx.rt.changes.pid],
    );
    t.is(cut.rowCount, 1, 'the listener was found and cut');
    await other.query(`update "${f.tenant.schema}".users set password_hash = $1 where email = 'cut@idc.test'`, [
      await hashPassword('after-the-cut-3'),
    ]);
    t.not(await within(1500, async () => (await contacts(f.tenant, 'cut@idc.test', PASSWORD)).status === 401), undefined);
    t.is((await contacts(f.tenant, 'cut@idc.test', 'after-the-cut-3')).status, 200);
    // And it listens again: later changes are still seen.
    await new Promise((r) => setTimeout(r, 1200));
    t.is((await contacts(f.tenant, 'cut@idc.test', 'after-the-cut-3')).status, 200);
    await other.query(`update "${f.tenant.schema}".users set is_active = false where email = 'cut@idc.test'`);
    t.not(await within(1000, async () => (await contacts(f.tenant, 'cut@idc.test', 'after-the-cut-3')).status === 401), undefined);
  },
);

test.serial('when a change has been committed, then after changes.caughtUp() the very next request sees it', async (t) => {
  await newUser(f.tenant, 'sync@idc.test');
  t.is((await contacts(f.tenant, 'sync@idc.test', PASSWORD)).status, 200);
  t.is((await contacts(f.tenant, 'sync@idc.test', PASSWORD)).status, 200);
  await other.query(`update "${f.tenant.schema}".users set is_active = false where email = 'sync@idc.test'`);
  await f.ctx.rt.changes.caughtUp(f.ctx.rt.knex);
  t.is((await contacts(f.tenant, 'sync@idc.test', PASSWORD)).status, 401);
});

test.serial(
  'when a tenant is dropped and made again under the same address, then users cached for the old one are unknown to the new one',
  async (t) => {
    const old = await f.ctx.freshTenant('idcre');
    await newUser(old, 'old@idc.test');
    t.is((await contacts(old, 'old@idc.test', PASSWORD)).status, 200);
    t.is((await contacts(old, 'old@idc.test', PASSWORD)).status, 200, 'cached');
    await dropTenant(f.ctx.rt.knex, old.slug);
    const again = await createTenant(f.ctx.rt.knex, { slug: old.slug, name: 'Made again' });
    f.ctx.tenants.push(again);
    t.is(again.schema, old.schema);
    t.is((await contacts(again, 'old@idc.test', PASSWORD)).status, 401);
  },
);

test.serial(
  "when a tenant's schema does not announce changes of its users (its migration failed), then its users are not cached",
  async (t) => {
    const quiet = await f.ctx.freshTenant('idcq');
    await other.query(`drop trigger users_changed on "${quiet.schema}".users`);
    await newUser(quiet, 'quiet@idc.test');
    t.is((await contacts(quiet, 'quiet@idc.test', PASSWORD)).status, 200);
    t.is((await contacts(quiet, 'quiet@idc.test', PASSWORD)).status, 200);
    await other.query(`update "${quiet.schema}".users set is_active = false where email = 'quiet@idc.test'`);
    t.is((await contacts(quiet, 'quiet@idc.test', PASSWORD)).status, 401, 'at once: it was read again, not cached');
  },
);
