import test from 'ava';
import type { DestinationStream } from 'pino';
import { PasswordGuard } from '../../src/modules/users/password-guard.js';
import { ChangeListener } from '../../src/platform/db/change-listener.js';
import { createKnex } from '../../src/platform/db/knex.js';
import { createLogger } from '../../src/platform/logger.js';
import { hex, setupTestRuntime } from '../helpers/harness.js';
import { PgProxy } from '../helpers/pg-proxy.js';

/**
 * Behind a pooler in transaction mode (PgBouncer) a client's session is not its own: each
 * transaction may run on another server connection. What the pool sends must need no session,
 * and what needs one (LISTEN, BullMQ's PostgreSQL backend) goes to DATABASE_DIRECT_URL. These
 * tests stand a proxy in for the pooler where they need one, so they hold on plain PostgreSQL too.
 */

// Straight to PostgreSQL: DATABASE_URL may itself be a pooler (the pooled CI run).
const direct = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL!;

function capturingLogger(): { log: ReturnType<typeof createLogger>; lines: { level: number; msg: string; err?: { message: string } }[] } {
  const lines: { level: number; msg: string; err?: { message: string } }[] = [];
  const destination: DestinationStream = { write: (s: string) => void lines.push(JSON.parse(s)) };
  return { log: createLogger({ logLevel: 'info' }, 'pooler-test', destination), lines };
}

test("when the server connection under a pooled connection no longer holds prepared statements (a pooler gave it another), then the password guard's statements still run, and none is kept by name", async (t) => {
  // One connection, so the statements below all meet the session that forgot.
  const knex = createKnex(direct, { poolMax: 1, applicationName: 'lectern-test-pooler' });
  const namespace = `t${hex()}`;
  const guard = new PasswordGuard(knex, { concurrency: 1, queue: 10, addressFreeFailures: 50, namespace });
  try {
    t.deepEqual(await guard.check('1:someone@pooler.test', '127.0.0.9', null, 'wrong-password'), { ok: false, reason: 'invalid' });
    await knex.raw('deallocate all');
    t.deepEqual(await guard.check('1:someone@pooler.test', '127.0.0.9', null, 'wrong-password'), { ok: false, reason: 'invalid' });
    t.is(Number((await knex.raw('select count(*) as n from pg_prepared_statements')).rows[0].n), 0, 'no statement left prepared by name');
  } finally {
    await knex('platform.login_limits').where('key', 'like', `%${namespace}%`).delete();
    await knex.destroy();
  }
});

test("when the listener's connection accepts LISTEN but delivers no notifications (a pooler in transaction mode), then it never turns the caches on, and says once that LISTEN needs DATABASE_DIRECT_URL", async (t) => {
  const proxy = await PgProxy.start(direct, { dropNotifications: true });
  const { log, lines } = capturingLogger();
  const listener = new ChangeListener(proxy.url, log, 100, 300);
  try {
    await listener.ensureStarted();
    let everLive = false;
    const until = Date.now() + 2000;
    while (Date.now() < until) {
      everLive ||= listener.live;
      await new Promise((r) => setTimeout(r, 10));
    }
    t.false(everLive, 'caches stayed off');
    const warnings = lines.filter((l) => l.level === 40);
    t.is(warnings.length, 1, 'retried several times, said once');
    t.regex(warnings[0]!.msg, /users and tokens are not cached/);
    t.regex(warnings[0]!.err!.message, /DATABASE_DIRECT_URL/);
  } finally {
    await listener.stop();
    await proxy.close();
  }
});

test("when DATABASE_URL goes through a pooler and DATABASE_DIRECT_URL does not, then the change listener and BullMQ's PostgreSQL backend use the direct one, and only the pool uses the pooler", async (t) => {
  const proxy = await PgProxy.start(direct, { dropNotifications: true });
  // BullMQ on its PostgreSQL backend (no REDIS_URL): it LISTENs and holds session locks.
  const ctx = await setupTestRuntime({ DATABASE_URL: proxy.url, DATABASE_DIRECT_URL: direct, REDIS_URL: undefined }, 'pooled');
  try {
    t.is(ctx.rt.directDatabaseUrl, direct);
    const tenant = await ctx.freshTenant('pooler');
    await ctx.rt.queues
      .queue('tenant-stats', tenant.id)
      .add('refresh', { tenantId: tenant.id }, { jobId: `tenant-stats-${tenant.id}-pooler` });
    t.truthy(await ctx.rt.queues.queue('tenant-stats', tenant.id).getJob(`tenant-stats-${tenant.id}-pooler`));
    await ctx.rt.changes.ensureStarted();
    t.true(ctx.rt.changes.live, 'the listener hears the database: it is not behind the "pooler"');
    const applications = new Set(proxy.trips.map((trip) => trip.application));
    t.deepEqual([...applications], ['lectern-pooled'], 'only the pool went through the pooler');
  } finally {
    await ctx.cleanup();
    await proxy.close();
  }
});
