import type { Knex } from 'knex';

/**
 * The SQL statements a read sends, for tests that count them. knex's `query` event hears the whole
 * process, and the process has timers of its own (usage counters flushed, the outbox polled) that
 * can send a statement inside the window on a loaded machine; they only ever add. So the read runs
 * `tries` times and the leanest run is kept: the statements a warm read sends are in every run. A
 * statement sent only while a cache is cold (a user, a token, a portal) shows in the first run
 * only, so the count is the warm one's (what the tests mean to count), and a statement the read
 * sends only sometimes would be missed. Only for reads: the read must be safe to repeat.
 */
export async function readStatements<T>(knex: Knex, read: () => Promise<T>, tries = 3): Promise<{ sql: string[]; result: T }> {
  let best: { sql: string[]; result: T } | undefined;
  for (let i = 0; i < tries; i++) {
    const sql: string[] = [];
    const listen = (q: { sql: string }) => sql.push(q.sql);
    knex.on('query', listen);
    let result: T;
    try {
      result = await read();
    } finally {
      knex.off('query', listen);
    }
    if (best === undefined || sql.length < best.sql.length) best = { sql, result };
  }
  return best!;
}
