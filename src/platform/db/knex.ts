import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { tooManyBindings } from './transaction.js';

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
  /** The process's queue namespace (QUEUE_PREFIX): outbox rows it writes belong to it. */
  queueNamespace?: string;
  /** Where knex's own warnings go (the migrator prints to stdout otherwise). */
  log?: Logger | undefined;
}

/** One pool per process. Never set `searchPath` here: tenancy is per transaction (see withTenant). */
export function createKnex(databaseUrl: string, opts: KnexOptions): Knex {
  const knex = knexFactory({
    client: 'pg',
    connection: { connectionString: databaseUrl, application_name: opts.applicationName },
    pool: {
      min: 0,
      max: opts.poolMax,
      // A session setting, the same for the whole process (never a tenant's): see migrations/platform/005.
      ...(opts.queueNamespace
        ? {
            afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
              conn.query(`select set_config('lectern.queue_namespace', $1, false)`, [opts.queueNamespace], (err) => done(err, conn));
            },
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
  // Statements outside a request transaction get the same refusal of too many bound values.
  const client = knex.client as { query(conn: unknown, obj: { bindings?: unknown[] }): Promise<unknown> };
  const query = client.query.bind(client);
  client.query = (conn, obj) => {
    const tooMany = tooManyBindings(obj);
    return tooMany ? Promise.reject(tooMany) : query(conn, obj);
  };
  return knex;
}

/** Cheap liveness probe used by /readyz. */
export async function pingDb(knex: Knex): Promise<void> {
  await knex.raw('select 1');
}
