import test from 'ava';
import pg from 'pg';
import { createRole } from '../../src/modules/users/roles.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import { hashPassword } from '../../src/modules/users/password.js';
import { hashSecret } from '../../src/modules/oauth/secrets.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { request } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { PgProxy } from '../helpers/pg-proxy.js';
import { basic, PASSWORD } from '../helpers/rest.js';

/**
 * Users and access tokens are cached per web process, and a change to them holds for every
 * request that starts after its commit (issue 23): the request's first statement reads the
 * tenant's access generation in its own round trip, and a user or token read at an older one is
 * read again before anything is answered. Not "within a second": the very next request, whether
 * or not the process has heard the database's notification yet, and whether or not the
 * connection that hears them is alive. Changes are made on a connection of the test's own, as
 * another web process, the CLI or an operator's SQL would make them, and the request follows at
 * once. The listener's connection goes through a proxy, so a test can make it go silent.
 */
let f: GraphQLFixture;
let other: pg.Client;
let direct: Awaited<ReturnType<typeof PgProxy.start>>;
test.serial.before(async () => {
  direct = await PgProxy.start(process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL!);
  f = await graphqlFixture('idx', { env: { DATABASE_DIRECT_URL: direct.url }, runtime: 'identity-exact' });
  other = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await other.connect();
  await f.ctx.rt.changes.ensureStarted();
});
test.after.always(async () => {
  await other?.end();
  await f?.close();
  await direct?.close();
});

const contacts = (email: string, password = PASSWORD) =>
  request(f.port, { path: '/api/v2/crm/contacts', host: `${f.tenant.slug}.localhost`, headers: { authorization: basic(email, password) } });
const locales = (token: string) => f.gql(token, '{ locales { edges { node { code } } } }');

async function newUser(email: string, role = 'admin'): Promise<void> {
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => createUser(db, { email, password: PASSWORD, role }));
}

const TRIES = 15;

test.serial('when an access token is revoked on another connection, then the very next request gets 401, every time', async (t) => {
  const token = await f.tokenFor(f.tenant, 'admin');
  const hash = hashSecret(token);
  for (let i = 0; i < TRIES; i++) {
    t.is((await locales(token)).status, 200, `try ${i}: before (a token no longer revoked is let in at once)`);
    t.is((await locales(token)).status, 200, `try ${i}: before, from the cache`);
    await other.query('update platform.oauth_tokens set revoked_at = now() where access_token_hash = $1', [hash]);
    const res = await locales(token);
    t.is(res.status, 401, `try ${i}: the revoked token was let in`);
    t.regex(res.headers['www-authenticate'] ?? '', /invalid_token/);
    await other.query('update platform.oauth_tokens set revoked_at = null where access_token_hash = $1', [hash]);
  }
});

test.serial(
  'when a user is deactivated on another connection, then the very next REST and GraphQL requests get 401, every time',
  async (t) => {
    const token = await f.tokenFor(f.tenant, 'admin');
    const tokenUser = (await other.query(`select email from "${f.tenant.schema}".users order by id desc limit 1`)).rows[0].email as string;
    for (let i = 0; i < TRIES; i++) {
      // A user each time: a refused request that finds no active user counts as a failed password
      // check, and an account's fifth from one address in an hour is slowed (429).
      const email = `off${i}@idx.test`;
      await newUser(email);
      t.is((await contacts(email)).status, 200, `try ${i}: before`);
      t.is((await contacts(email)).status, 200, `try ${i}: before, from the cache`);
      t.is((await locales(token)).status, 200, `try ${i}: before (GraphQL)`);
      t.is((await locales(token)).status, 200, `try ${i}: before (GraphQL), from the cache`);
      await other.query(`update "${f.tenant.schema}".users set is_active = false where email = any($1)`, [[email, tokenUser]]);
      const rest = await contacts(email);
      t.is(rest.status, 401, `try ${i}: REST let the deactivated user in: ${rest.text.slice(0, 100)}`);
      t.is((await locales(token)).status, 401, `try ${i}: GraphQL let the deactivated user in`);
      await other.query(`update "${f.tenant.schema}".users set is_active = true where email = $1`, [tokenUser]);
    }
  },
);

test.serial(
  'when a role loses a permission on another connection, then the very next request that needs it gets 403, every time',
  async (t) => {
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => createRole(db, { name: 'idx-reader', permissions: ['CONTACT_VIEW', 'EVENT_VIEW'] }));
    await newUser('reader@idx.test', 'idx-reader');
    for (let i = 0; i < TRIES; i++) {
      t.is((await contacts('reader@idx.test')).status, 200, `try ${i}: before`);
      t.is((await contacts('reader@idx.test')).status, 200, `try ${i}: before, from the cache`);
      await other.query(`update "${f.tenant.schema}".roles set permissions = '{EVENT_VIEW}' where name = 'idx-reader'`);
      const res = await contacts('reader@idx.test');
      t.is(res.status, 403, `try ${i}: the permission taken away was honoured`);
      t.is(res.json?.error?.code, 'permission_denied');
      // A permission granted is seen once the process has heard of it (milliseconds; see ListenedCache).
      await other.query(`update "${f.tenant.schema}".roles set permissions = '{CONTACT_VIEW,EVENT_VIEW}' where name = 'idx-reader'`);
      await f.ctx.rt.changes.caughtUp(f.ctx.rt.knex);
    }
  },
);

