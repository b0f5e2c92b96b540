import { execute, GraphQLError, parse, type GraphQLSchema } from 'graphql';
import { requestScope, type GraphQLContext } from '../../kit/graphql/context.js';
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

/** Runs stored queries on `schema` (the Core schema of the process). */
export function storedQueryRunner(schema: GraphQLSchema): StoredQueryRunner {
  return async (db, { tenant, owner, query, objectId, tombstone }) => {
    const context: GraphQLContext = { db, tenant, clientId: null, ...requestScope(db), user: owner, ...(tombstone ? { tombstone } : {}) };
    const result = await execute({
      schema,
      document: parse(query),
      variableValues: { [OBJECT_ID_VARIABLE]: objectId },
      contextValue: context,
    });
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
