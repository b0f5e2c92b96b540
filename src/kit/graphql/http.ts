import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import {
  getOperationAST,
  GraphQLError,
  specifiedRules,
  validate,
  type ASTVisitor,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type ValidationContext,
} from 'graphql';
import { bodyParser } from '@koa/bodyparser';
import { processRequest, type Request as HelixRequest } from 'graphql-helix';
import type { Knex } from '../../platform/db/knex.js';
import { AppError } from '../../platform/errors.js';
import type { AppContext } from '../http/context.js';
import { answerFor, clientErrorFrom } from '../http/errors.js';
import type { PlatformRuntime } from '../../platform/runtime.js';
import type { Tenant } from '../../platform/tenancy/tenant.js';
import { withRequestDb } from '../http/request-db.js';
import { nonJsonBody, sentAsJson, unsupportedMediaType } from '../http/body.js';
import type { Lane } from '../../platform/tenancy/tenant-gate.js';
import type { GraphQLContext } from './context.js';
import { pageVariables, withPages } from './cost.js';
import { rollbackCause, rolledBackError, type RollbackCause } from './mutation-answer.js';
import { createQueryCache, type QueryCache } from './query-cache.js';
import { intStringsAsInts } from './int-variables.js';

/**
 * GraphQL over HTTP for Lectern's GraphQL endpoints (the Core API at `/graphql`, the WebLink
 * API at `/weblink/graphql`), on graphql-helix, kept behind this one module: requests read as
 * real integrations send them ({@link requestParameters}), media types, the query limits, a
 * transaction per request in the tenant's schema, errors as clients may see them, and a server
 * failure (or a mutation's answer that reports a failure: mutation-answer.ts) rolling the
 * request back.
 */

/** Bounds on what one request may ask, with errors that say which limit it passed. */
/**
 * Cost is the most values an answer can hold: each field counts once (an object field 2), times
 * the `first` of every list it is in (see withPages), with no extra weight for depth (depth has
 * its own limit), so it bounds the size of the answer itself. The heaviest operation the real
 * client programs send (the PHP SDK's learning paths with their objectives' courses and their
 * events, 50 to a page) costs about 15,000.
 */
export const QUERY_LIMITS = { depth: 15, aliases: 20, cost: 30000 };
export const VALIDATION_RULES = [
  ...specifiedRules,
  knownOperationTypesRule,
  maxDepthRule({ n: QUERY_LIMITS.depth, ignoreIntrospection: true, exposeLimits: true }),
  maxAliasesRule({ n: QUERY_LIMITS.aliases, exposeLimits: true }),
];
const COST_RULE = costLimitRule({ maxCost: QUERY_LIMITS.cost, depthCostFactor: 1, ignoreIntrospection: true, exposeLimits: true });

/**
 * An operation of a kind the schema does not have (a mutation on the read-only WebLink API) is
 * a validation error, as graphql-js 17 makes it (`KnownOperationTypesRule`); graphql-js 16
 * leaves it to execution, where graphql-jit's compiler throws it as a server failure.
 */
function knownOperationTypesRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (!context.getSchema().getRootType(node.operation)) {
        context.reportError(new GraphQLError(`This API has no ${node.operation}s`, { nodes: node }));
      }
    },
  };
}

/** The cost limit, counted with the page sizes the request's variables give ({@link withPages}). */
export const COST = {
  pageVariables,
  check: (schema: GraphQLSchema, document: DocumentNode, variables: Readonly<Record<string, unknown>> | null | undefined) =>
    validate(schema, withPages(schema, document, variables), [COST_RULE]),
};

const RESPONSE_TYPE = 'application/graphql-response+json';
type Media = 'graphql-response' | 'json';

/**
 * GraphQL over HTTP media types: `application/graphql-response+json` when the client accepts
 * it (request errors keep their 4xx), else `application/json`, with which every GraphQL error
 * (a document that does not parse or validate, variables that do not coerce) answers 200.
 * Undefined when the client accepts neither (406).
 */
function responseType(accept: string): Media | undefined {
  if (!accept) return 'json';
  const types = accept.split(',').map((p) => p.split(';')[0]!.trim().toLowerCase());
  if (types.includes(RESPONSE_TYPE)) return 'graphql-response';
  if (types.some((t) => t === 'application/json' || t === '*/*' || t === 'application/*')) return 'json';
  return undefined;
}

