import test from 'ava';
import { placeOrder } from '../../src/modules/orders/orders.service.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { startWorkers } from '../../src/app/workers.js';
import { setupTestRuntime, waitFor, type TestContext } from '../helpers/harness.js';
import { orderFor, orderSetup, type OrderSetup } from '../helpers/orders.js';

/**
 * Noisy neighbours on one queue: a tenant's backlog of 300 orders does not make another tenant's
 * order wait behind it. One shard (the two tenants share a queue whatever QUEUE_SHARDS the run
 * has) and one worker running one job at a time, so the order jobs run in exactly the order the
 * queue gives them out. On Redis and on BullMQ's PostgreSQL backend alike.
 */
const BACKLOG = 300;
let ctx: TestContext;

test.serial.before(async () => {
  ctx = await setupTestRuntime({ QUEUE_SHARDS: '1', WORKER_CONCURRENCY: '1' });
});
test.after.always(async () => ctx?.cleanup());

const place = (s: OrderSetup, i: number) =>
  withTenant(ctx.rt.knex, s.tenant, (db) => placeOrder(db, { tenantId: s.tenant.id, userId: null, companyId: null }, orderFor(s, i)), {
    dispatcher: ctx.rt.dispatcher,
  }).then((p) => p.orderId);

test.serial(
  "when a noisy tenant has a backlog of orders waiting, then a quiet tenant's order queued after it runs before most of the backlog",
  async (t) => {
    const { rt } = ctx;
    const noisy = await orderSetup(rt.knex, await ctx.freshTenant('noisy'), 'noisy');
    const quiet = await orderSetup(rt.knex, await ctx.freshTenant('quiet'), 'quiet');
    const backlog: number[] = [];
    for (let i = 0; i < BACKLOG; i++) backlog.push(await place(noisy, i));
    const quietOrder = await place(quiet, 0);
    await rt.dispatcher.drain();

    // The priority each job was given: 1 + the jobs its tenant added to the queue in the last 10 seconds.
    const jobOf = (s: OrderSetup, orderId: number) => rt.queues.queue('orders', s.tenant.id).getJob(`order-${s.tenant.id}-${orderId}`);
    t.is((await jobOf(noisy, backlog[0]!))?.priority, 1);
    t.is((await jobOf(noisy, backlog[BACKLOG - 1]!))?.priority, BACKLOG);
    t.is((await jobOf(quiet, quietOrder))?.priority, 1);

    const workers = startWorkers(rt);
    try {
      await waitFor(
        async () =>
          (await withTenant(rt.knex, quiet.tenant, (db) =>
            db('opportunities').where({ id: quietOrder, state: 'completed' }).first('id'),
          )) !== undefined,
        "the quiet tenant's order",
        60000,
        50,
      );
    } finally {
      await workers.close();
    }
    // Compared in the database: both times as the workers stamped them.
    const quietDoneAt = rt.knex.raw('(select completed_on from ??.opportunities where id = ?)', [quiet.tenant.schema, quietOrder]);
    const before = await withTenant(rt.knex, noisy.tenant, async (db) =>
      Number((await db('opportunities').whereIn('id', backlog).where('completed_on', '<', quietDoneAt).count('* as n').first())!.n),
    );
    t.log(`noisy orders completed before the quiet one: ${before} of ${BACKLOG}`);
    t.true(before < BACKLOG / 10, `${before} of the noisy tenant's ${BACKLOG} orders ran first`);
  },
);
