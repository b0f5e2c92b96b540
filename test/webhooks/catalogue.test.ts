import test from 'ava';
import { WEBHOOK_TYPES } from '../../src/modules/webhooks/webhook-types.js';
import { pruneDueLogs } from '../../src/modules/webhooks/webhook-delivery.service.js';
import { startWorkers } from '../../src/app/workers.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { tenantSchemaById } from '../../src/platform/tenancy/tenants.data.js';
import { setupTestRuntime, waitFor, type TestContext } from '../helpers/harness.js';

/**
 * The webhook types and the triggers that fire them (tenant migration 017) are one list each:
 * every type fired by a change has a trigger in a new tenant's schema, and every trigger names a
 * type of the catalogue, so a type added on one side only fails here.
 */
let ctx: TestContext;
test.before(async () => {
  ctx = await setupTestRuntime();
});
test.after.always(async () => {
  await ctx?.cleanup();
});

test('when a tenant is provisioned, then each change type of the catalogue has a capture trigger, and each trigger names a catalogue type', async (t) => {
  const tenant = await ctx.freshTenant('whcat');
  const { rows } = await ctx.rt.knex.raw<{ rows: { table: string; key: string }[] }>(
    `select c.relname as "table", split_part(encode(tg.tgargs, 'escape'), '\\000', 1) as key
       from pg_trigger tg join pg_class c on c.oid = tg.tgrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ? and tg.tgname like 'webhook\\_%' and not tg.tgisinternal`,
    [tenant.schema],
  );
  const fired = new Set(rows.map((r) => r.key));
  const known = new Set(WEBHOOK_TYPES.map((w) => w.key));
  t.deepEqual(
    WEBHOOK_TYPES.filter((w) => !w.manual && !fired.has(w.key)).map((w) => w.key),
    [],
    'change types without a trigger',
  );
  t.deepEqual(
    rows.filter((r) => !known.has(r.key)).map((r) => `${r.table}: ${r.key}`),
    [],
    'triggers naming no type',
  );
  t.deepEqual(
    WEBHOOK_TYPES.filter((w) => w.manual && fired.has(w.key)).map((w) => w.key),
    [],
    'manual types are fired by hand only',
  );
  t.true(rows.length >= 17);
});

test.serial(
  'when a tenant receives nothing more and its deliveries were delivered longer ago than WEBHOOK_LOG_DAYS, then the worker prunes them and their events, keeps the rest, and knows when the next are due, suspended or not',
  async (t) => {
    const tenant = await ctx.freshTenant('whprune');
    const kept = await withTenant(ctx.rt.knex, tenant, async (db) => {
      const [hook] = await db('webhooks')
        .insert({
          name: 'Old',
          type_key: 'event_updated',
          url: 'http://127.0.0.1:9/x',
          query: 'q',
          signing_secret: 'whsec_x',
          lifecycle_state: 'disabled',
        })
        .returning('id');
      const events = (await db('webhook_events')
        .insert([1, 2, 3].map((record_id) => ({ type_key: 'event_updated', record_id, txid: db.raw('txid_current()') })))
        .returning('id')) as { id: string }[];
      const at = (days: number) => db.raw(`now() - make_interval(days => ${days})`);
      await db('webhook_deliveries').insert([
        { webhook_id: hook.id, event_id: events[0]!.id, state: 'delivered', delivered_at: at(40) },
        { webhook_id: hook.id, event_id: events[1]!.id, state: 'delivered', delivered_at: at(2) },
        { webhook_id: hook.id, event_id: events[2]!.id, state: 'failed' },
      ]);
      return events.slice(1).map((e) => Number(e.id));
    });
    const oldest = async () =>
      (
        (await ctx.rt.knex('platform.webhook_log_prunes').where({ tenant_id: tenant.id }).first()) as
          { oldest_delivered_at: Date } | undefined
      )?.oldest_delivered_at;
    const near = (d: Date | undefined, ms: number) => d !== undefined && Math.abs(d.getTime() - ms) < 60_000;
    // As its last prune recorded it: the delivery of 40 days ago.
    await ctx.rt
      .knex('platform.webhook_log_prunes')
      .insert({ tenant_id: tenant.id, oldest_delivered_at: ctx.rt.knex.raw("now() - interval '40 days'") });

    // The worker sweeps the tenants due when it starts (and every 10 minutes), delivering nothing.
    const workers = startWorkers(ctx.rt);
    try {
      await waitFor(async () => (near(await oldest(), Date.now() - 2 * 86_400_000) ? true : undefined), 'the tenant to be pruned');
    } finally {
      await workers.close();
    }
    const left = await withTenant(ctx.rt.knex, tenant, async (db) => ({
      deliveries: (await db('webhook_deliveries').select('state')).map((r: { state: string }) => r.state).sort(),
      events: (await db('webhook_events').select('id')).map((r: { id: string }) => Number(r.id)).sort(),
    }));
    t.deepEqual(left, { deliveries: ['delivered', 'failed'], events: kept.sort() });

    // Suspended, with nothing delivered left once pruned: still pruned, and its row says now
    // (anything delivered later is no older), so it is not due again before WEBHOOK_LOG_DAYS.
    // One day here (workers of other test files, at 30, leave a row of days ago alone).
    const deps = { knex: ctx.rt.knex, log: ctx.rt.log, settings: { logDays: 1 } };
    const daysAgo = (n: number) => ctx.rt.knex.raw(`now() - make_interval(days => ${n})`);
    await withTenant(ctx.rt.knex, tenant, (db) =>
      db('webhook_deliveries')
        .where({ state: 'delivered' })
        .update({ delivered_at: daysAgo(3) }),
    );
    const setOldest = (value: unknown) =>
      ctx.rt.knex('platform.webhook_log_prunes').where({ tenant_id: tenant.id }).update({ oldest_delivered_at: value });
    await setOldest(daysAgo(3));
    await ctx.rt.knex('platform.tenants').where({ id: tenant.id }).update({ status: 'suspended' });
    try {
      t.true((await pruneDueLogs(deps, (id) => tenantSchemaById(ctx.rt.knex, id))) >= 1);
    } finally {
      await ctx.rt.knex('platform.tenants').where({ id: tenant.id }).update({ status: 'active' });
    }
    t.true(near(await oldest(), Date.now()), String(await oldest()));
    t.deepEqual(
      (await withTenant(ctx.rt.knex, tenant, (db) => db('webhook_deliveries').select('state'))).map((r: { state: string }) => r.state),
      ['failed'],
    );
    const notThis = async (id: number) => (id === tenant.id ? t.fail(`tenant ${id} claimed again`) : undefined);
    await pruneDueLogs(deps, notThis);

    // A tenant the sweep cannot prune now is claimed out of the due set (due again in 10 minutes),
    // so a sweep that loops while it claims whole batches ends.
    await setOldest(daysAgo(3));
    t.true((await pruneDueLogs(deps, async () => undefined)) >= 1);
    t.true(near(await oldest(), Date.now() - 86_400_000 + 600_000), String(await oldest()));
    await pruneDueLogs(deps, notThis);
  },
);
