import type { Knex } from '../db/knex.js';
import { afterCommitDispatch, type OutboxDispatcher } from '../jobs/outbox.js';
import { assertTenantSchema } from './slug.js';
import type { Tenant } from './tenant.js';

export interface WithTenantOptions {
  /** Enqueues the outbox rows this transaction wrote, once it has committed. */
  dispatcher?: OutboxDispatcher | undefined;
}

/**
 * Runs `fn` in one transaction scoped to the tenant's schema. The search_path is set with
 * `set_config(..., true)`, which lasts only until the transaction ends, so a pooled
 * connection never carries one tenant's path into the next request.
 */
export async function withTenant<T>(
  knex: Knex,
  tenant: Pick<Tenant, 'schema'>,
  fn: (db: Knex.Transaction) => Promise<T>,
  opts: WithTenantOptions = {},
): Promise<T> {
  const schema = assertTenantSchema(tenant.schema);
  let trxRef: Knex.Transaction | undefined;
  const result = await knex.transaction(async (trx) => {
    trxRef = trx;
    await trx.raw(`select set_config('search_path', ?, true)`, [schema]);
    return fn(trx);
  });
  if (trxRef && opts.dispatcher) afterCommitDispatch(trxRef, opts.dispatcher);
  return result;
}
