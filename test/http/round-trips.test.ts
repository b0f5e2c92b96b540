import test from 'ava';
import { PgProxy } from '../helpers/pg-proxy.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { hashPassword } from '../../src/modules/users/password.js';
import { within } from '../helpers/harness.js';

/**
 * Round trips to PostgreSQL per request, counted on the wire (a proxy between the web process's
 * pool and the server): an authenticated read is one round trip per statement it needs, with no
 * lookup of its user or token (cached) and no BEGIN or COMMIT; a write keeps its transaction.
 */
let f: GraphQLFixture;
let proxy: Awaited<ReturnType<typeof PgProxy.start>>;
// The listener's own connection (DATABASE_DIRECT_URL: straight to PostgreSQL when the pool goes through PgBouncer).
let direct: Awaited<ReturnType<typeof PgProxy.start>>;
const APP = 'lectern-roundtrips';
test.serial.before(async () => {
  proxy = await PgProxy.start(process.env.DATABASE_URL!);
  direct = await PgProxy.start(process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL!);
  f = await graphqlFixture('rtrip', { env: { DATABASE_URL: proxy.url, DATABASE_DIRECT_URL: direct.url }, runtime: 'roundtrips' });
  await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('contacts').insert([{ first_name: 'Ada', last_name: 'Lovelace', email: 'ada@rtrip.test' }]),
  );
});
test.after.always(async () => {
  await f?.close();
  await proxy?.close();
  await direct?.close();
});

/**
 * The round trips of the app's pool while `fn` runs, without the REST usage counts' flush: a timer
 * writes those every 5 s on the same pool, whatever the requests (none is per request).
 */
const tripsOf = async (fn: () => Promise<unknown>) => (await proxy.count(APP, fn)).filter((trip) => !/legacy_usage/.test(trip.sql));

const sqlOf = (trips: { sql: string }[]) => trips.map((t) => t.sql.replace(/\s+/g, ' ').slice(0, 160));

test.serial(
  'when an authenticated REST GET of one record is repeated, then it costs one round trip: no user lookup, no BEGIN or COMMIT',
  async (t) => {
    const [contact] = (await f.api('GET', 'crm/contacts')).json.contacts ?? (await f.api('GET', 'crm/contacts')).json;
    t.truthy(contact?.id);
    await f.api('GET', `crm/contacts/${contact.id}`);
    let status = 0;
    const trips = await tripsOf(async () => (status = (await f.api('GET', `crm/contacts/${contact.id}`)).status));
    t.is(status, 200);
    t.is(trips.length, 1, sqlOf(trips).join('\n'));
    t.regex(trips[0]!.sql, /set_config\('search_path', '[a-z0-9_]+', true\)/);
    t.regex(trips[0]!.sql, /set_config\('transaction_read_only', 'on', true\)/);
    t.regex(trips[0]!.sql, /from "?contacts"?/);
    t.notRegex(trips[0]!.sql, /\bBEGIN\b|\bCOMMIT\b/);
  },
);

test.serial('when a REST POST writes, then it keeps its transaction (BEGIN ... COMMIT)', async (t) => {
  await f.api('GET', 'crm/contacts');
  let status = 0;
  const trips = await tripsOf(
    async () =>
      (status = (await f.api('POST', 'crm/contacts', { first_name: 'Grace', last_name: 'Hopper', email: 'grace@rtrip.test' })).status),
  );
  t.is(status, 200, 'created');
  t.regex(trips[0]!.sql, /^BEGIN;/);
  t.is(trips.at(-1)!.sql, 'COMMIT');
});

test.serial(
  'when a GraphQL query is repeated with the same token, then neither the token nor the user is read again, and each statement is one round trip',
  async (t) => {
    const query = '{ locales { edges { node { code } } } }';
    await f.gql(f.admin, query);
    let status = 0;
    const trips = await tripsOf(async () => (status = (await f.gql(f.admin, query)).status));
    t.is(status, 200);
    t.is(trips.length, 1, sqlOf(trips).join('\n'));
    t.notRegex(trips[0]!.sql, /oauth_tokens|users/);
    t.regex(trips[0]!.sql, /locales/);
  },
);

test.serial('when a GraphQL mutation writes, then it runs in one transaction', async (t) => {
  await f.gql(f.admin, '{ locales { edges { node { code } } } }');
  const fr = await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('locales').where({ code: 'fr' }).first('id'));
  let answer: unknown;
  const trips = await tripsOf(
    async () =>
      (answer = (
        await f.gql(f.admin, `mutation { locale { enable(localeId: "${toGlobalId('Locale', fr.id)}") { locale { code supported } } } }`)
      ).json),
  );
  t.deepEqual(answer, { data: { locale: { enable: { locale: { code: 'fr', supported: true } } } } });
  t.regex(trips[0]?.sql ?? '', /^BEGIN;/, sqlOf(trips).join('\n'));
  t.is(trips.at(-1)!.sql, 'COMMIT');
});

test.serial(
  "when the connection that receives the database's notifications goes silent, then within seconds nothing is served from the caches",
  async (t) => {
    t.is((await f.api('GET', 'crm/contacts')).status, 200);
    t.is((await f.api('GET', 'crm/contacts')).status, 200, 'served from the cache');
    t.true(direct.freeze('lectern-changes') >= 1, "the listener's connection went silent");
    // A change made now is announced to a connection that hears nothing.
    await withTenant(f.ctx.rt.knex, f.tenant, async (db) =>
      db('users')
        .where({ email: f.email })
        .update({ password_hash: await hashPassword('changed-while-silent') }),
    );
    t.not(
      await within(3000, async () => (await f.api('GET', 'crm/contacts')).status === 401),
      undefined,
      'the old password still worked 3 s later',
    );
  },
);
