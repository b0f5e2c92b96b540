import type { Knex } from 'knex';
import pg from 'pg';
import { AppError, MAX_BOUND_VALUES, tooManyValues } from '../errors.js';
import { noteSchema } from './recycle.js';

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
  tails.set(
    conn,
    next.catch(() => undefined),
  );
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
    // A check's own statements run in the turn of the statement that brought its value.
    if (this.inside) return query.call(this, c, obj);
    const check: CheckState | undefined = this.check;
    if (!check) return inTurn(conn, () => query.call(this, c, obj));
    return inTurn(conn, async () => {
      if (check.refusal !== undefined) throw check.refusal;
      if (check.committed && !check.pending.length) return query.call(this, c, obj);
      // The first statement brings the committed value back: the request's checks run on it
      // before this answer (or any later one) is given, still in this statement's turn.
      let answer: unknown;
      let failure: { err: unknown } | undefined;
      try {
        answer = await query.call(this, c, obj);
      } catch (err) {
        failure = { err };
      }
      if (check.committed) await settle(check, () => insideLease(this));
      if (failure) throw failure.err;
      return answer;
    });
  };
  // Statements of an autocommit lease ({@link runStatements}) carry the lease's opening.
  const runQuery = root.constructor.prototype._query;
  client._query = function (this: KnexClient, c: PgConnection, obj: KnexQuery) {
    if (this.opening === undefined) return runQuery.call(this, c, obj);
    // A write in autocommit is one statement: a second would commit apart from the first.
    if (this.single && this.statements++ > 0) return Promise.reject(new Error('A write in autocommit runs exactly one statement'));
    return autocommitQuery(c, this.opening, obj, this.check);
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
    /** Given the opening's last column (text, or null), when the opening carries a {@link FirstStatementCheck}. */
    private readonly onOpening?: (value: string | null) => void,
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
    if (!this.openingPending) return super.handleDataRow(msg);
    // Fields of a row pg was not told the types of stay text (the opening has no Describe).
    if (this.onOpening) this.onOpening(((msg as { fields: (string | null)[] }).fields.at(-1) ?? null) as string | null);
  }

  override handleCommandComplete(msg: unknown, connection: PgProtocol): void {
    if (this.openingPending) this.openingPending = false;
    else super.handleCommandComplete(msg, connection);
  }
}

/**
 * One statement of an autocommit lease: `opening`, then the statement, in one round trip
 * ({@link OpenedQuery}). Until a statement has brought its value back, the opening also carries
 * the lease's check.
 */
