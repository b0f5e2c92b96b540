import type { Knex } from 'knex';
import pg from 'pg';
import { MAX_BOUND_VALUES, tooManyValues, type AppError } from '../errors.js';

/**
 * A transaction on one pooled connection, opened and closed by us rather than by
 * `knex.transaction()`.
 *
 * Why: every request and job runs in a transaction, and knex builds a whole new knex instance
 * per transaction (about 150 closures, an EventEmitter and a client object: some 27 KB and
 * 40 µs of CPU), which was the largest single cost of a small REST request. Here the client
 * bound to a connection is made once per connection, and each transaction gets only a small
 * lease on it: a callable `db` whose queries run on that connection while the lease is open
 * and are refused after it ends, exactly as knex refuses queries on a finished transaction, so
 * a stale reference can never run a query inside somebody else's transaction. The opening
 * statements travel with `BEGIN` in one round trip.
 *
 * `db` behaves as a knex transaction for everything services use (`db(table)`, `db.raw`,
 * `db.fn`, `db.ref`, `db.queryBuilder()`, Objection's `Model.query(db)`, `db.on('query')`);
 * `db.transaction()` inside it makes a savepoint, serialised with its siblings and refused once
 * the lease ends, as knex does for nested transactions. Commit and rollback belong to
 * `runTransaction`.
 *
 * Knex internals: this file (and the bound-values guard in knex.ts) relies on parts of knex that
 * are not its public API (`client.constructor.prototype.query`/`stream`, the client's
 * `acquireConnection`/`releaseConnection`, `transacting`, `context._transaction` and what its
 * Transaction reads of an outer transaction, `__knex__disposed`...). package.json pins knex to
 * one exact version for that reason, and test/tenancy/knex-internals.test.ts checks each of those
 * internals by name and by behaviour: run it before moving the pin. Likewise node-postgres: reads
 * subclass its `Query` and rely on `prepare`, `handleDataRow`, `handleCommandComplete` and
 * `queryMode: 'extended'` (the interface pg-cursor uses, not in its types); pg is pinned too, and
 * test/tenancy/autocommit-reads.test.ts checks the behaviour.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- knex's client internals (query, acquireConnection, context) are not in its public types. */
type KnexClient = any;
/** The protocol side of a pg connection, as pg's Query drives it. */
interface PgProtocol {
  parse(msg: { text: string; name: string; types: unknown[] }): void;
  bind(msg: { portal: string; statement: string; values: unknown[] }): void;
  execute(msg: { portal: string; rows: number }): void;
}
interface PgConnection {
  query(text: string): Promise<{ command?: string }>;
  /** knex's mark of a connection its pool must not hand out again. */
  __knex__disposed?: unknown;
}

/**
 * One statement at a time per connection. Resolvers of one GraphQL request load in parallel on
 * the request's transaction; node-postgres queues concurrent queries on a client but deprecates
 * doing so (pg 9 will refuse), so they are queued here, in the order they were sent.
 */
const tails = new WeakMap<object, Promise<unknown>>();
function inTurn<T>(conn: object, run: () => Promise<T>): Promise<T> {
  const tail = tails.get(conn) ?? Promise.resolve();
  const next = tail.then(run, run);
  tails.set(conn, next.catch(() => undefined));
  return next;
}

/**
 * A statement with more bound values than PostgreSQL takes would only fail there (with a 500 and
 * its whole text in the log): it is refused here, before it is sent, as the client's mistake.
 */
export function tooManyBindings(obj: { bindings?: unknown[] } | undefined): AppError | undefined {
  const count = obj?.bindings?.length ?? 0;
  return count > MAX_BOUND_VALUES ? tooManyValues(count) : undefined;
}

const LEASE_ENDED = 'Transaction query already complete: the transaction this query belongs to has ended';
const CLIENT_EVENTS = ['start', 'query', 'query-error', 'query-response'] as const;
/** As knex: a ROLLBACK that does not answer in 5 s gives the connection up. */
const ROLLBACK_TIMEOUT_MS = 5000;

/** The client of one connection, made once per connection (the equivalent of knex's transaction client). */
const connectionClients = new WeakMap<object, KnexClient>();

