import { fileURLToPath } from 'node:url';
import { invoiceOrder, registerOrder, type StepOutcome } from '../../src/modules/orders/order-processing.service.js';
import { placeOrder, type OrderActor } from '../../src/modules/orders/orders.service.js';
import { createKnex } from '../../src/platform/db/knex.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { timeOrders, type TimedOrders } from './load.js';
import { runScript, serveScript } from './child-script.js';

/**
 * The floor of `npm run bench -- orders`: what the same database work per order costs without
 * the queue and without the HTTP layer. A bare script (this file, a process of its own) runs
 * each order's three transactions one after the other, `concurrency` orders at a time:
 *
 *   1. the intake: `withTenant(...placeOrder)`, as the web process's POST /api/v2/orders runs it
 *      (same opening statement, statement timeout included; the order, its lines and its outbox
 *      row);
 *   2. the registration: `withTenant(...registerOrder)`, as the worker's order job runs it;
 *   3. the invoice: `withTenant(...invoiceOrder)`, likewise.
 *
 * Which of the two possible floors, and why: Lectern's own service functions called in-process,
 * not hand-written SQL through pg. The question the floor answers is "what do the queue and the
 * HTTP layer cost", so everything else must be the same: the same statements in the same round
 * trips, opened by the same transaction code, with the same JavaScript building and checking
 * them. A hand-written pg script would also leave out knex and the services' own CPU, and would
 * drift from Lectern's SQL whenever the services change; this one cannot (it is their code).
 *
 * Left out, because they are the HTTP layer or the queue: HTTP and JSON parsing, Basic auth (its
 * user lookup, a statement of its own before the transaction) and the tenant gate; enqueuing the
 * outbox row after commit and marking it enqueued; BullMQ (adding, fetching, locking, completing
 * the job); the worker's tenant lookup (an in-process cache) and settling the outbox row when
 * the job completes. The outbox row itself is still written (it is part of the intake's
 * transaction), under a queue namespace of its own so no relay ever enqueues it.
 *
 * Timed after a warm-up (connections made, code compiled by V8), from the first order's intake to
 * the last order's invoice; latency is one order's three transactions.
 */

export interface FloorInput {
  databaseUrl: string;
  /** The outbox namespace of the floor's connections (no relay sweeps it). */
  queueNamespace: string;
  tenant: Pick<Tenant, 'id' | 'schema'>;
  actor: OrderActor;
  /** Order bodies: the first `warmup` are not timed. */
  bodies: unknown[];
  warmup: number;
  concurrency: number;
}

/** What a floor measured (see {@link TimedOrders}): p50/p99 are one order's three transactions, one after the other. */
export type FloorResult = TimedOrders;

/** The web process's statement timeout (STATEMENT_TIMEOUT_MS's default), part of the intake's opening statement. */
const STATEMENT_TIMEOUT_MS = 30_000;

const SELF = fileURLToPath(import.meta.url);

/** Runs the floor in a process of its own (through tsx, like bench/lib/noop-worker.ts) and answers its figures. */
export function measureOrdersFloor(input: FloorInput): Promise<FloorResult> {
  return runScript(SELF, input, 'the orders floor');
}

async function runFloor(input: FloorInput): Promise<FloorResult> {
  const { tenant, actor, bodies, warmup, concurrency } = input;
  // A connection per order in flight: the pool never makes an order wait.
  const knex = createKnex(input.databaseUrl, {
    poolMax: concurrency,
    applicationName: 'bench-orders-floor',
    queueNamespace: input.queueNamespace,
  });
  const expect = (orderId: number, step: string, outcome: StepOutcome, state: string) => {
    if (!('done' in outcome) || outcome.done !== state)
      throw new Error(`order ${orderId}: the ${step} step answered ${JSON.stringify(outcome)}, not done: ${state}`);
  };
  const one = async (body: unknown): Promise<number> => {
    const t0 = performance.now();
    const placed = await withTenant(knex, tenant, (db) => placeOrder(db, actor, body), { statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    expect(placed.orderId, 'register', await withTenant(knex, tenant, (db) => registerOrder(db, placed.orderId)), 'registered');
    expect(placed.orderId, 'invoice', await withTenant(knex, tenant, (db) => invoiceOrder(db, placed.orderId)), 'completed');
    return performance.now() - t0;
  };
  try {
    let statements = 0;
    knex.on('query', () => statements++);
    return await timeOrders(bodies, { warmup, concurrency }, one, () => statements);
  } finally {
    await knex.destroy();
  }
}

// Run as a script (by measureOrdersFloor): the input on stdin, the figures as one JSON line on stdout.
await serveScript(import.meta.url, runFloor);
