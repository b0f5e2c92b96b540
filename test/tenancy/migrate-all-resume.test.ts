import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import pg from 'pg';
import pLimit from 'p-limit';
import { tenantMigrations } from '../../migrations/tenant/index.js';
import { createKnex, type Knex } from '../../src/platform/db/knex.js';
import { migratePlatform } from '../../src/platform/tenancy/migrate.js';
import { createTenant } from '../../src/platform/tenancy/provision.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { hex, runTs, spawnTs, waitFor } from '../helpers/harness.js';

/**
 * Killing the ops CLI in the middle of `migrate` or `tenants:create` (SIGKILL: no handler runs)
 * and running it again. A database of this file's own: migrate-all goes over every tenant of its
 * database, and other files' tenants (migrate-all.test.ts breaks one on purpose) would mix into
 * the report and the exit code.
 *
 * The CLI is stopped at a known point by a lock this test holds: every migrator writes its
 * history table after a migration's DDL, so a SHARE lock on a tenant's `knex_migrations` holds
 * the CLI there with that tenant's DDL done but not committed; likewise a SHARE lock on
 * `platform.tenants` holds `tenants:create` just before the registry row, its schema complete.
 */

const TENANTS = 30;
const database = `lectern_resume_${hex()}`;
let url: string;
let knex: Knex;
let tenants: Tenant[] = [];
const last = tenantMigrations[tenantMigrations.length - 1]!;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-resume-'));

async function admin<T>(fn: (c: pg.Client) => Promise<T>, connectionString = process.env.DATABASE_URL): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

