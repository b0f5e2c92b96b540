import type { Knex } from '../../platform/db/knex.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { badInput } from './errors.js';

/** Filter values one request may use over all its lists (see GraphQLContext.spendFilterValues). */
export const MAX_FILTER_VALUES_PER_REQUEST = 200;

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
  /**
   * Counts `values` filter values (a filter without values counts one) against the request's
   * budget, throwing a client error past it: filters cost database work whatever the page size,
   * so they count toward a request's cost beside its fields.
   */
  spendFilterValues(values: number): void;
}

/** The per-request parts of a {@link GraphQLContext}: its loaders and its turn of writes. */
export function requestScope(db: Knex): Pick<GraphQLContext, 'loader' | 'forget' | 'inTurn' | 'spendFilterValues'> {
  const made = new Map<string, unknown>();
  let last: Promise<unknown> = Promise.resolve();
  let filterValues = 0;
  return {
    spendFilterValues(values) {
      filterValues += values;
      if (filterValues > MAX_FILTER_VALUES_PER_REQUEST) {
        throw badInput(`Filters count toward the request's cost: at most ${MAX_FILTER_VALUES_PER_REQUEST} filter values in one request, over all its lists (a filter without values counts one)`);
      }
    },
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