function connectionClient(root: KnexClient, conn: PgConnection): KnexClient {
  let client = connectionClients.get(conn);
  if (client) return client;
  client = Object.create(root.constructor.prototype);
  for (const key of ['version', 'config', 'driver', 'connectionSettings', 'valueForUndefined', 'logger']) client[key] = root[key];
  // Nested `db.transaction()` calls make savepoints, as in a knex transaction.
  client.transacting = true;
  const query = root.constructor.prototype.query;
  const stream = root.constructor.prototype.stream;
  client.query = function (this: KnexClient, c: unknown, obj: { bindings?: unknown[] }) {
    if (!this.leaseOpen) return Promise.reject(new Error(LEASE_ENDED));
    const tooMany = tooManyBindings(obj);
    if (tooMany) return Promise.reject(tooMany);
    return inTurn(conn, () => query.call(this, c, obj));
  };
  // Statements of an autocommit lease ({@link runStatements}) carry the lease's opening.
  const runQuery = root.constructor.prototype._query;
  client._query = function (this: KnexClient, c: PgConnection, obj: KnexQuery) {
    return this.opening === undefined ? runQuery.call(this, c, obj) : autocommitQuery(c, this.opening, obj);
  };
  client.stream = function (this: KnexClient, c: unknown, obj: unknown, s: unknown, o: unknown) {
    if (!this.leaseOpen) return Promise.reject(new Error(LEASE_ENDED));
    // A stream would run without the read's opening (its settings): reads do not stream.
    if (this.opening !== undefined) return Promise.reject(new Error('A read in autocommit statements cannot stream'));
    return stream.call(this, c, obj, s, o);
  };
  client.acquireConnection = function (this: KnexClient) {
    return this.leaseOpen ? Promise.resolve(conn) : Promise.reject(new Error(LEASE_ENDED));
  };
  client.releaseConnection = () => Promise.resolve();
  connectionClients.set(conn, client);
  return client;
}

/** What knex hands its client's `_query`: the statement with its bindings, and where the answer goes. */
interface KnexQuery {
  sql: string;
  bindings?: unknown[];
  options?: Record<string, unknown>;
  response?: unknown;
}

/** pg's Query as it drives the protocol: methods pg calls on a query that its types do not declare. */
interface PgQueryInternals {
  prepare(connection: PgProtocol): void;
  handleDataRow(msg: unknown): void;
  handleCommandComplete(msg: unknown, connection: PgProtocol): void;
}
const PgQuery = pg.Query as unknown as new (config: pg.QueryConfig) => PgQueryInternals;

/**
 * A statement sent after an opening statement in one extended-protocol batch: Parse, Bind and
 * Execute of the opening, then Parse, Bind, Describe and Execute of the statement with its values
 * bound as parameters, then one Sync (pg corks the socket around `prepare`, so the batch is one
 * write). PostgreSQL runs everything before a Sync as one implicit transaction, so the opening's
 * `set_config(..., true)` settings (the tenant's search_path, the statement timeout, read only)
 * hold for the statement and end with it at the Sync: one round trip, nothing left on the
 * connection (nor on a pooler's shared server connection), and the values never become SQL text.
 * The opening's own row and completion are not part of the answer.
 */
class OpenedQuery extends PgQuery {
  private openingPending = true;

  constructor(
    config: pg.QueryConfig,
    private readonly opening: string,
  ) {
    super({ ...config, queryMode: 'extended' } as pg.QueryConfig);
  }

  override prepare(connection: PgProtocol): void {
    connection.parse({ text: this.opening, name: '', types: [] });
    connection.bind({ portal: '', statement: '', values: [] });
    connection.execute({ portal: '', rows: 0 });
    super.prepare(connection);
  }

  override handleDataRow(msg: unknown): void {
    if (!this.openingPending) super.handleDataRow(msg);
  }

  override handleCommandComplete(msg: unknown, connection: PgProtocol): void {
    if (this.openingPending) this.openingPending = false;
    else super.handleCommandComplete(msg, connection);
  }
}

/** One statement of an autocommit lease: `opening`, then the statement, in one round trip ({@link OpenedQuery}). */
function autocommitQuery(conn: PgConnection, opening: string, obj: KnexQuery): Promise<KnexQuery> {
  return new Promise((resolve, reject) => {
    const query = new OpenedQuery({ text: obj.sql, values: obj.bindings ?? [], ...obj.options }, opening);
    (conn as unknown as pg.Client).query(query as unknown as pg.QueryConfig, (err: Error | null, response: unknown) => {
      if (err) return reject(err);
      obj.response = response;
      resolve(obj);
    });
  });
}

interface Lease {
  db: Knex;
  end(): void;
}

/**
 * A knex-compatible handle on `conn` for one transaction (or, with `opening`, for statements
 * that each run in an implicit transaction of their own); `end()` makes every later query fail.
 */
