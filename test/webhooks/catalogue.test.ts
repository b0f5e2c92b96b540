import test from 'ava';
import { WEBHOOK_TYPES } from '../../src/modules/webhooks/webhook-types.js';
import { pruneDueLogs } from '../../src/modules/webhooks/webhook-delivery.service.js';
import { startWorkers } from '../../src/app/workers.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
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
  'when a tenant receives nothing more and its deliveries were delivered longer ago than WEBHOOK_LOG_DAYS, then the worker prunes them and their events, keeps the rest, and knows when the next are due',
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
    const due = () => ctx.rt.knex('platform.webhook_log_prunes').where({ tenant_id: tenant.id }).first();
    // Due since a minute (as every tenant is after platform migration 011, or after its last prune).
    await ctx.rt
      .knex('platform.webhook_log_prunes')
      .insert({ tenant_id: tenant.id, due_at: ctx.rt.knex.raw("now() - interval '1 minute'") });

    // The worker looks at the tenants due when it starts (and every 10 minutes), delivering nothing.
    const workers = startWorkers(ctx.rt);
    try {
      await waitFor(async () => ((await due())?.due_at > new Date() ? true : undefined), 'the tenant to be pruned');
    } finally {
      await workers.close();
    }
    const left = await withTenant(ctx.rt.knex, tenant, async (db) => ({
      deliveries: (await db('webhook_deliveries').select('state')).map((r: { state: string }) => r.state).sort(),
      events: (await db('webhook_events').select('id')).map((r: { id: string }) => Number(r.id)).sort(),
    }));
    t.deepEqual(left, { deliveries: ['delivered', 'failed'], events: kept.sort() });
    // Next due: the delivery of 2 days ago, at 30 days (WEBHOOK_LOG_DAYS' default).
    const next = (await due()).due_at.getTime();
    t.true(Math.abs(next - (Date.now() + 28 * 86_400_000)) < 60_000, new Date(next).toISOString());

    // Once nothing delivered is left, the tenant is not due at all.
    await withTenant(ctx.rt.knex, tenant, (db) =>
      db('webhook_deliveries')
        .where({ state: 'delivered' })
        .update({ delivered_at: db.raw("now() - interval '31 days'") }),
    );
    await ctx.rt
      .knex('platform.webhook_log_prunes')
      .where({ tenant_id: tenant.id })
      .update({ due_at: ctx.rt.knex.raw('now()') });
    const swept = await pruneDueLogs({ knex: ctx.rt.knex, log: ctx.rt.log, settings: { logDays: 30 } }, (id) => ctx.rt.registry.byId(id));
    t.true(swept >= 1);
    t.is(await due(), undefined);
    t.deepEqual(
      (await withTenant(ctx.rt.knex, tenant, (db) => db('webhook_deliveries').select('state'))).map((r: { state: string }) => r.state),
      ['failed'],
    );
  },
);
