import type { Knex } from '../db/knex.js';
import type { Tenant } from '../tenancy/tenant.js';

/** What every resolver gets: the request's tenant transaction and who is asking. */
export interface GraphQLContext {
  db: Knex;
  tenant: Tenant;
  user: { id: number; email: string; companyId: number | null; permissions: string[] };
  /** The OAuth client the access token was issued to (null on the public WebLink API). */
  clientId: string | null;
  /** WebLink: the locale asked for with `weblink-content-locale`, whose translations overlay authored content. */
  contentLocale?: { id: number } | null;
  /** This request's instance of a loader (DataLoader, a memoised read), made on first use. */
  loader<T>(key: string, make: (db: Knex) => T): T;
  /** Drops this request's instance of a loader, so the next use reads again: for a write that changes what it read. */
  forget(key: string): void;
  /**
   * Runs `work` after every write this request started before it. GraphQL resolves the fields
   * of a mutation group (`courseTemplate { update upsertTranslation }`) side by side; each
   * checks what is stored before it writes, so they take turns.
   */
  inTurn<T>(work: () => Promise<T>): Promise<T>;
}

/** The per-request parts of a {@link GraphQLContext}: its loaders and its turn of writes. */
export function requestScope(db: Knex): Pick<GraphQLContext, 'loader' | 'forget' | 'inTurn'> {
  const made = new Map<string, unknown>();
  let last: Promise<unknown> = Promise.resolve();
  return {
    loader<T>(key: string, make: (db: Knex) => T): T {
      if (!made.has(key)) made.set(key, make(db));
      return made.get(key) as T;
    },
    forget(key) {
      made.delete(key);
    },
    inTurn<T>(work: () => Promise<T>): Promise<T> {
      const turn = last.then(work, work);
      last = turn.catch(() => undefined);
      return turn;
    },
  };
}