function lease(knex: Knex, conn: PgConnection, opening?: string): Lease {
  const root = knex as any;
  const client = Object.create(connectionClient(root.client, conn));
  client.leaseOpen = true;
  client.opening = opening;
  const db = function (table?: string, options?: unknown) {
    const qb = client.queryBuilder();
    return table ? qb.table(table, options) : qb;
  } as any;
  Object.setPrototypeOf(db, root);
  // Listeners of this lease are its own (as on a knex transaction): `db.on` never adds to the
  // root instance, and `db.client.on` never to the connection's client.
  db._events = Object.create(null);
  db._eventsCount = 0;
  client._events = Object.create(null);
  client._eventsCount = 0;
  for (const event of CLIENT_EVENTS) {
    client.on(event, (...args: unknown[]) => {
      db.emit(event, ...args);
      root.client.emit(event, ...args);
    });
  }
  // knex's methods and getters all go through `this.context` (raw, fn, queryBuilder, ref,
  // transaction, the query-interface shortcuts): giving the lease its own context whose client
  // is the lease's client routes them all to this connection.
  const context = Object.create(root.context);
  context.client = client;
  // Nested transactions are savepoints under a stand-in for this transaction, as knex's own
  // transactor does: siblings run one after another, and none outlives the lease.
  const outer = { isCompleted: () => !client.leaseOpen, _lastChild: Promise.resolve(), transactor: db };
  context.transaction = function (this: any, container?: unknown, options?: Record<string, unknown>) {
    if (opening) throw new Error('A read in autocommit statements cannot open a transaction');
    return this._transaction(container, { doNotRejectOnRollback: true, ...options }, outer);
  };
  context.withUserParams = () => {
    throw new Error('Cannot set user params on a transaction - it can only inherit params from main knex instance');
  };
  db.context = context;
  db.isTransaction = true;
  return {
    db: db as Knex,
    end() {
      client.leaseOpen = false;
    },
  };
}

function timeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

/**
 * Runs `fn` in one transaction: `BEGIN` and `opening` (trusted SQL text, no parameters) in one
 * round trip, then `fn(db)`, then `COMMIT`; `ROLLBACK` when anything throws. The connection goes
 * back to the pool either way; one that cannot even roll back is marked so the pool drops it.
 */
export async function runTransaction<T>(knex: Knex, opening: string, fn: (db: Knex) => Promise<T>): Promise<T> {
  const root = knex as any;
  const conn: PgConnection = await root.client.acquireConnection();
  const { db, end } = lease(knex, conn);
  try {
    await inTurn(conn, () => conn.query(`BEGIN; ${opening}`));
    let result: T;
    try {
      result = await fn(db);
    } finally {
      end();
    }
    // A statement failed inside and `fn` carried on: PostgreSQL answers COMMIT with ROLLBACK.
    // Nothing was written, so the caller must not believe (or announce) that it was.
    const commit = await inTurn(conn, () => conn.query('COMMIT'));
    if (commit.command === 'ROLLBACK') throw new Error('The transaction was rolled back: a statement in it failed earlier');
    return result;
  } catch (err) {
    await timeout(inTurn(conn, () => conn.query('ROLLBACK')), ROLLBACK_TIMEOUT_MS).catch((rollbackErr: unknown) => {
      // The pool validates connections before handing them out and drops marked ones.
      conn.__knex__disposed ??= rollbackErr;
    });
    throw err;
  } finally {
    root.client.releaseConnection(conn);
  }
}
/**
 * Runs `fn` with a handle whose every statement runs in an implicit transaction of its own, after
 * `opening` (one trusted statement, no parameters), in one round trip per statement and no
 * `BEGIN` or `COMMIT` (see {@link OpenedQuery}). For reads: in PostgreSQL's default isolation
 * (read committed) each statement of a transaction sees a snapshot of its own anyway, so a read
 * gives the same answers either way; nothing here can hold a lock or write across statements, and
 * `db.transaction()` is refused. The connection goes back to the pool only once every statement
 * sent on it has been answered (a resolver may still be waiting for one when `fn` has settled).
 */
export async function runStatements<T>(knex: Knex, opening: string, fn: (db: Knex) => Promise<T>): Promise<T> {
  const root = knex as any;
  const conn: PgConnection = await root.client.acquireConnection();
  const { db, end } = lease(knex, conn, opening);
  try {
    return await fn(db);
  } finally {
    end();
    await tails.get(conn);
    root.client.releaseConnection(conn);
  }
}
/* eslint-enable @typescript-eslint/no-explicit-any */
