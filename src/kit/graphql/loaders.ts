import DataLoader from 'dataloader';

/**
 * Per-request batching (DataLoader): the rows a page of nodes needs from other tables are read
 * with one statement per kind, however many nodes the page has. Small per-tenant tables
 * (locales, custom field definitions) are read whole, once per request. The reads are the
 * owning modules' data functions (`eventsByIds(db, ids)`): the kit batches, it names no table.
 */

/** Records by id, through `read` (one call per batch of ids). */
export function byId<R extends { id: number }>(read: (ids: number[]) => Promise<R[]>): DataLoader<number, R | undefined> {
  return new DataLoader(async (ids) => {
    const rows = await read([...ids]);
    const map = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => map.get(id));
  });
}

/** Records grouped by the record they belong to (`ownerOf`), in the order `read` returns them. */
export function byOwner<R>(read: (ownerIds: number[]) => Promise<R[]>, ownerOf: (row: R) => number): DataLoader<number, R[]> {
  return new DataLoader(async (ids) => {
    const groups = new Map<number, R[]>();
    for (const r of await read([...ids])) {
      const owner = ownerOf(r);
      const list = groups.get(owner);
      if (list) list.push(r);
      else groups.set(owner, [r]);
    }
    return ids.map((id) => groups.get(id) ?? []);
  });
}

/** A whole small table, read once per request on first use. */
export function wholeTable<R extends { id: number }>(readAll: () => Promise<R[]>): () => Promise<Map<number, R>> {
  let all: Promise<Map<number, R>> | undefined;
  return () => (all ??= readAll().then((rows) => new Map(rows.map((r) => [r.id, r]))));
}
