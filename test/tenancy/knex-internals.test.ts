import test from 'ava';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Model } from 'objection';
import { createKnex, type Knex } from '../../src/platform/db/knex.js';
import { runTransaction } from '../../src/platform/db/transaction.js';

/**
 * src/platform/db/transaction.ts (and the bound-values guard in src/platform/db/knex.ts) drive
 * knex through internals that are not part of its public API. package.json pins knex to one
 * exact version; this test checks every internal those files rely on, by name and by behaviour,
 * so that moving the pin to a knex where any of them changed fails here first, naming what moved.
 *
 * Relied on (see transaction.ts):
 * - `knex.client.constructor.prototype.query` / `.stream`: the dialect client's query methods,
 *   called with `(connection, obj)` on a client object made with `Object.create(prototype)`;
 * - the root client's `version`, `config`, `driver`, `connectionSettings`, `valueForUndefined`,
 *   `logger` (copied as knex's own makeTxClient copies them), `acquireConnection()` /
 *   `releaseConnection(conn)` (the pool), `queryBuilder()`, and its EventEmitter events
 *   `start`, `query`, `query-error`, `query-response`;
 * - `knex.context` (every knex method and getter goes through `this.context`, `client` included),
 *   `context._transaction(container, config, outerTx)` whose Transaction reads
 *   `outerTx._lastChild` / `outerTx.isCompleted()` / `outerTx.transactor`, and
 *   `client.transacting` (true: a nested transaction is a SAVEPOINT, not a BEGIN);
 * - a transactor's `isTransaction` and `context.withUserParams` (mirrored by the lease);
 * - `connection.__knex__disposed`: the pool drops a connection so marked instead of handing it out;
 * - knex.ts: the query runner calls the instance's `client.query(connection, obj)` for every
 *   statement, with `obj.bindings`.
 */

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '../..');

