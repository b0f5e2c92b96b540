import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { platformMigrations } from '../../migrations/platform/index.js';
import { tenantMigrations } from '../../migrations/tenant/index.js';
import { migrateAll } from '../../src/platform/tenancy/migrate.js';
import { ROOT, runTs, setupTestRuntime, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
test.serial.before(async () => {
  ctx = await setupTestRuntime();
});
test.after.always(async () => ctx?.cleanup());

test.serial(
  'when one tenant schema is broken, then migrate-all reports it, migrates the others, and the CLI exits non-zero naming it',
  async (t) => {
    const good = await ctx.freshTenant('mgood');
    const bad = await ctx.freshTenant('mbad');
    const knex = ctx.rt.knex;
    // good: forget its history and drop its tables, so the migration has real work to do.
    await knex.raw('drop schema ?? cascade', [good.schema]);
    await knex.raw('create schema ??', [good.schema]);
    // bad: forget the history but keep the tables, so re-running 001 collides.
    await knex(`${bad.schema}.knex_migrations`).delete();

    const result = await migrateAll(knex, { concurrency: 3 });
    const mine = result.tenants.filter((r) => r.slug === good.slug || r.slug === bad.slug);
    const g = mine.find((r) => r.slug === good.slug)!;
    const b = mine.find((r) => r.slug === bad.slug)!;
    t.true(g.ok);
    t.deepEqual(
      g.applied,
      tenantMigrations.map((m) => m.name),
    );
    t.false(b.ok);
    t.regex(b.error!, /already exists/);
    t.true(result.failed.includes(bad.slug));
    t.false(result.failed.includes(good.slug));
    // The failed schema was rolled back as a whole: its tables are still the old ones, no history row.
    t.is((await knex(`${bad.schema}.knex_migrations`).count({ n: '*' }))[0]!.n, 0);
    // The good tenant works again: its roles were re-seeded by the migration.
    t.deepEqual((await knex(`${good.schema}.roles`).pluck('name')).sort(), ['admin', 'viewer']);

    const cli = await runTs('src/cli/main.ts', ['migrate'], { MIGRATE_CONCURRENCY: '2' });
    t.is(cli.code, 1);
    t.regex(cli.stderr, new RegExp(`FAIL ${bad.slug} `));
    t.regex(cli.stderr, new RegExp(`migrations failed for tenant\\(s\\): .*${bad.slug}`));
    t.notRegex(cli.stderr, new RegExp(`FAIL ${good.slug} `));
    const out = JSON.parse(cli.stdout);
    t.true(out.failed.includes(bad.slug));

    // Repair it, and the same command succeeds for that tenant.
    await knex(`${bad.schema}.knex_migrations`).insert(
      tenantMigrations.map((m) => ({ name: m.name, batch: 1, migration_time: new Date() })),
    );
    const again = await migrateAll(knex, { concurrency: 3 });
    t.false(again.failed.includes(bad.slug));
  },
);

test('when a tenant is provisioned, then its schema is at the latest migration', async (t) => {
  const tenant = await ctx.freshTenant('mnew');
  const names = await ctx.rt.knex(`${tenant.schema}.knex_migrations`).orderBy('id').pluck('name');
  t.deepEqual(
    names,
    tenantMigrations.map((m) => m.name),
  );
});

test('every migration file is listed in its index, in file-name order', (t) => {
  for (const [dir, list] of [
    ['platform', platformMigrations],
    ['tenant', tenantMigrations],
  ] as const) {
    const files = fs
      .readdirSync(path.join(ROOT, 'migrations', dir))
      .filter((f) => /^\d+_.*\.ts$/.test(f))
      .sort()
      .map((f) => f.replace(/\.ts$/, ''));
    t.deepEqual(
      list.map((m) => m.name),
      files,
      dir,
    );
  }
});