/** What one GraphQL request asks, once read from wherever its client put it (GraphQL over HTTP §5). */
interface GraphQLParameters {
  query?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `variables` or `extensions`: an object, or (as URL parameters are, and as n8n sends body parameters) a string of JSON of one. */
function mapParameter(
  name: string,
  value: unknown,
): { ok: true; value: Record<string, unknown> | undefined } | { ok: false; message: string } {
  if (value === undefined || value === null || value === '') return { ok: true, value: undefined };
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
    if (parsed === null) return { ok: true, value: undefined };
  }
  return isMap(parsed) ? { ok: true, value: parsed } : { ok: false, message: `\`${name}\` must be an object (or a string of JSON of one)` };
}

/**
 * The GraphQL parameters of a request, from where real integrations put them (real-clients.md §4;
 * the WebLink and Core endpoints read them the same way):
 * - GET: the URL; when the URL has no `query`, a JSON body (n8n's default method sends one). The
 *   request stays a GET, so a mutation found there is refused (405) as it is in a URL.
 * - POST: the body; when the body has no `query`, the URL (n8n's query parameters with no body).
 * - `variables` and `extensions` as objects, or as strings of JSON of objects.
 * Other keys of the body or URL (`staff`, a page `offset`) are left alone. A parameter of the
 * wrong type is a malformed request: its message, for a 400 whatever is accepted.
 */
function requestParameters(
  method: string,
  body: unknown,
  url: Readonly<Record<string, unknown>>,
): { ok: true; params: GraphQLParameters } | { ok: false; message: string } {
  const fromBody = isMap(body) ? body : undefined;
  let source: Readonly<Record<string, unknown>> | undefined;
  if (method === 'GET') source = url.query == null && fromBody?.query != null ? fromBody : url;
  else source = fromBody?.query == null && url.query != null ? url : fromBody;
  if (!source) return { ok: true, params: {} };
  const { query, operationName } = source;
  if (query != null && typeof query !== 'string') return { ok: false, message: '`query` must be a string' };
  if (operationName != null && typeof operationName !== 'string') return { ok: false, message: '`operationName` must be a string' };
  const variables = mapParameter('variables', source.variables);
  if (!variables.ok) return variables;
  const extensions = mapParameter('extensions', source.extensions);
  if (!extensions.ok) return extensions;
  return {
    ok: true,
    params: {
      ...(query != null ? { query } : {}),
      ...(operationName != null ? { operationName } : {}),
      ...(variables.value ? { variables: variables.value } : {}),
      ...(extensions.value ? { extensions: extensions.value } : {}),
    },
  };
}

/**
 * A mutation request whose answer must not be committed (mutation-answer.ts): thrown out of its
 * transaction so that it rolls back (its outbox rows with it, never sent), carrying the answer.
 */
class RolledBack extends Error {
  constructor(readonly payload: ExecutionResult) {
    super('The mutation request was rolled back');
  }
}

/** A resolver failed for a reason not the client's: the request's transaction is rolled back. */
class ServerFailure extends Error {
  constructor(readonly failure: unknown) {
    super('A resolver failed');
  }
}

/**
 * Errors as clients see them: a client's mistake keeps its message and code. Any other failure
 * goes to `failed`: the request then ends in {@link ServerFailure}, so that nothing it wrote is
 * kept (a mutation that failed half-way must not leave half its rows) and the client gets a 500
 * that says nothing of its insides.
 */
function maskErrors(result: ExecutionResult, failed: (err: unknown) => void): ExecutionResult {
  if (!result.errors?.length) return result;
  return {
    ...result,
    errors: result.errors.map((e) => {
      const original = e.originalError;
      if (!original || original instanceof GraphQLError) return e;
      if (original instanceof AppError && original.status < 500) {
        return new GraphQLError(original.message, {
          nodes: e.nodes,
          path: e.path,
          extensions: { code: original.code.toUpperCase(), ...(original.details ? { details: original.details } : {}) },
        });
      }
      failed(original);
      return e;
    }),
  };
}

/** A GraphQL-shaped error body (`{"errors": [...]}`) with its status. */
export function graphqlErrors(ctx: AppContext, status: number, message: string, code: string, extra: Record<string, unknown> = {}): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = { errors: [{ message, extensions: { code, ...extra } }] };
}

