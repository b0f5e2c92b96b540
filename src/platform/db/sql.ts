import type { Db } from './knex.js';

/**
 * The current time as the tables store it (UTC, `timestamp without time zone`), taken by PostgreSQL
 * so that every row written in one transaction gets the transaction's own time.
 */
export const utcNow = (db: Db) => db.raw(`(now() at time zone 'utc')`);
