import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { ensureEmbeddedDatabase, type EmbeddedDatabase } from '../src/platform/db/embedded.js';
import { createKnex } from '../src/platform/db/knex.js';
import { createLogger } from '../src/platform/logger.js';
import { migratePlatform } from '../src/platform/tenancy/migrate.js';

/**
 * `npm test`: runs ava against DATABASE_URL / REDIS_URL when set; otherwise starts the embedded
 * PostgreSQL (database `lectern_test`) and BullMQ runs on its PostgreSQL backend. DATABASE_URL's
 * database is created when the server has none of that name. The platform schema is migrated
 * once here, so parallel test files never race to create it.
 */

/** Stops the run with one line on stderr (no stack: what went wrong and what to do). */
function fail(line: string): never {
  process.stderr.write(`lectern tests: ${line}\n`);
  process.exit(1);
}

/**
 * Creates the database `url` names when its server has none of that name (the documented command
 * names `lectern_ci`, which a fresh server lacks), connecting to the server's `postgres` database
 * as `url`'s user. Through DATABASE_DIRECT_URL when it is set: a pooler in front of PostgreSQL
 * may not know a database that does not exist yet. Any failure is one line saying what to do.
 */
async function ensureDatabase(url: string): Promise<void> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return fail('DATABASE_URL is not a URL (postgres://user@host:5432/database)');
  }
  const name = decodeURIComponent(target.pathname.slice(1));
  const server = `${target.hostname}:${target.port || 5432}`;
  const connect = async (database: string) => {
    const u = new URL(url);
    u.pathname = `/${encodeURIComponent(database)}`;
    const client = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 10_000 });
    await client.connect();
    return client;
  };
  const reason = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0];
  try {
    await (await connect(name)).end();
    return;
  } catch (err) {
    // 3D000 invalid_catalog_name: the server answers, the database is not there.
    if ((err as { code?: string }).code !== '3D000') fail(`cannot connect to database "${name}" on ${server}: ${reason(err)}`);
  }
  const user = decodeURIComponent(target.username);
  const createdb = (as: string, owner?: string) =>
    `createdb -h ${target.hostname} -p ${target.port || 5432}${as ? ` -U ${as}` : ''}${owner ? ` -O ${owner}` : ''} ${name}`;
  try {
    const admin = await connect('postgres');
    try {
      await admin.query(`create database ${admin.escapeIdentifier(name)}`).catch((err: { code?: string }) => {
        // Another run created it meanwhile (42P04 duplicate_database; 23505 when they raced in the catalog).
        if (err.code !== '42P04' && err.code !== '23505') throw err;
      });
    } finally {
      await admin.end();
    }
  } catch (err) {
    // 42501 insufficient_privilege: DATABASE_URL's user may not create databases; one who may does it for them.
    const how =
      (err as { code?: string }).code === '42501'
        ? `${createdb('postgres', user)} (as a user allowed to create databases)`
        : createdb(user);
    fail(`database "${name}" does not exist on ${server} and could not be created (${reason(err)}); create it with: ${how}`);
  }
  process.stderr.write(`lectern tests: created database "${name}" on ${server}\n`);
}

const log = createLogger({ logLevel: 'warn' }, 'test-runner', 2);
let embedded: EmbeddedDatabase | undefined;
let databaseUrl = process.env.DATABASE_URL || undefined;
if (databaseUrl) await ensureDatabase(process.env.DATABASE_DIRECT_URL || databaseUrl);
else {
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