function autocommitQuery(conn: PgConnection, opening: string, obj: KnexQuery, check?: CheckState): Promise<KnexQuery> {
  return new Promise((resolve, reject) => {
    const checked = check && !check.committed ? check : undefined;
    const onOpening = checked && ((value: string | null) => (checked.committed ??= { value }));
    const text = checked ? `${opening}, ${checked.sql} as lectern_check` : opening;
    const query = new OpenedQuery({ text: obj.sql, values: obj.bindings ?? [], ...obj.options }, text, onOpening);
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
 * With `check`, the first statement brings the check's value back ({@link FirstStatementCheck});
 * `inside`: the handle of a check, whose statements run in the turn of the statement that brought
 * its value.
 */
function lease(knex: Knex, conn: PgConnection, opening?: string, check?: CheckState, inside = false): Lease {
  const root = knex as any;
  const client = Object.create(connectionClient(root.client, conn));
  client.leaseOpen = true;
  client.opening = opening;
  client.check = check;
  client.inside = inside;
  client.leaseOf = { knex, conn, opening };
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
  return Promise.race([
    p,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs `fn` in one transaction: `BEGIN` and `opening` (trusted SQL text, no parameters) in one
 * round trip, then `fn(db)`, then `COMMIT`; `ROLLBACK` when anything throws. The connection goes
 * back to the pool either way; one that cannot even roll back is marked so the pool drops it.
 */
export async function runTransaction<T>(
  knex: Knex,
  opening: string,
  fn: (db: Knex) => Promise<T>,
  firstCheck?: FirstStatementCheck,
  schema?: string,
): Promise<T> {
  const root = knex as any;
  const conn: PgConnection = await root.client.acquireConnection();
  if (schema) noteSchema(root.client.config, conn, schema);
  const check = checkState(firstCheck);
  const { db, end } = lease(knex, conn, undefined, check);
  try {
    if (!check) await inTurn(conn, () => conn.query(`BEGIN; ${opening}`));
    else {
      // The check's value comes back with BEGIN: the request's checks run before `fn` does.
      await inTurn(conn, async () => {
        const answers = (await conn.query(`BEGIN; ${opening}, ${check.sql} as lectern_check`)) as unknown as {
          rows: Record<string, unknown>[];
        }[];
        const value = answers[1]?.rows[0]?.lectern_check;
        check.committed = { value: value === null || value === undefined ? null : String(value) };
        await settle(check, () => insideLease({ leaseOf: { knex, conn } }));
      });
    }
    let result: T;
    try {
      result = await fn(db);
    } finally {
      end();
    }
    // A check made during `fn` refused the request, whatever `fn` made of its error.
    if (check?.refusal !== undefined) throw check.refusal;
    // A statement failed inside and `fn` carried on: PostgreSQL answers COMMIT with ROLLBACK.
    // Nothing was written, so the caller must not believe (or announce) that it was.
    const commit = await inTurn(conn, () => conn.query('COMMIT'));
    if (commit.command === 'ROLLBACK') throw new Error('The transaction was rolled back: a statement in it failed earlier');
    return result;
  } catch (err) {
    await timeout(
      inTurn(conn, () => conn.query('ROLLBACK')),
      ROLLBACK_TIMEOUT_MS,
    ).catch((rollbackErr: unknown) => {
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
export async function runStatements<T>(
  knex: Knex,
  opening: string,
  fn: (db: Knex) => Promise<T>,
  firstCheck?: FirstStatementCheck,
  schema?: string,
  /** A write: `fn` may run one statement only (each commits on its own). */
  single = false,
): Promise<T> {
  const root = knex as any;
  const conn: PgConnection = await root.client.acquireConnection();
  if (schema) noteSchema(root.client.config, conn, schema);
  const check = checkState(firstCheck);
  const { db, end } = lease(knex, conn, opening, check);
  if (single) Object.assign((db as any).client, { single: true, statements: 0 });
  try {
    let result: T;
    try {
      result = await fn(db);
    } catch (err) {
      // Refused before it read anything (a permission, an unknown id): the request's checks still
      // decide first, so a revoked credential gets its 401, not an answer about the request.
      if (check && !check.committed && check.pending.length && err instanceof AppError && err.status < 500) await confirm(db);
      throw check?.refusal ?? err;
    }
    // Nothing was read: the checks still run (one statement), so nothing is answered unchecked.
    if (check && !check.committed && check.pending.length) await confirm(db);
    // A check refused the request, whatever `fn` made of the error its statements got.
    if (check?.refusal !== undefined) throw check.refusal;
    return result;
  } finally {
    end();
    await tails.get(conn);
    root.client.releaseConnection(conn);
  }
}

/**
 * A check a request makes in the round trip of its first statement, at no round trip of its own
 * (issue 23): `sql`, a trusted SQL expression with no parameters, goes with the statement's
 * settings (in a transaction, with its BEGIN), and its value comes back with them. The value goes
 * to the request's {@link RequestCheck}s, and to `whenNull`, before any answer of the handle is
 * given; a check that throws refuses the request: that statement and every later one fail with
 * its error, and so does the request, whatever its code made of them.
 */
export interface FirstStatementCheck {
  /** Trusted SQL (no parameters, no values from a request): its value comes back as text, or null. */
  sql: string;
  /** Checks known when the handle opens. More can be added with {@link checkRequest}. */
  checks?: readonly RequestCheck[];
  /** The refusal when the value is null and no check refused first. */
  whenNull?: () => Error;
}

/**
 * A request's check of something it took from a cache (a user, an access token), against the
 * value its first statement brought back (an access generation).
 */
export interface RequestCheck {
  /** The value the cached thing was read at (undefined: not known): when it is the committed one, nothing more is done. */
  generation: string | undefined;
  /**
   * Otherwise: reads the thing again on `db` (the request's own connection, usable during the call
   * only) and throws to refuse the request. `committed` null: the tenant is no longer active.
   */
  recheck(committed: string | null, db: Knex): Promise<void>;
}

interface CheckState {
  sql: string;
  whenNull: (() => Error) | undefined;
  /** Checks not yet run. */
  pending: RequestCheck[];
  /** The value, once a statement (or BEGIN) brought it back. */
  committed?: { value: string | null };
  refusal?: unknown;
}

function checkState(check: FirstStatementCheck | undefined): CheckState | undefined {
  return check && { sql: check.sql, whenNull: check.whenNull, pending: [...(check.checks ?? [])] };
}

/** A handle on a lease's connection for the checks run in a turn already taken (see `client.query`). */
function insideLease(client: { leaseOf: { knex: Knex; conn: PgConnection; opening?: string | undefined } }): Lease {
  const { knex, conn, opening } = client.leaseOf;
  return lease(knex, conn, opening, undefined, true);
}

/** Runs the checks not yet run on the committed value (a refusal is kept, and thrown). */
async function settle(check: CheckState, inside: () => Lease): Promise<void> {
  const committed = check.committed?.value;
  if (committed === undefined || check.refusal !== undefined) {
    if (check.refusal !== undefined) throw check.refusal;
    return;
  }
  let handle: Lease | undefined;
  try {
    while (check.pending.length) {
      const next = check.pending.shift()!;
      if (committed !== null && next.generation === committed) continue;
      handle ??= inside();
      await next.recheck(committed, handle.db);
    }
    if (committed === null && check.whenNull) throw check.whenNull();
  } catch (err) {
    check.refusal = err;
    check.pending = [];
    throw err;
  } finally {
    handle?.end();
  }
}

/** The one statement that brings a check's value when a request read nothing; its own failure is not the request's. */
async function confirm(db: Knex): Promise<void> {
  await db.raw('select 1').catch(() => undefined);
}

/**
 * Adds `check` to the request whose handle `db` is (one opened with a {@link FirstStatementCheck}):
 * run with the first statement when none has run yet, else at once, in the connection's turn.
 * Add it before the request's own statements: one already sent is answered unchecked.
 */
export async function checkRequest(db: Knex, check: RequestCheck | undefined): Promise<void> {
  if (!check) return;
  const client = (db as any).client;
  const state: CheckState | undefined = client?.check;
  if (!state) throw new Error('checkRequest: this handle was opened without a first-statement check');
  if (state.refusal !== undefined) throw state.refusal;
  state.pending.push(check);
  if (!state.committed) return;
  const conn: PgConnection = client.leaseOf.conn;
  await (client.inside ? settle(state, () => insideLease(client)) : inTurn(conn, () => settle(state, () => insideLease(client))));
}

/**
 * Runs `fn` (reads) on a handle whose first statement also brings `sql`'s value back, in its round
 * trip (see {@link runStatements}): what a cache reads, with the access generation it read it at.
 * No settings: `fn` names its tables with their schema.
 */
export async function readWithValue<T>(
  knex: Knex,
  sql: string,
  fn: (db: Knex) => Promise<T>,
): Promise<{ value: T; generation: string | null | undefined }> {
  return runStatements(knex, 'select 1', async (db) => ({ value: await fn(db), generation: checkedValue(db) }), { sql });
}

/** The value a handle's check brought back (undefined until a statement has run). */
export function checkedValue(db: Knex): string | null | undefined {
  return ((db as any).client?.check as CheckState | undefined)?.committed?.value;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
