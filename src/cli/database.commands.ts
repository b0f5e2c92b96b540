import fs from 'node:fs';
import { DEMO, seedDemo } from '../../seeds/demo.js';
import { migrateAll, type TenantMigrationResult } from '../platform/tenancy/migrate.js';
import { restBaseUrl } from './command.js';
import type { Runners } from './manifest.js';

/** The database: migrations of every schema, and the demo tenant. */
export const runners: Runners<'database'> = {
  async migrate(rt, flags) {
    const started = Date.now();
    // Written as each tenant finishes rather than at the end: after an interrupted run the file
    // (and the stderr lines) still name every tenant that was migrated.
    const report = typeof flags.report === 'string' && flags.report ? fs.openSync(flags.report, 'w') : undefined;
    const applied: Record<string, number> = {};
    let migrated = 0;
    const onResult = (r: TenantMigrationResult) => {
      process.stderr.write(
        `${r.ok ? 'ok  ' : 'FAIL'} ${r.slug} (${r.schema}) ${r.applied.length} applied in ${r.ms} ms${r.error ? `: ${r.error}` : ''}\n`,
      );
      if (report !== undefined) fs.writeSync(report, JSON.stringify(r) + '\n');
      if (r.applied.length) migrated++;
      for (const name of r.applied) applied[name] = (applied[name] ?? 0) + 1;
    };
    let result;
    try {
      result = await migrateAll(rt.knex, { concurrency: rt.config.migrateConcurrency, onResult });
    } finally {
      if (report !== undefined) fs.closeSync(report);
    }
    if (result.failed.length) process.stderr.write(`error: migrations failed for tenant(s): ${result.failed.join(', ')}\n`);
    // A summary, not every tenant again: with thousands of tenants the per-tenant lines are on
    // stderr (and in --report); stdout stays small enough to read and to parse.
    const failures = result.tenants.filter((r) => !r.ok).map((r) => ({ slug: r.slug, schema: r.schema, error: r.error }));
    return {
      output: {
        platform: result.platform,
        tenants: result.tenants.length,
        migrated,
        upToDate: result.tenants.length - migrated - failures.length,
        applied,
        failed: result.failed,
        failures,
        seconds: Math.round((Date.now() - started) / 100) / 10,
      },
      exitCode: result.failed.length ? 1 : 0,
    };
  },
  async 'seed:demo'(rt) {
    const tenant = await seedDemo(rt.knex);
    return {
      output: {
        created: Boolean(tenant),
        slug: DEMO.slug,
        restBaseUrl: restBaseUrl(rt.config, DEMO.slug),
        ...(tenant ? { email: DEMO.email, password: DEMO.password } : {}),
      },
    };
  },
};
