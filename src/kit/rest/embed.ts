import type { Db } from '../../platform/db/knex.js';
import type { Resource, RestRecord, Row } from './resource.js';

/** Loads the records of `resource` for the given ids in one query, keyed by id. */
export async function recordsById(db: Db, resource: Resource, ids: Iterable<unknown>): Promise<Map<number, RestRecord>> {
  const wanted = [...new Set([...ids].filter((v): v is number => typeof v === 'number'))];
  if (!wanted.length) return new Map();
  const rows = (await db(resource.table).whereIn('id', wanted)) as Row[];
  const records = await resource.serialise(db, rows);
  return new Map(records.map((r) => [r.id as number, r]));
}

/** Sets `records[i][field]` to the record of `resource` whose id is `rows[i][column]` (or null). */
export async function embedOne(
  db: Db,
  rows: Row[],
  records: RestRecord[],
  column: string,
  field: string,
  resource: Resource,
): Promise<void> {
  const byId = await recordsById(
    db,
    resource,
    rows.map((r) => r[column]),
  );
  rows.forEach((row, i) => {
    records[i]![field] = byId.get(row[column] as number) ?? null;
  });
}
