import type { Knex } from '../../platform/db/knex.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { GraphQLError } from 'graphql';
import { badInput } from './errors.js';

/** Filter values one request may use over all its lists (see GraphQLContext.spendFilterValues). */
export const MAX_FILTER_VALUES_PER_REQUEST = 200;

/**
 * Records one request may answer from lists, over all its lists (see GraphQLContext.spendRecords).
 * The static cost limit (30,000) counts a list without `first` (a path's objectives, a template's
 * prices) once, so lists that lead to each other through those could multiply an answer past any
 * size (objectives x their templates' events: 94 MB). A record costs a query at least 5 in that
 * limit when its list is counted, so a query whose lists all carry `first` answers at most about
 * 6,000 records: this budget never refuses one, only what the static count could not see. The
 * heaviest page real clients send (the PHP SDK's 50 learning paths with their objectives'
 * templates and 20 events each) answers 20,000 only past 19 template objectives a path on
 * average. 20,000 records are about 5 MB of answer.
 */
export const MAX_RECORDS_PER_REQUEST = 20_000;

/** The error of a request past {@link MAX_RECORDS_PER_REQUEST}: what to do, the limit, nothing of where. */
function answerTooLarge(): GraphQLError {
  return new GraphQLError(
    `The answer is too large: the lists of one request answer at most ${MAX_RECORDS_PER_REQUEST.toLocaleString('en')} records in all (each page, and each list inside a record, counts its records). Ask for smaller pages (\`first\`) or fewer nested lists, and read the rest with further requests.`,
    { extensions: { code: 'ANSWER_TOO_LARGE', limit: MAX_RECORDS_PER_REQUEST } },
  );
}

/** What every resolver gets: the request's tenant transaction and who is asking. */
export interface GraphQLContext {
  db: Knex;
  tenant: Tenant;
  user: { id: number; email: string; companyId: number | null; permissions: string[] };
  /** The OAuth client the access token was issued to (null on the public WebLink API). */
  clientId: string | null;
  /**
   * A deleted record's last state, answered by `node(id:)` for its id: a webhook's stored query
   * run for a deletion reads the record as it was (the delivery runs after it is gone).
   */
  tombstone?: { type: string; legacyId: number; row: object } | undefined;
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
  /**
   * Counts `records` a list answers (a page, the list of one record) against the request's
   * budget ({@link MAX_RECORDS_PER_REQUEST}), throwing `ANSWER_TOO_LARGE` past it; once past, every
   * list of the request that has records throws it, so the answer grows no further (an empty
   * list answers: it is whole).
   */
  spendRecords(records: number): void;
  /** Records the request may still answer (0 once past the budget): a list reading for many records at once reads no more than this and one. */
  recordsLeft(): number;
  /**
   * The error of a request that went past its record budget (null while within it): its answer
   * is that error alone, not the records answered before it.
   */
  overBudget(): GraphQLError | null;
  /**
   * Whether `err` is what a mutation threw in its turn ({@link inTurn}) without having sent any
   * statement that may write: a refusal that wrote nothing, so what the request's other
   * mutations wrote can be kept (any other error in a mutation request rolls it all back).
   */
  refusedBeforeWriting(err: unknown): boolean;
}

/**
 * Statements that only read; anything else (insert, update, delete, a savepoint, a CTE) counts as a
 * write. Blind spot: a `select` of a function that writes counts as a read. No data file selects
 * one (the triggers fire on inserts, updates and deletes, which count); one that ever must should
 * be called in a statement that does not start with `select`.
 */
const READS = /^\s*\(?\s*select\b/i;

/** The per-request parts of a {@link GraphQLContext}: its loaders, its turn of writes and its budgets. */
export function requestScope(
  db: Knex,
): Pick<
  GraphQLContext,
  'loader' | 'forget' | 'inTurn' | 'spendFilterValues' | 'spendRecords' | 'recordsLeft' | 'overBudget' | 'refusedBeforeWriting'
> {
  const made = new Map<string, unknown>();
  let last: Promise<unknown> = Promise.resolve();
  // Statements that may write, counted from the first mutation on (queries never take turns).
  let writes = 0;
  let counting = false;
  const refusals = new WeakSet<object>();
  let filterValues = 0;
  let records = 0;
  let tooLarge: GraphQLError | null = null;
  return {
    spendRecords(n) {
      records += n;
      if (records <= MAX_RECORDS_PER_REQUEST || n === 0) return;
      // One error per list it stops (each has its path); the first stands for the request.
      const error = answerTooLarge();
      tooLarge ??= error;
      throw error;
    },
    recordsLeft: () => Math.max(0, MAX_RECORDS_PER_REQUEST - records),
    overBudget: () => tooLarge,
    refusedBeforeWriting: (err) => typeof err === 'object' && err !== null && refusals.has(err),
    spendFilterValues(values) {
      filterValues += values;
      if (filterValues > MAX_FILTER_VALUES_PER_REQUEST) {
        throw badInput(
          `Filters count toward the request's cost: at most ${MAX_FILTER_VALUES_PER_REQUEST} filter values in one request, over all its lists (a filter without values counts one)`,
        );
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
      if (!counting) {
        counting = true;
        db.on('query', (q: { sql?: string }) => {
          if (!READS.test(q.sql ?? '')) writes++;
        });
      }
      const mutate = async () => {
        const before = writes;
        try {
          return await work();
        } catch (err) {
          if (writes === before && typeof err === 'object' && err !== null) refusals.add(err);
          throw err;
        }
      };
      const turn = last.then(mutate, mutate);
      last = turn.catch(() => undefined);
      return turn;
    },
  };
}
