import type { Knex } from '../db/knex.js';
import { runTransaction } from '../db/transaction.js';
import { afterCommitDispatch, type OutboxDispatcher } from '../jobs/outbox.js';
import { assertTenantSchema } from './slug.js';
import type { Tenant } from './tenant.js';

export interface WithTenantOptions {
  /** Enqueues the outbox rows this transaction wrote, once it has committed. */
  dispatcher?: OutboxDispatcher | undefined;
  /** A read-only transaction: PostgreSQL refuses any write in it (public, read-only APIs). */
  readOnly?: boolean;
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
  const opening = `${opts.readOnly ? 'SET TRANSACTION READ ONLY; ' : ''}select set_config('search_path', '${schema}', true)`;
  const result = await runTransaction(knex, opening, (db) => {
    trx = db;
    return fn(db);
  });
  if (trx && opts.dispatcher) afterCommitDispatch(trx, opts.dispatcher);
  return result;
}