let knex: Knex;
test.before(() => {
  knex = createKnex(process.env.DATABASE_URL!, { poolMax: 2, applicationName: 'knex-internals-test' });
});
test.after.always(async () => {
  await knex?.destroy();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- knex internals have no public types.
const internals = (k: Knex) => k as any;

test('package.json pins knex to exactly the installed version', (t) => {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
  };
  const installed = (require('knex/package.json') as { version: string }).version;
  t.regex(pkg.dependencies.knex!, /^\d+\.\d+\.\d+$/, 'an exact version, no range: transaction.ts uses knex internals (see this file)');
  t.is(pkg.dependencies.knex, installed);
  t.is(lock.packages['']?.dependencies?.knex, installed);
  t.is(lock.packages['node_modules/knex']?.version, installed);
});

test('the dialect client prototype has query and stream, taking (connection, obj)', (t) => {
  const proto = internals(knex).client.constructor.prototype;
  t.is(typeof proto.query, 'function');
  t.is(typeof proto.stream, 'function');
  t.true(proto.query.length >= 2, 'query(connection, obj)');
  t.true(proto.stream.length >= 2, 'stream(connection, obj, stream, options)');
});

test('the root client carries what a connection client copies, and the pool methods', async (t) => {
  const client = internals(knex).client;
  await knex.raw('select 1'); // `version` is set by the first connection
  for (const key of ['version', 'config', 'driver', 'connectionSettings', 'valueForUndefined', 'logger']) {
    t.not(client[key], undefined, `client.${key}`);
  }
  t.is(typeof client.acquireConnection, 'function');
  t.is(typeof client.releaseConnection, 'function');
  t.is(typeof client.queryBuilder, 'function');
  t.is(typeof client.on, 'function');
  t.is(typeof client.emit, 'function');
  // A lease gives its client and its `db` listeners of their own by resetting EventEmitter's fields.
  t.is(typeof client._events, 'object');
  t.is(typeof client._eventsCount, 'number');
  t.is(typeof internals(knex)._events, 'object');
  // knex's own transaction client is made the same way: Object.create(prototype) and these copies.
  const source = readFileSync(require.resolve('knex/lib/execution/transaction.js'), 'utf8');
  t.regex(source, /Object\.create\(client\.constructor\.prototype\)/);
  for (const key of ['version', 'config', 'driver', 'connectionSettings', 'valueForUndefined', 'logger']) {
    t.regex(source, new RegExp(`trxClient\\.${key} = client\\.${key};`), `makeTxClient copies ${key}`);
  }
  t.regex(source, /trxClient\.transacting = true;/);
});

test('acquireConnection hands out a pg connection that releaseConnection returns to the pool', async (t) => {
  const client = internals(knex).client;
  const conn = await client.acquireConnection();
  t.is(typeof conn.query, 'function');
  const res = await conn.query('select 41 + 1 as n');
  t.is(res.rows[0].n, 42);
  await client.releaseConnection(conn);
});

test('knex methods and the client getter go through knex.context (a stand-in context reroutes them)', (t) => {
  const k = internals(knex);
  t.is(typeof k.context, 'object');
  t.is(k.context.client, k.client);
  t.is(typeof k.context._transaction, 'function');
  t.true(k.context._transaction.length >= 2, '_transaction(container, config, outerTx)');
  const stand = Object.create(k.client);
  const context = Object.create(k.context);
  context.client = stand;
  const db = function () {} as unknown as { context: unknown; client: unknown; raw: (sql: string) => { client: unknown } };
  Object.setPrototypeOf(db, k);
  db.context = context;
  t.is(db.client, stand, 'knex.client reads this.context.client');
  t.is(db.raw('select 1').client, stand, 'knex.raw builds on this.context.client');
});

test("knex's Transaction reads the outer transaction's _lastChild, isCompleted() and transactor, and makes a savepoint on a transacting client", (t) => {
  const source = readFileSync(require.resolve('knex/lib/execution/transaction.js'), 'utf8');
  t.regex(source, /outerTx \? outerTx\._lastChild : Promise\.resolve\(\)/);
  t.regex(source, /outerTx\._lastChild = basePromise\.catch/);
  t.regex(source, /this\.outerTx && this\.outerTx\.isCompleted\(\)/);
  t.regex(source, /transactor\.parentTransaction = this\.outerTx\.transactor/);
  t.regex(source, /this\.client\.transacting\s*\?\s*this\.savepoint\(connection\)/);
  t.regex(source, /transactor\.isTransaction = true/);
  t.regex(source, /transactor\.context\.withUserParams = /);
  t.regex(source, /doNotRejectOnRollback/);
  const make = readFileSync(require.resolve('knex/lib/knex-builder/make-knex.js'), 'utf8');
  t.regex(make, /_transaction\(container, config, outerTx = null\)/);
  t.regex(make, /this\.client\.transaction\(container, config, outerTx\)/);
});

test('in a transaction, statements share one connection and transaction; a nested transaction is a savepoint that rolls back alone', async (t) => {
  const sql: string[] = [];
  const seen = await runTransaction(knex, 'select 1', async (db) => {
    db.on('query', (q: { sql: string }) => sql.push(q.sql));
    const ids = await db.raw('select pg_backend_pid() as pid, txid_current() as tx');
    const again = await db.raw('select pg_backend_pid() as pid, txid_current() as tx');
    await db.raw('create temporary table knex_internals_probe (n int) on commit drop');
    await db('knex_internals_probe').insert({ n: 1 });
    await t.throwsAsync(
      db.transaction(async (inner) => {
        await inner('knex_internals_probe').insert({ n: 2 });
        throw new Error('inner fails');
      }),
      { message: 'inner fails' },
    );
    const rows = await db('knex_internals_probe').pluck('n');
    return { ids: ids.rows[0], again: again.rows[0], rows };
  });
  t.deepEqual(seen.ids, seen.again, 'same connection, same transaction');
  t.deepEqual(seen.rows, [1], 'the savepoint rolled back alone');
  t.true(
    sql.some((s) => /^SAVEPOINT /i.test(s)),
    `a SAVEPOINT was made: ${sql.join(' | ')}`,
  );
  t.true(sql.some((s) => /^ROLLBACK TO SAVEPOINT /i.test(s)));
  t.false(
    sql.some((s) => /^BEGIN/i.test(s)),
    'no BEGIN inside the transaction',
  );
});

test('an Objection model query with the transaction runs in it', async (t) => {
  class Probe extends Model {
    static override tableName = 'knex_internals_probe';
  }
  const n = await runTransaction(knex, 'select 1', async (db) => {
    await db.raw('create temporary table knex_internals_probe (id serial primary key, n int) on commit drop');
    await db('knex_internals_probe').insert({ n: 7 });
    const rows = (await Probe.query(db).select('n')) as unknown as { n: number }[];
    return rows.map((r) => r.n);
  });
  t.deepEqual(n, [7]);
});

test('the pool drops a connection marked __knex__disposed instead of handing it out again', async (t) => {
  // Straight to PostgreSQL: behind a pooler (the pooled CI run) a new connection may well be
  // given the very server connection the dropped one had, so the backend would not tell them apart.
  const one = createKnex(process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL!, {
    poolMax: 1,
    applicationName: 'knex-internals-test',
  });
  try {
    const client = internals(one).client;
    const first = await client.acquireConnection();
    const pid = (await first.query('select pg_backend_pid() as pid')).rows[0].pid;
    first.__knex__disposed = new Error('marked by the test');
    await client.releaseConnection(first);
    const second = await client.acquireConnection();
    t.not(second, first);
    t.not((await second.query('select pg_backend_pid() as pid')).rows[0].pid, pid);
    await client.releaseConnection(second);
  } finally {
    await one.destroy();
  }
});

test("the query runner calls the instance's client.query(connection, obj) with obj.bindings (knex.ts's guard)", async (t) => {
  const own = createKnex(process.env.DATABASE_URL!, { poolMax: 1, applicationName: 'knex-internals-test' });
  t.teardown(() => own.destroy());
  const client = internals(own).client;
  t.true(Object.hasOwn(client, 'query'), 'createKnex replaced query on the instance');
  const seen: unknown[][] = [];
  const guarded = client.query;
  client.query = (conn: unknown, obj: { bindings?: unknown[] }) => {
    seen.push(obj.bindings ?? []);
    return guarded(conn, obj);
  };
  try {
    await own.raw('select ?::int as n', [5]);
    await own.queryBuilder().select(own.raw('? as m', ['x']));
  } finally {
    client.query = guarded;
  }
  t.deepEqual(seen, [[5], ['x']]);
  await t.throwsAsync(
    own.raw(
      `select ${Array.from({ length: 70000 }, () => '?').join(',')}`,
      Array.from({ length: 70000 }, (_, i) => i),
    ),
    { instanceOf: Error, message: /values|bound/i },
  );
});
