import type { Knex } from '../db/knex.js';
import type { OutboxDispatcher } from '../jobs/outbox.js';
import { withTenant } from '../tenancy/with-tenant.js';
import { tenantOf, type AppContext, type AppMiddleware } from './context.js';

declare module './context.js' {
  interface AppState {
    /** The request's transaction, scoped to its tenant's schema (tenant-transaction middleware). */
    db?: Knex;
  }
}

/**
 * One database transaction per request, with the tenant's transaction-local search_path:
 * authentication and the handler share it, it commits when the handler succeeds and rolls
 * back when anything throws; outbox rows are enqueued after the commit.
 */
export function tenantTransaction(knex: Knex, dispatcher: OutboxDispatcher): AppMiddleware {
  return (ctx, next) =>
    withTenant(
      knex,
      tenantOf(ctx),
      async (db) => {
        ctx.state.db = db;
        try {
          await next();
        } finally {
          ctx.state.db = undefined;
        }
      },
      { dispatcher },
    );
}

/** The request's tenant transaction; the middleware guarantees it on tenant API routes. */
export function dbOf(ctx: AppContext): Knex {
  const db = ctx.state.db;
  if (!db) throw new Error('route mounted without the tenant-transaction middleware');
  return db;
}
