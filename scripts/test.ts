import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureEmbeddedDatabase, type EmbeddedDatabase } from '../src/platform/db/embedded.js';
import { createKnex } from '../src/platform/db/knex.js';
import { createLogger } from '../src/platform/logger.js';
import { migratePlatform } from '../src/platform/tenancy/migrate.js';

/**
 * `npm test`: runs ava against DATABASE_URL / REDIS_URL when set; otherwise starts the embedded
 * PostgreSQL (database `lectern_test`) and BullMQ runs on its PostgreSQL backend. The platform
 * schema is migrated once here, so parallel test files never race to create it.
 */
const log = createLogger({ logLevel: 'warn' }, 'test-runner', 2);
let embedded: EmbeddedDatabase | undefined;
let databaseUrl = process.env.DATABASE_URL || undefined;
if (!databaseUrl) {
  embedded = await ensureEmbeddedDatabase(path.resolve(process.env.DATA_DIR || '.lectern'), 'lectern_test', log);
  databaseUrl = embedded.url;
}
const knex = createKnex(databaseUrl, { poolMax: 2, applicationName: 'lectern-test-runner' });
await migratePlatform(knex);
await knex.destroy();

process.stderr.write(
  `lectern tests: database ${embedded ? 'embedded PostgreSQL' : 'DATABASE_URL'}, queues ${process.env.REDIS_URL ? 'Redis (REDIS_URL)' : 'BullMQ PostgreSQL backend'}\n`,
);
const ava = spawn(process.execPath, [path.resolve('node_modules/ava/entrypoints/cli.mjs'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: process.env.LOG_LEVEL || 'silent' },
});
const code = await new Promise<number>((resolve) => ava.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))));
if (embedded?.owned) await embedded.stop();
process.exit(code);
