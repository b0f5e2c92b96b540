import test from 'ava';
import type { Knex } from '../../src/platform/db/knex.js';
import { OutboxDispatcher } from '../../src/platform/queues/outbox.js';
import { createQueueBackend } from '../../src/platform/queues/queues.js';
import { requestTenantStats } from '../../src/modules/tenant-stats/tenant-stats.service.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import { setupTestRuntime, waitFor, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
let workers: RunningWorkers | undefined;

test.serial.before(async () => {
  ctx = await setupTestRuntime();
});
test.after.always(async () => {
  await workers?.close();
  await ctx?.cleanup();
});

const pendingRows = (knex: Knex, tenant: Tenant) => knex('platform.outbox').where({ tenant_id: tenant.id }).whereNull('enqueued_at');
const statsOf = async (knex: Knex, tenant: Tenant) => (await knex('platform.tenants').where({ id: tenant.id }).first()).stats;

/** A queue backend of the same kind as the test's, pointed at a store that is not there. */
function unreachableQueues() {
  const { config } = ctx.rt;
  return config.redisUrl
    ? createQueueBackend({
        redisUrl: 'redis://127.0.0.1:1',
        redisCluster: config.redisCluster,
        shards: config.queueShards,
        databaseUrl: ctx.rt.databaseUrl,
        prefix: config.queuePrefix,
      })
    : createQueueBackend({ redisUrl: undefined, databaseUrl: 'postgres://postgres@127.0.0.1:1/none', prefix: config.queuePrefix });
}

test.serial(
  'when the queue store is unreachable at write time, then the job waits in the outbox and runs once the store is back',
  async (t) => {
    const tenant = await ctx.freshTenant('obdown');
    const down = unreachableQueues();
    const downDispatcher = new OutboxDispatcher(ctx.rt.knex, down, ctx.rt.log, ctx.rt.config.queuePrefix);
    await withTenant(
      ctx.rt.knex,
      tenant,
      async (db) => {
        await db('contacts').insert([{ first_name: 'Ann' }, { first_name: 'Ben' }]);
        await requestTenantStats(db, tenant.id);
      },
      { dispatcher: downDispatcher },
    );
    await downDispatcher.drain();
    await down.close();
    // The write committed; the job is still pending, with the failure recorded by nobody yet.
    t.is((await pendingRows(ctx.rt.knex, tenant)).length, 1);
    t.deepEqual(await statsOf(ctx.rt.knex, tenant), {});

    // The store is back: the worker's relay sweeps the row and the real worker runs the job.
    workers = startWorkers(ctx.rt);
    const stats = await waitFor(async () => {
      const s = await statsOf(ctx.rt.knex, tenant);
      return s.contacts === 2 ? s : undefined;
    }, 'stats job to run');
    t.deepEqual(stats, { users: 0, contacts: 2, companies: 0 });
    t.is((await pendingRows(ctx.rt.knex, tenant)).length, 0);
  },
);

test.serial('when the write rolls back, then no outbox row exists and nothing is enqueued', async (t) => {
  const tenant = await ctx.freshTenant('obrb');
  await t.throwsAsync(
    withTenant(
      ctx.rt.knex,
      tenant,
      async (db) => {
        await requestTenantStats(db, tenant.id);
        throw new Error('validation failed later in the request');
      },
      { dispatcher: ctx.rt.dispatcher },
    ),
  );
  await ctx.rt.dispatcher.drain();
  t.is((await ctx.rt.knex('platform.outbox').where({ tenant_id: tenant.id })).length, 0);
  const waiting = await ctx.rt.queues
    .queue('tenant-stats', tenant.id)
    .getJobs(['waiting', 'prioritized', 'active', 'completed', 'delayed']);
  t.false(waiting.some((j) => j.data.tenantId === tenant.id));
});

test.serial(
  'when a committed write has a follow-up, then it is enqueued right after commit with a deterministic id, and enqueuing it again is a no-op',
  async (t) => {
    const tenant = await ctx.freshTenant('obok');
    await workers?.close();
    workers = undefined; // keep the job in the queue so it can be inspected
    const outboxId = await withTenant(ctx.rt.knex, tenant, (db) => requestTenantStats(db, tenant.id), { dispatcher: ctx.rt.dispatcher });
    await ctx.rt.dispatcher.drain();
    const row = await ctx.rt.knex('platform.outbox').where({ id: outboxId }).first();
    t.truthy(row.enqueued_at, 'enqueued after commit, without waiting for the relay');
    const jobId = `tenant-stats-${tenant.id}-o${outboxId}`;
    const q = ctx.rt.queues.queue('tenant-stats', tenant.id);
    t.truthy(await q.getJob(jobId));
    // Relay and web racing: the same row enqueued again does not create a second job.
    await q.add('refresh', { tenantId: tenant.id }, { jobId });
    const all = await q.getJobs(['waiting', 'prioritized', 'delayed', 'active', 'completed']);
    t.is(all.filter((j) => j.data.tenantId === tenant.id).length, 1);

    workers = startWorkers(ctx.rt);
    await waitFor(async () => (await q.getJob(jobId))?.finishedOn, 'job to finish');
    t.deepEqual(await statsOf(ctx.rt.knex, tenant), { users: 0, contacts: 0, companies: 0 });
  },
);

test.serial('when a job names a tenant that no longer exists, then it fails for good instead of retrying', async (t) => {
  const q = ctx.rt.queues.queue('tenant-stats', 987654321);
  const job = await q.add('refresh', { tenantId: 987654321 }, { jobId: 'tenant-stats-gone' });
  const failed = await waitFor(async () => {
    const j = await q.getJob(job.id!);
    return j?.failedReason ? j : undefined;
  }, 'job to fail');
  t.regex(failed.failedReason, /tenant_not_found/);
  t.is(failed.attemptsMade, 1, 'an expected failure is not retried');
});

test.serial('a relay sweeps only the outbox rows of its own queue namespace (deployments or test runs sharing a database)', async (t) => {
  const tenant = await ctx.freshTenant('obns');
  // Another process with another QUEUE_PREFIX writes a follow-up and cannot enqueue it.
  const other = await setupTestRuntime();
  try {
    t.not(other.rt.config.queuePrefix, ctx.rt.config.queuePrefix);
    await withTenant(other.rt.knex, tenant, (db) => requestTenantStats(db, tenant.id));
    const [row] = await pendingRows(ctx.rt.knex, tenant);
    t.is(row.queue_namespace, other.rt.config.queuePrefix);
    await ctx.rt
      .knex('platform.outbox')
      .where({ id: row.id })
      .update({ created_at: ctx.rt.knex.raw(`now() - interval '1 minute'`) });
    t.is(await ctx.rt.dispatcher.sweep(), 0, 'this relay leaves it alone');
    t.is((await pendingRows(ctx.rt.knex, tenant)).length, 1);
    t.is(await other.rt.dispatcher.sweep(), 1, 'its own relay sends it');
    t.is((await pendingRows(ctx.rt.knex, tenant)).length, 0);
  } finally {
    await other.cleanup();
  }
});
