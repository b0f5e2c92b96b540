import type { Knex } from '../../platform/db/knex.js';
import type { RequestCheck } from '../../platform/db/transaction.js';
import { NotFoundError } from '../../platform/errors.js';
import { accessGenerationSql } from '../../platform/tenancy/access-generation.js';
import type { PlatformRuntime } from '../../platform/runtime.js';
import type { Lane } from '../../platform/tenancy/tenant-gate.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { withTenant, type WithTenantOptions } from '../../platform/tenancy/with-tenant.js';
import { tenantOf, type AppContext, type AppMiddleware } from './context.js';

declare module './context.js' {
  interface AppState {
    /** The request's database handle, scoped to its tenant's schema: a transaction for a write, per-statement settings for a read (requestDb middleware). */
    db?: Knex;
    /**
     * What the request's authentication took from a cache, to be checked with its first statement
     * (requestDb middleware; see ListenedCache).
     */
    checks?: RequestCheck[];
  }
}

/**
 * The database work of one request in a tenant, on a handle scoped to the tenant's schema: a
 * transaction for a write; for a read (`readOnly`) no transaction, each statement sent with the
 * tenant's settings in one round trip (so "request db", not "request transaction"). Taken
 * in the tenant's turn (at most half the pool per tenant, a quarter for its anonymous WebLink
 * lane), every statement under the lane's statement timeout, outbox rows enqueued after commit.
 * Every request that reads or writes a tenant's tables goes through here.
 *
 * Its first statement (for a write, its BEGIN) also reads the tenant's access generation, in the
 * same round trip: a tenant suspended or removed since the process looked it up refuses the
 * request (404, as an unknown host), and `checks` (and any added with checkRequest) check what the
 * request took from a cache of users or tokens before anything is answered.
 */
export function withRequestDb<T>(
  rt: Pick<PlatformRuntime, 'knex' | 'gate' | 'config' | 'dispatcher'>,
  tenant: Tenant,
  lane: Lane,
  fn: (db: Knex) => Promise<T>,
  opts: { readOnly?: boolean; checks?: readonly RequestCheck[] | undefined; via?: WithTenantOptions['via'] } = {},
): Promise<T> {
  const statementTimeoutMs = lane === 'weblink' ? rt.config.weblinkStatementTimeoutMs : rt.config.statementTimeoutMs;
  const check = { sql: accessGenerationSql(tenant.id), checks: opts.checks, whenNull: () => tenantGone(tenant) };
  // A read needs no explicit transaction: each statement carries the tenant's settings (one round trip each).
  return rt.gate.run(tenant.id, lane, () =>
    withTenant(rt.knex, tenant, fn, {
      dispatcher: rt.dispatcher,
      statementTimeoutMs,
      autocommit: opts.readOnly,
      readOnly: opts.readOnly,
      check,
      via: opts.via,
    }),
  );
}

/** The answer for a tenant no longer active: what its host answers from then on. */
function tenantGone(tenant: Tenant): NotFoundError {
  return new NotFoundError(`The instance '${tenant.slug}' is no longer active`, 'tenant_not_found');
}

/**
 * The request's database handle for a REST request ({@link withRequestDb}): for a write, one
 * transaction the handler runs in, committed when it succeeds and rolled back when anything
 * throws; a GET or HEAD reads only, with no explicit transaction (one round trip per statement).
 */
export function requestDb(rt: Pick<PlatformRuntime, 'knex' | 'gate' | 'config' | 'dispatcher'>): AppMiddleware {
  return (ctx, next) =>
    withRequestDb(
      rt,
      tenantOf(ctx),
      'api',
      async (db) => {
        ctx.state.db = db;
        try {
          await next();
        } finally {
          ctx.state.db = undefined;
        }
      },
      {
        readOnly: ctx.method === 'GET' || ctx.method === 'HEAD',
        checks: ctx.state.checks,
        via: { context: 'rest', actorUserId: ctx.state.user?.id },
      },
    );
}

/** The request's tenant transaction; the middleware guarantees it on tenant API routes. */
export function dbOf(ctx: AppContext): Knex {
  const db = ctx.state.db;
  if (!db) throw new Error('route mounted without the requestDb middleware');
  return db;
}
