import { GraphQLError, specifiedRules, type GraphQLSchema } from 'graphql';
import { requestScope, type GraphQLContext } from '../../kit/graphql/context.js';
import { createQueryCache } from '../../kit/graphql/query-cache.js';
import { storedQueryProblem } from '../../kit/graphql/stored-query.js';
import type { StoredQueryRunner } from './webhook-delivery.service.js';
import { OBJECT_ID_TYPES, OBJECT_ID_VARIABLE } from './webhooks.rules.js';

/**
 * A webhook's stored payload query as the Core API runs it: checked against the schema when it
 * is stored, and run at delivery in the delivery's read-only transaction, as the webhook's owner,
 * with `$objectid` bound (and a deleted record's last state answered by `node`).
 */

/** Why `query` cannot be a webhook's stored query (null: it can), checked as a request is. */
export function storedQueryCheck(schema: GraphQLSchema): (query: string) => string | null {
  return (query) => storedQueryProblem(schema, query, OBJECT_ID_VARIABLE, OBJECT_ID_TYPES);
}

/**
 * Runs stored queries on `schema` (the Core schema of the process). Each query text is parsed,
 * validated and compiled once, as requests' are (query-cache.ts): a webhook's deliveries all run
 * the same text. Validated again here because the schema may have changed since it was stored (a
 * deploy): such a query answers its validation errors, a failed delivery that says why.
 */
export function storedQueryRunner(schema: GraphQLSchema): StoredQueryRunner {
  const cache = createQueryCache();
  return async (db, { tenant, owner, query, objectId, tombstone }) => {
    const document = cache.parse(query);
    const invalid = cache.validate(schema, document, specifiedRules);
    if (invalid.length)
      return { data: null, errors: invalid.map((e) => ({ message: e.message, code: 'GRAPHQL_VALIDATION_FAILED', serverError: false })) };
    const context: GraphQLContext = { db, tenant, clientId: null, ...requestScope(db), user: owner, ...(tombstone ? { tombstone } : {}) };
    const result = await cache.execute({ schema, document, variableValues: { [OBJECT_ID_VARIABLE]: objectId }, contextValue: context });
    return {
      data: result.data ?? null,
      errors: (result.errors ?? []).map((e) => ({
        message: e.message,
        code: typeof e.extensions?.code === 'string' ? e.extensions.code : null,
        // Thrown by a resolver for a reason not the query's (a database failure): worth another attempt.
        serverError: e.originalError !== undefined && !(e.originalError instanceof GraphQLError) && !isClientError(e.originalError),
      })),
    };
  };
}

function isClientError(err: Error): boolean {
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' && status < 500;
}
