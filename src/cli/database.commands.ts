import { DEMO, seedDemo } from '../../seeds/demo.js';
import { migrateAll } from '../platform/tenancy/migrate.js';
import { restBaseUrl, type Commands } from './command.js';

/** The database: migrations of every schema, and the demo tenant. */
export const databaseCommands: Commands = {
  migrate: {
    summary: 'Migrate the platform schema, then every tenant schema (bounded parallelism)',
    flags: {},
    async run(rt) {
      const result = await migrateAll(rt.knex, {
        concurrency: rt.config.migrateConcurrency,
        onResult: (r) => process.stderr.write(`${r.ok ? 'ok  ' : 'FAIL'} ${r.slug} (${r.schema}) ${r.applied.length} applied in ${r.ms} ms${r.error ? `: ${r.error}` : ''}\n`),
      });
      if (result.failed.length) process.stderr.write(`error: migrations failed for tenant(s): ${result.failed.join(', ')}\n`);
      return { output: result, exitCode: result.failed.length ? 1 : 0 };
    },
  },
  'seed:demo': {
    summary: `Create the '${DEMO.slug}' tenant with an admin user and sample data (no-op when it exists)`,
    flags: {},
    async run(rt) {
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
  },
};
