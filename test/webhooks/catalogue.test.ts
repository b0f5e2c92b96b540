import test from 'ava';
import { WEBHOOK_TYPES } from '../../src/modules/webhooks/webhook-types.js';
import { pruneDelivered } from '../../src/modules/webhooks/webhooks.data.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { setupTestRuntime, type TestContext } from '../helpers/harness.js';

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

test('when deliveries were delivered longer ago than WEBHOOK_LOG_DAYS, then pruning deletes them and their events, and keeps the rest', async (t) => {
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
  const gone = await withTenant(ctx.rt.knex, tenant, (db) => pruneDelivered(db, 30));
  t.is(gone, 1);
  const left = await withTenant(ctx.rt.knex, tenant, async (db) => ({
    deliveries: (await db('webhook_deliveries').select('state')).map((r: { state: string }) => r.state).sort(),
    events: (await db('webhook_events').select('id')).map((r: { id: string }) => Number(r.id)).sort(),
  }));
  t.deepEqual(left, { deliveries: ['delivered', 'failed'], events: kept.sort() });
});
