import test from 'ava';
import { createKnex, type Knex } from '../../src/platform/db/knex.js';
import { requestTenantStats } from '../../src/modules/tenant-stats/tenant-stats.service.js';
import { freePort } from '../../src/platform/util/net.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { dropQueueNamespace, hex, request, setupTestRuntime, spawnTs, testConfig, waitFor, type TestContext } from '../helpers/harness.js';
import { orderFor, orderSetup, type OrderSetup } from '../helpers/orders.js';
import { basic, PASSWORD } from '../helpers/rest.js';

/**
 * Each outbox row belongs to the queue namespace (QUEUE_PREFIX) of the process that wrote it, so
 * a relay sweeps only its own. Behind a pooler in transaction mode (PgBouncer) processes share
 * server connections, so the namespace must travel with the row, never as a session setting.
 */

let ctx: TestContext;
let tenant: Tenant;
let setup: OrderSetup;

test.serial.before(async () => {
  ctx = await setupTestRuntime();
  tenant = await ctx.freshTenant('obns');
  setup = await orderSetup(ctx.rt.knex, tenant, 'obns');
});
test.after.always(async () => {
  await ctx?.cleanup();
});

const namespaceOf = async (id: number) => (await ctx.rt.knex('platform.outbox').where({ id }).first()).queue_namespace as string;

test.serial(
  "when a pooled connection carries another process's namespace in its session (as a pooler's shared server connection does), then rows written on it still take the pool's own",
  async (t) => {
    // Straight to PostgreSQL and one connection, so the session below is the one every write gets.
    const own = `t${hex()}own`;
    const knex: Knex = createKnex(ctx.rt.directDatabaseUrl, { poolMax: 1, applicationName: 'lectern-test-namespace', queueNamespace: own });
    try {
      await knex.raw(`select set_config('lectern.queue_namespace', 'another_deployment', false)`);
      const ids = [
        await withTenant(knex, tenant, (db) => requestTenantStats(db, tenant.id)),
        // A savepoint inside a request's transaction.
        await withTenant(knex, tenant, (db) => db.transaction((sp) => requestTenantStats(sp, tenant.id))),
        // knex's own transaction (the CLI and the relay use those).
        await knex.transaction((trx) => requestTenantStats(trx, tenant.id)),
      ];
      t.is(
        (await knex.raw(`select current_setting('lectern.queue_namespace', true) as ns`)).rows[0].ns,
        'another_deployment',
        'the session kept the other namespace',
      );
      t.deepEqual(await Promise.all(ids.map(namespaceOf)), [own, own, own]);
    } finally {
      await knex.destroy();
    }
  },
);

test.serial(
  'when two web processes with their own QUEUE_PREFIX take orders on one database (through PgBouncer in the pooled suite), then each outbox row carries the namespace of the process that took it',
  async (t) => {
    const prefixes = [`t${hex()}a`, `t${hex()}b`];
    const webs = await Promise.all(
      prefixes.map(async (prefix) => {
        const port = await freePort();
        // No worker takes these namespaces' jobs: the rows stay as written.
        const web = spawnTs('src/web.ts', [], {
          DATABASE_URL: ctx.rt.databaseUrl,
          PORT: String(port),
          HOST: '127.0.0.1',
          QUEUE_PREFIX: prefix,
        });
        return { prefix, port, web };
      }),
    );
    try {
      for (const w of webs) {
        await waitFor(
          async () => (await request(w.port, { path: '/healthz' }).catch(() => undefined))?.status === 200,
          `web ${w.prefix} to listen`,
          60000,
          200,
        );
      }
      // Both processes write at once, several orders each in flight, so their transactions share
      // whatever server connections a pooler has.
      const taken: { prefix: string; orderId: number }[] = [];
      await Promise.all(
        webs.map(async (w, wi) => {
          for (let round = 0; round < 6; round++) {
            await Promise.all(
              [0, 1, 2, 3].map(async (k) => {
                const r = await request(w.port, {
                  method: 'POST',
                  path: '/api/v2/orders',
                  host: `${tenant.slug}.localhost`,
                  headers: { authorization: basic(setup.email, PASSWORD) },
                  body: orderFor(setup, wi * 100 + round * 4 + k),
                });
                if (r.status !== 200) throw new Error(`order on ${w.prefix}: ${r.status} ${r.text}\n${w.web.output().stdout.slice(-3000)}`);
                taken.push({ prefix: w.prefix, orderId: r.json.order_id });
              }),
            );
          }
        }),
      );
      const rows: { ns: string; order_id: string }[] = await ctx.rt
        .knex('platform.outbox')
        .where({ tenant_id: tenant.id, queue: 'orders' })
        .select('queue_namespace as ns', ctx.rt.knex.raw(`payload->>'orderId' as order_id`));
      const written = new Map(rows.map((r) => [Number(r.order_id), r.ns]));
      t.is(taken.length, 48);
      const wrong = taken.filter((o) => written.get(o.orderId) !== o.prefix).map((o) => ({ ...o, written: written.get(o.orderId) }));
      t.deepEqual(wrong, [], "rows with another process's namespace (or none)");
    } finally {
      for (const w of webs) w.web.child.kill('SIGTERM');
      await Promise.all(webs.map((w) => w.web.done));
      for (const prefix of prefixes) await dropQueueNamespace(testConfig({ QUEUE_PREFIX: prefix }));
    }
  },
);