/** How a request runs: read only (WebLink), and in which lane of its tenant's turn (timeouts, share of the pool). */
export interface AnswerOptions {
  readOnly?: boolean;
  lane?: Lane;
  /** Who the request acts for, as the webhook events its changes capture record it. */
  actorUserId?: number;
}

/** What a request runs as, made inside its transaction; or why it is refused before it runs. */
export type RequestContext =
  { context: GraphQLContext } | { refuse: { status: number; message: string; code: string; headers?: Record<string, string> } };

export interface GraphQLServer {
  /**
   * Answers one GraphQL request in `tenant`'s schema (one transaction; read only when asked):
   * `makeContext` says who it runs as. The media type is checked first (406); a body that is
   * not JSON where the document was to come from is a 415.
   */
  answer(ctx: AppContext, tenant: Tenant, makeContext: (db: Knex) => Promise<RequestContext>, opts?: AnswerOptions): Promise<void>;
  /** Checks the Accept header; false (and a 406 answered) when nothing acceptable can be sent. */
  acceptable(ctx: AppContext): boolean;
}

export function graphqlServer(rt: PlatformRuntime, schema: GraphQLSchema): GraphQLServer {
  const cache: QueryCache = createQueryCache({ cost: COST });

  // A GET's body is read only here, for a request whose URL has no document (bodies of GETs are
  // not read for other routes): the JSON size limit and errors of POST bodies.
  const getBody = bodyParser({
    enableTypes: ['json'],
    detectJSON: sentAsJson,
    parsedMethods: ['GET'],
    jsonLimit: rt.config.bodyLimit,
    jsonStrict: true,
    onError: (err, ctx) => {
      (ctx.state as { bodyError?: unknown }).bodyError = err;
    },
  }) as unknown as (ctx: AppContext, next: () => Promise<void>) => Promise<void>;

  /**
   * Whether the request can only read: anything but a mutation (a document that does not parse,
   * or names no operation it has, executes nothing). Parsing is cached by query text, so this
   * costs a map lookup.
   */
  function readsOnly(params: GraphQLParameters): boolean {
    if (typeof params.query !== 'string') return true;
    let document: DocumentNode;
    try {
      document = cache.parse(params.query);
    } catch {
      return true;
    }
    return getOperationAST(document, params.operationName ?? undefined)?.operation !== 'mutation';
  }

  /**
   * The parameters with numeric strings of `Int` variables read as numbers (int-variables.ts),
   * before the cost limit reads page sizes from them and the request runs; on both APIs, which
   * read requests one way. A document that does not parse is left for helix to refuse.
   */
  function withIntVariables(params: GraphQLParameters): GraphQLParameters {
    if (!params.variables || typeof params.query !== 'string') return params;
    let document: DocumentNode;
    try {
      document = cache.parse(params.query);
    } catch {
      return params;
    }
    const variables = intStringsAsInts(document, params.operationName, params.variables);
    return variables === params.variables ? params : { ...params, variables };
  }

  async function run(
    ctx: AppContext,
    media: Media,
    tenant: Tenant,
    makeContext: (db: Knex) => Promise<RequestContext>,
    given: GraphQLParameters,
    opts: AnswerOptions,
  ) {
    const params = withIntVariables(given);
    const readOnly = opts.readOnly ?? readsOnly(params);
    await withRequestDb(
      rt,
      tenant,
      opts.lane ?? 'api',
      async (db) => {
        const made = await makeContext(db);
        if ('refuse' in made) {
          for (const [name, value] of Object.entries(made.refuse.headers ?? {})) ctx.set(name, value);
          return graphqlErrors(ctx, made.refuse.status, made.refuse.message, made.refuse.code);
        }
        const request: HelixRequest = { body: ctx.request.body, headers: ctx.headers, method: ctx.method, query: ctx.query };
        let failure: unknown;
        let rollBack: RollbackCause | undefined;
        const result = await processRequest<GraphQLContext>({
          ...params,
          request,
          schema,
          validationRules: VALIDATION_RULES,
          parse: cache.parse,
          validate: (s, document, rules) => cache.validate(s, document, rules, params.variables),
          execute: cache.execute,
          contextFactory: () => made.context,
          formatPayload: ({ payload }) => {
            // Decided on the errors as resolvers threw them, before they are masked.
            if (!readOnly) rollBack = rollbackCause(payload as ExecutionResult, made.context);
            return maskErrors(payload as ExecutionResult, (err) => (failure ??= err));
          },
        });
        // helix answers 500 when execution itself threw (its message would be in the body).
        if (failure === undefined && result.type === 'RESPONSE' && result.status >= 500)
          failure = new Error(`GraphQL execution failed: ${JSON.stringify(result.payload)}`);
        if (failure !== undefined) throw new ServerFailure(failure);
        if (result.type !== 'RESPONSE')
          return graphqlErrors(ctx, 400, 'Subscriptions and incremental delivery are not supported', 'BAD_REQUEST');
        for (const h of result.headers) ctx.set(h.name, h.value);
        // Past the request's record budget the answer is the one error, not what was read before it.
        const tooLarge = made.context.overBudget();
        if (tooLarge) result.payload = { data: null, errors: [tooLarge] };
        if (rollBack) throw new RolledBack({ data: null, errors: [...(result.payload.errors ?? []), rolledBackError(rollBack)] });
        // A well-formed request whose document did not parse, validate or coerce: a GraphQL
        // error, which application/json clients get with 200 (GraphQL over HTTP §6.4.1).
        const graphqlError = result.status === 400 && typeof params.query === 'string' && params.query !== '';
        ctx.status = media === 'json' && graphqlError ? 200 : result.status;
        ctx.type = media === 'json' ? 'application/json' : RESPONSE_TYPE;
        ctx.body = result.payload;
      },
      // A query needs no explicit transaction (one round trip per statement); a mutation has one.
      { readOnly, via: { context: 'graphql', actorUserId: opts.actorUserId } },
    );
  }

  return {
    acceptable(ctx) {
      if (responseType(ctx.get('accept'))) return true;
      ctx.status = 406;
      ctx.type = 'application/json';
      ctx.body = { errors: [{ message: `Accept ${RESPONSE_TYPE} or application/json`, extensions: { code: 'NOT_ACCEPTABLE' } }] };
      return false;
    },
    async answer(ctx, tenant, makeContext, opts = {}) {
      const media = responseType(ctx.get('accept'));
      if (!media) return void this.acceptable(ctx);
      if (ctx.method === 'GET' && ctx.query.query == null && ctx.request.body === undefined) await getBody(ctx, async () => undefined);
      // A body of another media type than JSON (none, text/plain, a form: `curl -d` sends one) is
      // not read: where the document was to come from it, a 415 naming the header, rather than
      // "Must provide query string"; beside a document in the URL, it is left alone.
      const other = nonJsonBody(ctx);
      if (other !== undefined && ctx.query.query == null) {
        const refused = unsupportedMediaType(other);
        return graphqlErrors(ctx, refused.status, refused.message, refused.code.toUpperCase());
      }
      if (other === undefined && ctx.state.bodyError !== undefined) {
        // Too large (413), not decompressible, not JSON (400): the same answers REST gives.
        const bodyError = clientErrorFrom(ctx.state.bodyError) ?? new AppError(400, 'bad_request', 'The request body is not valid JSON');
        return graphqlErrors(ctx, bodyError.status, bodyError.message, bodyError.code.toUpperCase());
      }
      const read = requestParameters(ctx.method, other === undefined ? ctx.request.body : undefined, ctx.query);
      if (!read.ok) return graphqlErrors(ctx, 400, read.message, 'BAD_REQUEST');
      try {
        await run(ctx, media, tenant, makeContext, read.params, opts);
      } catch (err) {
        if (err instanceof RolledBack) {
          // Errors of execution, not of the request: 200 with either media type, as a budget refusal answers.
          ctx.status = 200;
          ctx.type = media === 'json' ? 'application/json' : RESPONSE_TYPE;
          ctx.body = err.payload;
          return;
        }
        const { status, code, message, details, requestId } = answerFor(ctx, err instanceof ServerFailure ? err.failure : err);
        graphqlErrors(ctx, status, message, status === 500 ? 'INTERNAL_SERVER_ERROR' : code.toUpperCase(), {
          ...(details ? { details } : {}),
          ...(requestId ? { requestId } : {}),
        });
      }
    },
  };
}
