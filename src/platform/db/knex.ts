import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { tooManyBindings } from './transaction.js';
import { limitSchemasPerConnection, withinSchemaLimit } from './recycle.js';

export type { Knex };
/** A transaction (or the root knex) that service functions receive first. */
export type Db = Knex | Knex.Transaction;

// BIGINT (int8) and COUNT(*) come back as strings by default; ids here fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));
// NUMERIC stays a string in pg; money maths is done in SQL, and callers format explicitly.
// DATE and TIMESTAMP (without zone) stay strings so no process time zone leaks into them.
pg.types.setTypeParser(pg.types.builtins.DATE, (v: string) => v);
pg.types.setTypeParser(pg.types.builtins.TIMESTAMP, (v: string) => v.replace(' ', 'T'));

export interface KnexOptions {
  poolMax: number;
  applicationName: string;
  /** The process's queue namespace (QUEUE_PREFIX): outbox rows written through this pool belong to it ({@link queueNamespaceOf}). */
  queueNamespace?: string;
  /** Where knex's own warnings go (the migrator prints to stdout otherwise). */
  log?: Logger | undefined;
  /** A connection that has served more distinct tenant schemas is replaced (recycle.ts); 0 or absent: no limit. */
  maxSchemasPerConnection?: number;
  /** A connection older than this (ms) is replaced when next handed out; 0 or absent: no limit. */
  maxConnectionAgeMs?: number;
}

/**
 * The queue namespace of each pool, by its client's config: the one object that the root knex,
 * its transactions, their savepoints and our own leases (transaction.ts) all share. A pool names
 * no session setting for it: behind a pooler in transaction mode (PgBouncer) a session setting
 * stays on whichever server connection it was sent on, for other clients to write with.
 */
const queueNamespaces = new WeakMap<object, string>();

/** The queue namespace of the pool `db` runs on (QUEUE_PREFIX), if it was given one. */
export function queueNamespaceOf(db: Db): string | undefined {
  const config: unknown = (db.client as { config?: unknown } | undefined)?.config;
  return config && typeof config === 'object' ? queueNamespaces.get(config) : undefined;
}

/**
 * One pool per process. Never set `searchPath` here, nor any other session setting: tenancy is
 * per transaction (see withTenant), and a session is not ours behind a pooler in transaction mode.
 */
export function createKnex(databaseUrl: string, opts: KnexOptions): Knex {
  const knex: Knex = knexFactory({
    client: 'pg',
    connection: { connectionString: databaseUrl, application_name: opts.applicationName },
    pool: {
      min: 0,
      max: opts.poolMax,
      afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
        unnamedStatementsOnly(conn);
        done(null, conn);
      },
      // Checked each time the pool hands a connection out: never during a transaction.
      validate: (conn: pg.Client): boolean => withinSchemaLimit(knex.client.config as object, conn),
      // A tenth of jitter, so connections made together are not all replaced at once.
      ...(opts.maxConnectionAgeMs
        ? {
            maxConnectionLifetimeMillis: opts.maxConnectionAgeMs,
            maxConnectionLifetimeJitterMillis: Math.floor(opts.maxConnectionAgeMs / 10),
          }
        : {}),
    },
    acquireConnectionTimeout: 10000,
    log: {
      warn: (m: unknown) => opts.log?.warn({ knex: m }, 'knex warning'),
      error: (m: unknown) => opts.log?.error({ knex: m }, 'knex error'),
      deprecate: (m: unknown) => opts.log?.debug({ knex: m }, 'knex deprecation'),
      debug: (m: unknown) => opts.log?.debug({ knex: m }, 'knex debug'),
    },
  });
  if (opts.queueNamespace) queueNamespaces.set(knex.client.config as object, opts.queueNamespace);
  limitSchemasPerConnection(knex.client.config as object, opts.maxSchemasPerConnection ?? 0);
  // Statements outside a request transaction get the same refusal of too many bound values.
  const client = knex.client as { query(conn: unknown, obj: { bindings?: unknown[] }): Promise<unknown> };
  const query = client.query.bind(client);
  client.query = (conn, obj) => {
    const tooMany = tooManyBindings(obj);
    return tooMany ? Promise.reject(tooMany) : query(conn, obj);
  };
  return knex;
}

/**
 * Sends every statement of `conn` unnamed. node-postgres prepares a statement given a `name`
 * once per connection and then only binds it; behind a pooler in transaction mode (PgBouncer
 * before 1.21) the next transaction may run on another server connection, where that name is
 * unknown ("prepared statement ... does not exist") or already taken ("... already exists").
 * Our own statements are never named; rate-limiter-flexible names its own (the password guard's
 * store runs on this pool). Parsing them anew costs microseconds.
 */
function unnamedStatementsOnly(conn: pg.Client): void {
  const query = conn.query.bind(conn) as (...args: unknown[]) => unknown;
  const unnamed = (...args: unknown[]) => {
    const [config, ...rest] = args;
    // A submittable (a pg Query, our reads' OpenedQuery) goes as it is: it names nothing.
    if (config && typeof config === 'object' && 'name' in config && typeof (config as { submit?: unknown }).submit !== 'function') {
      const { name: _name, ...plain } = config as Record<string, unknown>;
      return query(plain, ...rest);
    }
    return query(...args);
  };
  conn.query = unnamed as typeof conn.query;
}

/** Cheap liveness probe used by /readyz. */
export async function pingDb(knex: Knex): Promise<void> {
  await knex.raw('select 1');
}