test.before(async () => {
  await admin((c) => c.query(`create database ${database}`));
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${database}`;
  url = u.toString();
  knex = createKnex(url, { poolMax: 4, applicationName: 'resume-test' });
  await migratePlatform(knex);
  const limit = pLimit(4);
  tenants = await Promise.all(
    Array.from({ length: TENANTS }, (_, i) =>
      limit(() => createTenant(knex, { slug: `r-${String(i).padStart(2, '0')}`, name: `Resume ${i}` })),
    ),
  );
  tenants.sort((a, b) => a.id - b.id); // migrate-all's order
  // Every tenant one migration behind: the latest one undone, as if it had just been released.
  for (const t of tenants) {
    await knex.transaction(async (trx) => {
      await last.down(trx, t.schema);
      await trx(`${t.schema}.knex_migrations`).where({ name: last.name }).delete();
    });
  }
});

test.after.always(async () => {
  await knex?.destroy();
  await admin((c) => c.query(`drop database if exists ${database} with (force)`));
  fs.rmSync(tmp, { recursive: true, force: true });
});

const env = () => ({ DATABASE_URL: url, MIGRATE_CONCURRENCY: '2' });
const lastApplied = async (t: Tenant) =>
  Number((await knex(`${t.schema}.knex_migrations`).where({ name: last.name }).count({ n: '*' }))[0]!.n);
const waiting = async () =>
  (
    await knex.raw<{ rows: { n: number }[] }>(
      `select count(*)::int as n from pg_stat_activity where datname = ? and wait_event_type = 'Lock'`,
      [database],
    )
  ).rows[0]!.n;
const reportOf = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { slug: string; ok: boolean; applied: string[] });

test.serial(
  'when migrate is killed mid-way, then a rerun skips the tenants it finished, migrates the rest exactly once, and reports every tenant',
  async (t) => {
    const held = tenants.slice(10, 12);
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('begin');
    for (const h of held) await blocker.query(`lock table "${h.schema}".knex_migrations in share mode`);

    const firstReport = path.join(tmp, 'first.jsonl');
    const run = spawnTs('src/cli/main.ts', ['migrate', '--report', firstReport], env());
    try {
      // Two at a time: the first ten finish, then both workers stop at the two held tenants.
      await waitFor(
        async () => (run.output().stderr.match(/^ok /gm)?.length ?? 0) >= 10 && (await waiting()) >= 2,
        'the CLI to stop at the held tenants',
        20000,
      );
    } finally {
      run.child.kill('SIGKILL');
    }
    const killed = await run.done;
    await blocker.query('rollback');
    await blocker.end();
    t.is(killed.signal, 'SIGKILL');

    const done = tenants.slice(0, 10);
    const finished = reportOf(firstReport);
    t.deepEqual(
      finished.map((r) => r.slug).sort(),
      done.map((d) => d.slug).sort(),
      'the report of the killed run names the tenants it finished',
    );
    t.true(finished.every((r) => r.ok && r.applied.length === 1 && r.applied[0] === last.name));
    for (const d of done) t.is(await lastApplied(d), 1, d.slug);
    // The two it was killed in had run the migration's DDL: it went with their transactions.
    for (const h of held) t.is(await lastApplied(h), 0, h.slug);

    const secondReport = path.join(tmp, 'second.jsonl');
    const rerun = await runTs('src/cli/main.ts', ['migrate', '--report', secondReport], env());
    t.is(rerun.code, 0, rerun.stderr);
    const lines = rerun.stderr.split('\n').filter((l) => /^(ok {2}|FAIL) /.test(l));
    t.is(lines.length, TENANTS, 'one line per tenant');
    for (const tenant of tenants) {
      const mine = lines.filter((l) => l.startsWith(`ok   ${tenant.slug} (${tenant.schema}) `));
      t.is(mine.length, 1, `${tenant.slug}: ${lines.join(' | ')}`);
      const wasDone = done.includes(tenant);
      t.regex(mine[0] ?? '', wasDone ? / 0 applied in \d+ ms$/ : / 1 applied in \d+ ms$/, tenant.slug);
    }
    const summary = JSON.parse(rerun.stdout);
    t.like(summary, { tenants: TENANTS, migrated: TENANTS - 10, upToDate: 10, failed: [], applied: { [last.name]: TENANTS - 10 } });
    t.deepEqual(
      reportOf(secondReport)
        .map((r) => r.slug)
        .sort(),
      tenants.map((x) => x.slug).sort(),
    );

    // Exactly once: one history row per migration in every schema, and the last one's objects there.
    for (const tenant of tenants) {
      const names = await knex(`${tenant.schema}.knex_migrations`).orderBy('id').pluck('name');
      t.deepEqual(
        names,
        tenantMigrations.map((m) => m.name),
        tenant.slug,
      );
    }
  },
);

test.serial(
  'when tenants:create is killed before the registry row, then no schema is left and the slug can be created again',
  async (t) => {
    const slug = `r-killed-${hex(2)}`;
    const schema = `tenant_${slug.replace(/-/g, '_')}`;
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query('lock table platform.tenants in share mode');
    const run = spawnTs('src/cli/main.ts', ['tenants:create', '--slug', slug, '--name', 'Killed'], env());
    try {
      await waitFor(async () => (await waiting()) >= 1, 'tenants:create to reach the registry row', 20000);
    } finally {
      run.child.kill('SIGKILL');
    }
    await run.done;
    await blocker.query('rollback');
    await blocker.end();

    // The killed command's backend goes once it finds its client gone.
    await waitFor(async () => (await waiting()) === 0, 'the killed backend to end', 10000);
    const exists = async () =>
      Boolean((await knex.raw<{ rows: { oid: string | null }[] }>('select to_regnamespace(?) as oid', [schema])).rows[0]!.oid);
    await waitFor(async () => !(await exists()), 'the half-made schema to go with its transaction', 10000).catch(() => undefined);
    t.false(await exists(), 'no schema without a tenant');
    t.is(await knex('platform.tenants').where({ slug }).first(), undefined);

    const again = await runTs('src/cli/main.ts', ['tenants:create', '--slug', slug, '--name', 'Again'], env());
    t.is(again.code, 0, again.stderr);
    t.is(JSON.parse(again.stdout).schema, schema);
  },
);