test.serial(
  "when a user's password is changed on another connection, then at once the old one gets 401 and the new one works",
  async (t) => {
    await newUser('pw@idx.test');
    t.is((await contacts('pw@idx.test')).status, 200);
    t.is((await contacts('pw@idx.test')).status, 200, 'from the cache');
    await other.query(`update "${f.tenant.schema}".users set password_hash = $1 where email = 'pw@idx.test'`, [
      await hashPassword('a-new-password-9'),
    ]);
    t.is((await contacts('pw@idx.test')).status, 401, 'the old password still worked');
    t.is((await contacts('pw@idx.test', 'a-new-password-9')).status, 200, 'the new password did not work yet');
  },
);

test.serial(
  'when the connection that hears the notifications goes silent as a user is deactivated, then the very next request gets 401',
  async (t) => {
    await newUser('silent@idx.test');
    t.is((await contacts('silent@idx.test')).status, 200);
    t.is((await contacts('silent@idx.test')).status, 200, 'from the cache');
    t.true(f.ctx.rt.changes.live, 'the listener hears the database');
    t.true(direct.freeze('lectern-changes') >= 1, "the listener's connection went silent");
    await other.query(`update "${f.tenant.schema}".users set is_active = false where email = 'silent@idx.test'`);
    t.is((await contacts('silent@idx.test')).status, 401, 'the deactivated user was let in while the listener heard nothing');
    // Users no change concerns are still answered (read again once, as the tenant's generation moved).
    t.is((await contacts(f.email)).status, 200);
    t.is((await contacts(f.email)).status, 200);
  },
);

test.serial(
  'when the connection that hears the notifications is terminated as a token is revoked, then the very next request gets 401',
  async (t) => {
    // The listener of the test before reconnects (through the proxy, not silent this time).
    for (let i = 0; i < 100 && !f.ctx.rt.changes.live; i++) await new Promise((r) => setTimeout(r, 50));
    const token = await f.tokenFor(f.tenant, 'admin');
    t.is((await locales(token)).status, 200);
    t.is((await locales(token)).status, 200, 'from the cache');
    // This process's listener only: other test files' processes keep theirs.
    const pid = f.ctx.rt.changes.pid;
    t.truthy(pid, 'the listener listens');
    await other.query(
      `select pg_terminate_backend(${pid}); update platform.oauth_tokens set revoked_at = now() where access_token_hash = '${hashSecret(token)}'`,
    );
    t.is((await locales(token)).status, 401, 'the revoked token was let in as the listener died');
  },
);

test.serial(
  "when a role loses a permission a cached user's request does not need, then the request still succeeds, however the process heard of it",
  async (t) => {
    for (let i = 0; i < 100 && !f.ctx.rt.changes.live; i++) await new Promise((r) => setTimeout(r, 50));
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => createRole(db, { name: 'idx-wide', permissions: ['CONTACT_VIEW', 'EVENT_VIEW'] }));
    await newUser('wide@idx.test', 'idx-wide');
    t.is((await contacts('wide@idx.test')).status, 200);
    t.is((await contacts('wide@idx.test')).status, 200, 'from the cache');
    // Silent: the process learns of the change only from the request's own first statement.
    t.true(direct.freeze('lectern-changes') >= 1);
    await other.query(`update "${f.tenant.schema}".roles set permissions = '{CONTACT_VIEW}' where name = 'idx-wide'`);
    t.is((await contacts('wide@idx.test')).status, 200, 'refused for a permission it did not use');
    await other.query(`update "${f.tenant.schema}".roles set permissions = '{}' where name = 'idx-wide'`);
    t.is((await contacts('wide@idx.test')).status, 403, 'and refused for the one it uses');
  },
);

test.serial(
  "when a tenant's schema does not count changes of its users (its migration 016 failed), then its users are not cached, and a deactivation holds at once",
  async (t) => {
    const quiet = await f.ctx.freshTenant('idxq');
    await other.query(`drop trigger users_counted on "${quiet.schema}".users`);
    await withTenant(f.ctx.rt.knex, quiet, (db) => createUser(db, { email: 'quiet@idx.test', password: PASSWORD, role: 'admin' }));
    const call = () =>
      request(f.port, {
        path: '/api/v2/crm/contacts',
        host: `${quiet.slug}.localhost`,
        headers: { authorization: basic('quiet@idx.test', PASSWORD) },
      });
    t.is((await call()).status, 200);
    t.is((await call()).status, 200);
    // Silent listener too: only reading the user again can tell.
    for (let i = 0; i < 100 && !f.ctx.rt.changes.live; i++) await new Promise((r) => setTimeout(r, 50));
    t.true(direct.freeze('lectern-changes') >= 1);
    await other.query(`update "${quiet.schema}".users set is_active = false where email = 'quiet@idx.test'`);
    t.is((await call()).status, 401, 'a user of a schema whose changes move no generation was served from the cache');
  },
);
