import { queueNamespaceOf, type Knex } from '../db/knex.js';
import { runStatements, runTransaction, type FirstStatementCheck } from '../db/transaction.js';
import { afterCommitDispatch, type OutboxDispatcher } from '../queues/outbox.js';
import { assertTenantSchema } from './slug.js';
import type { Tenant } from './tenant.js';

export interface WithTenantOptions {
  /** Enqueues the outbox rows this transaction wrote, once it has committed. */
  dispatcher?: OutboxDispatcher | undefined;
  /** A read-only transaction: PostgreSQL refuses any write in it (public, read-only APIs). */
  readOnly?: boolean;
  /**
   * No explicit transaction: each statement runs in an implicit transaction of its own that
   * carries the tenant's settings, in one round trip (one statement costs one round trip instead
   * of three). With `readOnly`, what `db` answers is the same as in a transaction. Without it, for
   * a write of exactly one statement (it commits alone), such as a worker's record of its outcome.
   */
  autocommit?: boolean;
  /**
   * Every statement of the transaction is stopped after this long (SQLSTATE 57014, answered 503
   * `query_timeout` to a request), so no request can keep a connection busy for longer.
   */
  statementTimeoutMs?: number | undefined;
  /**
   * What the first statement (in a transaction, BEGIN) also reads and checks, in its own round
   * trip: the tenant's access generation for a request (see withRequestDb).
   */
  check?: FirstStatementCheck | undefined;
  /**
   * The path that makes the transaction's changes and the user it acts for, as the webhook events
   * it captures record them (`lectern.context`, `lectern.actor`; migration 017): `rest`,
   * `graphql`, `worker`, `cli`, `control-panel`.
   */
  via?: { context: ChangeContext; actorUserId?: number | undefined } | undefined;
}

/** Which path made a change (the `context` of a webhook delivery's metadata). */
export type ChangeContext = 'rest' | 'graphql' | 'worker' | 'cli' | 'control-panel';

/**
 * The transaction-local settings a writing transaction carries for the triggers that capture
 * webhook events (migration 017): the queue namespace their outbox rows belong to (as
 * insertOutboxRow names it in the row), who acts and through which path. Literals: the namespace
 * is validated by config, the context is one of {@link ChangeContext}, the actor an integer.
 */
function changeSettings(knex: Knex, via: WithTenantOptions['via']): string {
  const namespace = queueNamespaceOf(knex);
  let out = namespace && /^[a-z][a-z0-9_]*$/.test(namespace) ? `, set_config('lectern.queue_namespace', '${namespace}', true)` : '';
  if (via && /^[a-z-]+$/.test(via.context)) out += `, set_config('lectern.context', '${via.context}', true)`;
  if (via?.actorUserId !== undefined && Number.isSafeInteger(via.actorUserId))
    out += `, set_config('lectern.actor', '${via.actorUserId}', true)`;
  return out;
}

/**
 * Runs `fn` in one transaction scoped to the tenant's schema. The search_path is set with
 * `set_config(..., true)`, which lasts only until the transaction ends, so a pooled
 * connection never carries one tenant's path into the next request.
 */
export async function withTenant<T>(
  knex: Knex,
  tenant: Pick<Tenant, 'schema'>,
  fn: (db: Knex) => Promise<T>,
  opts: WithTenantOptions = {},
): Promise<T> {
  // Validated to [a-z][a-z0-9_]*, so it can stand as a literal in the opening statement.
  const schema = assertTenantSchema(tenant.schema);
  let trx: Knex | undefined;
  // Transaction-local settings, in the round trip that opens the transaction.
  const timeout =
    opts.statementTimeoutMs === undefined
      ? ''
      : `, set_config('statement_timeout', '${Math.max(1, Math.floor(opts.statementTimeoutMs))}', true)`;
  // No JIT compilation: a request's statements are small and short, and PostgreSQL's JIT can
  // spend seconds compiling one with many conditions, where it cannot be cancelled.
  // Read only as a setting too (as SET TRANSACTION READ ONLY), so the opening is one statement.
  const readOnly = opts.readOnly ? `, set_config('transaction_read_only', 'on', true)` : '';
  const writes = opts.readOnly ? '' : changeSettings(knex, opts.via);
  const opening = `select set_config('search_path', '${schema}', true), set_config('jit', 'off', true)${timeout}${readOnly}${writes}`;
  if (opts.autocommit) {
    // A write in autocommit commits as it runs: one statement, and nothing to dispatch after a commit.
    if (!opts.readOnly && opts.dispatcher) throw new Error('An autocommit write has no commit to dispatch outbox rows after');
    return runStatements(knex, opening, fn, opts.check, schema, !opts.readOnly);
  }
  const result = await runTransaction(
    knex,
    opening,
    (db) => {
      trx = db;
      return fn(db);
    },
    opts.check,
    schema,
  );
  if (trx && opts.dispatcher) afterCommitDispatch(trx, opts.dispatcher);
  return result;
}
