import DataLoader from 'dataloader';
import type { Knex } from '../../platform/db/knex.js';

/**
 * Per-request batching (DataLoader): the rows a page of nodes needs from other tables are read
 * with one statement per kind, however many nodes the page has. Small per-tenant tables
 * (locales, custom field definitions) are read whole, once per request.
 */
export type Row = Record<string, unknown> & { id: number };

/** Rows of `table` by id. */
export function byId<R extends Row>(db: Knex, table: string): DataLoader<number, R | undefined> {
  return new DataLoader(async (ids) => {
    const rows = (await db(table).whereIn('id', ids as number[])) as R[];
    const map = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => map.get(id));
  });
}

/** Rows of `table` grouped by their `owner` column. */
export function byOwner<R>(db: Knex, table: string, owner: string, orderBy = 'id'): DataLoader<number, R[]> {
  return new DataLoader(async (ids) => {
    const rows = (await db(table).whereIn(owner, ids as number[]).orderBy(orderBy)) as (R & Record<string, number>)[];
    const groups = new Map<number, R[]>();
    for (const r of rows) {
      const list = groups.get(r[owner]!) ?? [];
      list.push(r);
      groups.set(r[owner]!, list);
    }
    return ids.map((id) => groups.get(id) ?? []);
  });
}

/** A whole small table, read once per request on first use. */
export function wholeTable<R extends Row>(db: Knex, table: string, orderBy = 'id'): () => Promise<Map<number, R>> {
  let all: Promise<Map<number, R>> | undefined;
  return () => (all ??= db(table).orderBy(orderBy).then((rows: R[]) => new Map(rows.map((r) => [r.id, r]))));
}
