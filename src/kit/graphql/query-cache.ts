import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import {
  execute,
  GraphQLError,
  parse,
  validate,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';

/**
 * Work a query needs once, not once per request: its parsed document, its validation (spec
 * rules and the depth, alias and cost limits), and its compiled form. Integrations send the same
 * few query strings over and over, so the documents are kept by text (a bounded number, least
 * recently used out first), and validation results and compiled queries by document. Queries
 * run compiled by graphql-jit instead of being interpreted field by field: a page of 50 course
 * templates with translations resolves thousands of fields.
 */
const MAX_DOCUMENTS = 1000;
/** Longer query texts are parsed each time rather than kept (1,000 of these at most: 32 MB). */
const MAX_CACHED_SOURCE = 32 * 1024;

export interface QueryCache {
  parse(source: string): DocumentNode;
  /** `variables`: the request's, which the cost limit reads page sizes from. */
  validate(
    schema: GraphQLSchema,
    document: DocumentNode,
    rules: readonly ValidationRule[],
    variables?: Readonly<Record<string, unknown>> | null,
  ): readonly GraphQLError[];
  execute(args: {
    schema: GraphQLSchema;
    document: DocumentNode;
    rootValue?: unknown;
    contextValue?: unknown;
    variableValues?: Record<string, unknown> | null;
    operationName?: string | null;
  }): Promise<ExecutionResult> | ExecutionResult;
}

/** A compiled operation, and the variables of its document that graphql-jit cannot be trusted to leave out. */
type Compiled = { query: CompiledQuery | ExecutionResult; variables: string[] };

/** Page sizes whose cost is kept per document; a document asked with more distinct ones is costed each time. */
const MAX_COSTS_PER_DOCUMENT = 64;

/**
 * `validate`: how a document is validated (graphql-js's `validate`, or one that adds checks of its
 * own); its result is kept per document. `cost`: a check that depends on the page sizes the
 * request's variables give (`pageVariables` of the document), run once the rules pass and kept per
 * document and page sizes.
 */
export function createQueryCache(
  options: {
    validate?: typeof validate;
    cost?: {
      pageVariables(document: DocumentNode): string[];
      check(
        schema: GraphQLSchema,
        document: DocumentNode,
        variables: Readonly<Record<string, unknown>> | null | undefined,
      ): readonly GraphQLError[];
    };
  } = {},
): QueryCache {
  const validateDocument = options.validate ?? validate;
  const documents = new Map<string, DocumentNode>();
  const validations = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  const costs = new WeakMap<DocumentNode, { names: string[]; byPages: Map<string, readonly GraphQLError[]> }>();
  const costOf = (
    schema: GraphQLSchema,
    document: DocumentNode,
    variables: Readonly<Record<string, unknown>> | null | undefined,
  ): readonly GraphQLError[] => {
    const cost = options.cost;
    if (!cost) return [];
    let entry = costs.get(document);
    if (!entry) costs.set(document, (entry = { names: cost.pageVariables(document), byPages: new Map() }));
    const key = JSON.stringify(entry.names.map((name) => variables?.[name] ?? null));
    let errors = entry.byPages.get(key);
    if (!errors) {
      errors = guarded(() => cost.check(schema, document, variables));
      if (entry.byPages.size < MAX_COSTS_PER_DOCUMENT) entry.byPages.set(key, errors);
    }
    return errors;
  };
  const compiled = new WeakMap<DocumentNode, Map<string, Compiled>>();
  return {
    parse(source) {
      const hit = documents.get(source);
      if (hit) {
        // Most recently used last, so the first key is the one to drop.
        documents.delete(source);
        documents.set(source, hit);
        return hit;
      }
      const document = parseBounded(source); // a syntax error throws, as helix expects
      if (source.length > MAX_CACHED_SOURCE) return document;
      if (documents.size >= MAX_DOCUMENTS) documents.delete(documents.keys().next().value!);
      documents.set(source, document);
      return document;
    },
    validate(schema, document, rules, variables) {
      let errors = validations.get(document);
      if (!errors) {
        errors = guarded(() => validateDocument(schema, document, rules));
        validations.set(document, errors);
      }
      return errors.length ? errors : costOf(schema, document, variables);
    },
    execute(args) {
      const { schema, document, operationName } = args;
      let byOperation = compiled.get(document);
      if (!byOperation) compiled.set(document, (byOperation = new Map()));
      const key = operationName ?? '';
      let entry = byOperation.get(key);
      if (!entry)
        byOperation.set(
          key,
          (entry = { query: compileQuery(schema, document, operationName ?? undefined), variables: variablesInLiterals(document) }),
        );
      const variables = args.variableValues ?? {};
      if (!isCompiledQuery(entry.query)) return entry.query;
      // graphql-jit gives a variable the request leaves out as null where it stands inside an
      // input object (`input: {localeId: $loc}`), which to a mutation means "clear it"
      // (graphql-jit #91, #230); graphql-js leaves the field out. Such requests run in graphql-js.
      if (entry.variables.some((name) => !Object.hasOwn(variables, name))) return execute({ ...args, variableValues: variables });
      const result = entry.query.query(args.rootValue, args.contextValue, variables);
      // Only variables that do not coerce answer without `data`, and synchronously, before any
      // resolver ran. graphql-jit then says "Expected type Decimal." where a custom scalar
      // (Decimal, LocalDateTime) said what is wrong and how to write it; graphql-js says the
      // scalar's words, and where in an input the value stood. So such a request is answered by
      // graphql-js, which coerces the variables again (and, were it to take them, runs the request).
      if (!isPromise(result) && !('data' in result)) return execute({ ...args, variableValues: variables });
      return result;
    },
  };
}

/**
 * Bounds on reading a query, so a document that is too large or nested too deeply is refused
 * with a message instead of exhausting the stack: a parse of more tokens than this is stopped
 * (the largest query a real client sends has a few hundred), and one that overflows the stack
 * anyway (brackets nested thousands deep) says so.
 */
export const MAX_TOKENS = 10_000;
const TOO_DEEP = 'The query is nested too deeply (selections or fragments inside each other) to be read';

function parseBounded(source: string): DocumentNode {
  try {
    return parse(source, { maxTokens: MAX_TOKENS });
  } catch (err) {
    if (err instanceof RangeError) throw new GraphQLError(TOO_DEEP);
    if (err instanceof GraphQLError && /more th(?:an|at) \d+ tokens/.test(err.message)) {
      throw new GraphQLError(`The query is too large: at most ${MAX_TOKENS.toLocaleString('en')} tokens (names, values and punctuation)`);
    }
    throw err;
  }
}

/** The variables that stand inside an input object or list written in the query (`{localeId: $loc}`, `[$a]`). */
function variablesInLiterals(document: DocumentNode): string[] {
  const names = new Set<string>();
  let depth = 0;
  const nest = { enter: () => void depth++, leave: () => void depth-- };
  visit(document, {
    ObjectValue: nest,
    ListValue: nest,
    Variable(node) {
      if (depth > 0) names.add(node.name.value);
    },
  });
  return [...names];
}

/**
 * Runs a validation. The limit rules throw their refusal; it is a validation error like any other.
 * So is a document whose fragments lead through each other deeper than validation can follow.
 */
function guarded(run: () => readonly GraphQLError[]): readonly GraphQLError[] {
  try {
    return run();
  } catch (err) {
    const refusal = err instanceof RangeError ? new GraphQLError(TOO_DEEP) : err;
    if (!(refusal instanceof GraphQLError)) throw err;
    return [refusal];
  }
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
