import test from 'ava';
import { placeOrder } from '../../src/modules/orders/orders.service.js';
import { shardPrefix } from '../../src/platform/queues/queues.js';
import { createRedisClient, whenReady } from '../../src/platform/queues/redis-client.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { startWorkers } from '../../src/app/workers.js';
import { setupTestRuntime, waitFor, type TestContext } from '../helpers/harness.js';
import { assertExactlyOnce, finishedOrders, orderFor, orderSetup, type OrderSetup } from '../helpers/orders.js';

/**
 * Queues split in shards (QUEUE_SHARDS=3): a tenant's jobs go to shard tenantId mod 3, each
 * shard under Redis keys of its own hash tag (shard 0 under the keys every queue had before
 * shards), and a worker process consumes every shard. On Redis only: BullMQ's PostgreSQL backend
 * has one shard. In a REDIS_CLUSTER=on run the same holds on the cluster.
 */
const SHARDS = 3;
let ctx: TestContext;

test.serial.before(async () => {
  ctx = await setupTestRuntime({ QUEUE_SHARDS: String(SHARDS) });
});
test.after.always(async () => ctx?.cleanup());

/** Fresh tenants until there is one on every shard (tenant ids come from a sequence others draw from too). */
async function tenantOnEveryShard(): Promise<Tenant[]> {
  const byShard = new Map<number, Tenant>();
  for (let i = 0; byShard.size < SHARDS; i++) {
    if (i > 30) throw new Error('could not make a tenant on every shard');
    const tenant = await ctx.freshTenant(`sh${i}`);
    if (!byShard.has(tenant.id % SHARDS)) byShard.set(tenant.id % SHARDS, tenant);
  }
  return [...byShard.values()];
}

test.serial(
  "when tenants on different shards place orders, then each job is on shard tenantId mod QUEUE_SHARDS under that shard's keys, and a worker process completes them all (on PostgreSQL, which has no shards, every queue has one)",
  async (t) => {
    const { rt } = ctx;
    if (rt.queues.kind === 'postgres') {
      t.is(rt.queues.shardCount, 1);
      t.is(rt.queues.shards('orders').length, 1);
      t.deepEqual(
        [1, 2, 3, 4].map((id) => rt.queues.shardOf('orders', id)),
        [0, 0, 0, 0],
      );
      return;
    }
    t.is(rt.queues.shardCount, SHARDS);
    const setups: OrderSetup[] = [];
    for (const tenant of await tenantOnEveryShard()) setups.push(await orderSetup(rt.knex, tenant, `sh${tenant.id}`));
    // Queued after commit, no worker running yet.
    const placed = new Map<OrderSetup, number[]>();
    for (const s of setups) {
      const ids: number[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(
          (
            await withTenant(
              rt.knex,
              s.tenant,
              (db) => placeOrder(db, { tenantId: s.tenant.id, userId: null, companyId: null }, orderFor(s, i)),
              { dispatcher: rt.dispatcher },
            )
          ).orderId,
        );
      placed.set(s, ids);
    }
    await rt.dispatcher.drain();

    const raw = createRedisClient(rt.config.redisUrl!, rt.config.redisCluster, 'fail-fast');
    try {
      await whenReady(raw);
      const shards = rt.queues.shards('orders');
      t.is(shards.length, SHARDS);
      for (const [s, ids] of placed) {
        const own = s.tenant.id % SHARDS;
        t.is(rt.queues.shardOf('orders', s.tenant.id), own);
        for (const orderId of ids) {
          const jobId = `order-${s.tenant.id}-${orderId}`;
          const found = await Promise.all(shards.map((q) => q.getJob(jobId)));
          t.deepEqual(
            found.map((j) => Boolean(j)),
            shards.map((_, k) => k === own),
            `${jobId} is on shard ${own} only`,
          );
          t.true((found[own]?.priority ?? 0) >= 1, 'added with a priority');
          // Shard 0 keeps the keys queues had before shards; shard k has its own hash tag.
          const prefix = own === 0 ? `{${rt.config.queuePrefix}}` : `{${rt.config.queuePrefix}-s${own}}`;
          t.is(shardPrefix(rt.config.queuePrefix, own), prefix);
          t.is(await raw.exists(`${prefix}:orders:${jobId}`), 1, `the job's hash is under ${prefix}`);
        }
      }
    } finally {
      raw.disconnect();
    }

    const workers = startWorkers(rt);
    try {
      // One worker per queue and shard; the old invoices queue has one shard.
      t.is(workers.workers.length, 4 * SHARDS + 1);
      for (const [s, ids] of placed)
        await waitFor(
          async () => (await finishedOrders(rt.knex, s, ids)) === ids.length,
          `the orders of the tenant on shard ${s.tenant.id % SHARDS}`,
          30000,
        );
    } finally {
      await workers.close();
    }
    for (const [s, ids] of placed) await assertExactlyOnce(t, rt.knex, s, ids);
  },
);
