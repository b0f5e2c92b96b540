import test from 'ava';
import { WEBHOOK_TYPES } from '../../src/modules/webhooks/webhook-types.js';
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
