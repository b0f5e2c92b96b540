import test from 'ava';
import pg from 'pg';
import { hex, runTs } from '../helpers/harness.js';

/**
 * The documented test command, `DATABASE_URL=postgres://postgres@127.0.0.1:5432/lectern_ci npm test`,
 * on a server that has no such database yet: `npm test` (scripts/test.ts) creates it and the run
 * passes; when it cannot be created, the run stops with one line saying how to create it, not a
 * stack trace. Each case runs the real script as a child process on one small, database-free
 * test file, against a database name of its own on this suite's server.
 */
const SERVER_URL = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL!;
const TINY_TEST_FILE = 'test/unit/local-time.test.ts';
const missing = `lectern_testcmd_${hex(4)}`;
const neverMade = `lectern_testcmd_${hex(4)}`;
const role = `lectern_testcmd_${hex(4)}`;

const urlFor = (database: string, user?: string) => {
  const u = new URL(SERVER_URL);
  u.pathname = `/${database}`;
  if (user) [u.username, u.password] = [user, 'testcmd-password'];
  return u.toString();
};

/** Runs `fn` on a connection to `database` of this suite's server, as the suite's user. */
async function on<T>(database: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlFor(database) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
const admin = <T>(fn: (client: pg.Client) => Promise<T>) => on('postgres', fn);

const exists = (database: string) =>
  admin(async (c) => (await c.query('select 1 from pg_database where datname = $1', [database])).rowCount === 1);

test.after.always(async () => {
  await admin(async (c) => {
    for (const database of [missing, neverMade]) await c.query(`drop database if exists ${c.escapeIdentifier(database)} with (force)`);
    await c.query(`drop role if exists ${c.escapeIdentifier(role)}`);
  });
});

test.serial('when DATABASE_URL names a database the server does not have, then npm test creates it and the run passes', async (t) => {
  t.false(await exists(missing));
  const run = await runTs('scripts/test.ts', [TINY_TEST_FILE], { DATABASE_URL: urlFor(missing), DATABASE_DIRECT_URL: undefined });
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, new RegExp(`lectern tests: created database "${missing}"`));
  t.true(await exists(missing));
  // The run migrated the new database's platform schema before the tests ran.
  const tables = await on(
    missing,
    async (c) =>
      (await c.query("select 1 from information_schema.tables where table_schema = 'platform' and table_name = 'tenants'")).rowCount,
  );
  t.is(tables, 1);
  // A second run finds it and says nothing about creating it.
  const again = await runTs('scripts/test.ts', [TINY_TEST_FILE], { DATABASE_URL: urlFor(missing), DATABASE_DIRECT_URL: undefined });
  t.is(again.code, 0, again.stderr);
  t.notRegex(again.stderr, /created database/);
});

test.serial('when the database is missing and cannot be created, then the run stops with one line saying how to create it', async (t) => {
  // A user that may connect but not create databases.
  await admin((c) => c.query(`create role ${c.escapeIdentifier(role)} login nocreatedb password 'testcmd-password'`));
  const run = await runTs('scripts/test.ts', [TINY_TEST_FILE], { DATABASE_URL: urlFor(neverMade, role), DATABASE_DIRECT_URL: undefined });
  t.is(run.code, 1);
  t.is(run.stdout, '');
  const lines = run.stderr.trim().split('\n');
  t.is(lines.length, 1, run.stderr);
  t.regex(
    lines[0]!,
    new RegExp(`^lectern tests: database "${neverMade}" does not exist on .+ and could not be created \\(permission denied`),
  );
  t.regex(lines[0]!, new RegExp(`create it with: createdb -h \\S+ -p \\d+ -U postgres -O ${role} ${neverMade}`));
  t.false(await exists(neverMade));
});
