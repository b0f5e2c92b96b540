import test from 'ava';
import { GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import pg from 'pg';
import { AppError } from '../../src/platform/errors.js';
import type { GraphQLContext } from '../../src/kit/graphql/context.js';
import { buildSchema } from '../../src/app/graphql-schema.js';
import { createLogger } from '../../src/platform/logger.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { buildWebLinkSchema } from '../../src/app/weblink-schema.js';
import { request, waitFor } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * What one request, or one tenant, may take of the database: filters are bounded and counted,
 * every request runs under a statement timeout, one tenant cannot hold the whole pool, a query
 * with more values than PostgreSQL can bind is refused before it is sent, and no log line
 * carries more than a bounded prefix of SQL.
 */
let f: GraphQLFixture;
let other: Tenant;
let otherToken: string;
const LOCK_KEY = 7_412_345;

/** Extra fields for tests: a statement that sleeps, and one that waits for an advisory lock the test holds. */
function withWaits(schema: GraphQLSchema): GraphQLSchema {
  const real = schema.toConfig();
  const query = real.query!.toConfig();
  return new GraphQLSchema({
    ...real,
    types: [],
    query: new GraphQLObjectType({
      ...query,
      fields: {
        ...query.fields,
        sleep: {
          type: new GraphQLNonNull(GraphQLString),
          args: { ms: { type: new GraphQLNonNull(GraphQLInt) } },
          resolve: async (_r: unknown, { ms }: { ms: number }, ctx: GraphQLContext) => {
            await ctx.db.raw('select pg_sleep(?)', [ms / 1000]);
            return 'awake';
          },
        },
        held: {
          type: new GraphQLNonNull(GraphQLString),
          resolve: async (_r: unknown, _a: unknown, ctx: GraphQLContext) => {
            await ctx.db.raw('select pg_advisory_xact_lock(?)', [LOCK_KEY]);
            return 'released';
          },
        },
      },
    }),
  });
}

/** `f`: short statement timeouts. `g`: the defaults (30 s, WebLink 5 s), a pool of 4 (a tenant may use 2 connections at once, its WebLink 1), and a second tenant. */
let g: GraphQLFixture;
const app = () => ({ graphqlSchema: withWaits(buildSchema()), weblinkSchema: withWaits(buildWebLinkSchema()) });

test.serial.before(async () => {
  f = await graphqlFixture('dbl', { env: { STATEMENT_TIMEOUT_MS: '1500', WEBLINK_STATEMENT_TIMEOUT_MS: '500' }, app: app() });
  g = await graphqlFixture('dblg', { env: { DB_POOL_MAX: '4' }, app: app() });
  other = await g.ctx.freshTenant('dblg2');
  otherToken = await g.tokenFor(other, 'admin');
});
test.after.always(async () => {
  await f?.close();
  await g?.close();
});

const weblinkOf =
  (fx: () => GraphQLFixture) =>
  (query: string, variables?: Record<string, unknown>, tenant: Tenant = fx().tenant) =>
    request(fx().port, {
      method: 'POST',
      path: '/weblink/graphql',
      host: `${tenant.slug}.localhost`,
      body: { query, ...(variables ? { variables } : {}) },
    });
const weblink = weblinkOf(() => f);

const titleFilters = (filters: number, values: number, field = 'title') =>
  Array.from({ length: filters }, (_, i) => ({
    field,
    operation: 'contains',
    values: Array.from({ length: values }, (_, v) => `word-${i}-${v}`),
  }));
const LIST = 'query ($filters: [CourseTemplateFieldGraphFilter]) { courseTemplates(filters: $filters) { edges { node { id } } } }';
/** The same list on WebLink (its courses are published course templates, their title is `name`). */
const WL_LIST = 'query ($filters: [CourseFieldFilter]) { courses(filters: $filters) { edges { node { id } } } }';
const nameFilters = (filters: number, values: number) => titleFilters(filters, values, 'name');

test('when a list is given more filters, or a filter more values, than it takes, then 400 naming the limit (Core and WebLink)', async (t) => {
  const tooMany = await weblink(WL_LIST, { filters: nameFilters(21, 1) });
  t.regex(tooMany.text, /at most 20 filters/, tooMany.text.slice(0, 300));
  const tooManyValues = await weblink(WL_LIST, { filters: nameFilters(1, 101) });
  t.regex(tooManyValues.text, /at most 100 values/, tooManyValues.text.slice(0, 300));
  const core = await f.gql(f.admin, LIST, { filters: titleFilters(21, 1) });
  t.regex(core.text, /at most 20 filters/, core.text.slice(0, 300));
  // Within the bounds, a list answers.
  const fine = await weblink(WL_LIST, { filters: nameFilters(2, 100) });
  t.is(fine.status, 200);
  t.deepEqual(fine.json.data?.courses?.edges, [], fine.text.slice(0, 300));
});

test('when the filters of one request add up past its budget, then it is refused, however they are spread over lists', async (t) => {
  // 3 aliased lists of 20 filters x 5 values = 300 filter values: each list is within bounds, the request is not.
  const query = `query ($f: [CourseFieldFilter]) { a: courses(filters: $f) { edges { node { id } } } b: courses(filters: $f) { edges { node { id } } } c: courses(filters: $f) { edges { node { id } } } }`;
  const res = await weblink(query, { f: nameFilters(20, 5) });
  t.regex(res.text, /at most 200 filter values/, res.text.slice(0, 300));
  t.notRegex(res.text, /"edges"/);
});

test('when an anonymous request carries more values than PostgreSQL can bind, then 400 at once, not 500', async (t) => {
  // 140 filters of 500 values: 70,000 parameters if it ever reached SQL.
  const res = await weblink(WL_LIST, { filters: nameFilters(140, 500) });
  t.is(res.status, 200, res.text.slice(0, 300)); // a GraphQL error, answered 200 to application/json
  t.regex(res.json.errors?.[0]?.message ?? '', /at most 20 filters/);
  t.notRegex(res.text, /Internal server error/);
});

test('when a statement would need more than 65,535 bound values, then it is refused before it is sent (400), whatever built it', async (t) => {
  const ids = Array.from({ length: 70_000 }, (_, i) => i + 1);
  const err = await t.throwsAsync(withTenant(f.ctx.rt.knex, f.tenant, (db) => db('contacts').whereIn('id', ids).select('id')));
  t.true(err instanceof AppError, String(err));
  t.is((err as AppError).status, 400);
  t.is((err as AppError).code, 'too_many_values');
});

test('when an error carries megabytes of SQL, then its log line keeps a bounded prefix', async (t) => {
  const lines: string[] = [];
  const log = createLogger({ logLevel: 'error' }, 'bounded', { write: (line: string) => void lines.push(line) });
  const sql = `select * from contacts where id in (${'$1, '.repeat(1_000_000)}$2)`;
  const err = Object.assign(new Error(`${sql} - bind message supplies 2 parameters`), {
    sql,
    bindings: Array.from({ length: 70_000 }, (_, i) => i),
  });
  log.error({ err }, 'request failed');
  t.is(lines.length, 1);
  t.true(lines[0]!.length < 20_000, `a log line of ${lines[0]!.length} characters`);
  t.regex(lines[0]!, /select \* from contacts/, 'the start of the SQL is kept');
});

test.serial(
  'when a request runs past its statement timeout, then it is stopped and answered 503, on Core (STATEMENT_TIMEOUT_MS) and WebLink (WEBLINK_STATEMENT_TIMEOUT_MS)',
  async (t) => {
    const started = Date.now();
    const core = await f.gql(f.admin, '{ sleep(ms: 20000) }');
    t.is(core.status, 503, core.text);
    t.is(core.json.errors[0].extensions.code, 'QUERY_TIMEOUT');
    t.true(Date.now() - started < 10000, 'stopped long before the statement would have ended');
    const wl = await weblink('{ sleep(ms: 20000) }');
    t.is(wl.status, 503, wl.text);
    // Under their limits both answer.
    t.is((await f.gql(f.admin, '{ sleep(ms: 100) }')).json.data?.sleep, 'awake');
    t.is((await weblink('{ sleep(ms: 100) }')).json.data?.sleep, 'awake');
  },
);

test.serial(
  "when one tenant's requests hold their database connections, then another tenant is still served, and the first tenant's WebLink cannot take its whole share",
  async (t) => {
    const gWeblink = weblinkOf(() => g);
    const holder = new pg.Client({ connectionString: g.ctx.rt.databaseUrl });
    await holder.connect();
    await holder.query('begin');
    await holder.query('select pg_advisory_xact_lock($1)', [LOCK_KEY]);
    try {
      const waitingInDb = async () =>
        Number(
          (
            await holder.query(`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and objid = $1`, [
              LOCK_KEY,
            ])
          ).rows[0].n,
        );
      // Tenant A: six anonymous WebLink requests, all waiting for the lock the test holds...
      const held = Array.from({ length: 6 }, () => gWeblink('{ held }'));
      await waitFor(async () => (await waitingInDb()) >= 1, 'the first WebLink request to wait for the lock', 5000, 20);
      await new Promise((r) => setTimeout(r, 300));
      t.is(await waitingInDb(), 1, "tenant A's WebLink holds one connection (a quarter of the pool), however many it sends");
      // ...and six of its own Core requests.
      held.push(...Array.from({ length: 6 }, () => g.gql(g.admin, '{ held }')));
      await waitFor(async () => (await waitingInDb()) >= 2, 'a Core request to wait for the lock', 5000, 20);
      await new Promise((r) => setTimeout(r, 300));
      t.is(await waitingInDb(), 2, 'tenant A holds two connections (half the pool), whatever it sends');
      // Tenant B is answered meanwhile, on Core and on WebLink.
      const inTime = <T>(p: Promise<T>) => Promise.race([p, new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), 5000))]);
      const b = await inTime(g.gql(otherToken, '{ locales { edges { node { code } } } }'));
      t.not(b, 'blocked', "tenant B waited for tenant A's connections");
      t.is((b as { status: number }).status, 200);
      const bWeblink = await inTime(gWeblink('{ locales { edges { node { code } } } }', undefined, other));
      t.not(bWeblink, 'blocked');
      await holder.query('commit');
      const answers = await Promise.all(held);
      t.deepEqual([...new Set(answers.map((a) => a.status))], [200], answers.map((a) => a.text.slice(0, 100)).join('\n'));
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
  },
);
