import { getOperationAST, GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema, type TypeNode } from 'graphql';
import { COST, VALIDATION_RULES } from './http.js';

/**
 * A query stored to be run later with one variable (a webhook's payload query, run with
 * `$objectid` bound at delivery): checked when it is stored, with what a request is checked
 * with (the schema, the depth, alias and cost limits), so a mistake is the client's field error
 * then, never a failed delivery later.
 */

/** The most characters a stored query may have. */
export const STORED_QUERY_MAX_LENGTH = 20_000;

const typeText = (t: TypeNode): string =>
  t.kind === 'NonNullType' ? `${typeText(t.type)}!` : t.kind === 'ListType' ? `[${typeText(t.type)}]` : t.name.value;

/**
 * Why `text` cannot be stored as a query run with the one variable `variable` (of a type in
 * `types`, e.g. `ID!` or `String!`), or null when it can: it must parse, be one query (not a
 * mutation), declare that variable and no other without a default, and validate against `schema`
 * within the limits of a request.
 */
export function storedQueryProblem(schema: GraphQLSchema, text: string, variable: string, types: readonly string[]): string | null {
  if (text.length > STORED_QUERY_MAX_LENGTH) return `must be at most ${STORED_QUERY_MAX_LENGTH.toLocaleString('en')} characters`;
  let document: DocumentNode;
  try {
    document = parse(text, { maxTokens: 5000 });
  } catch (err) {
    return `does not parse: ${(err as Error).message}`;
  }
  const operations = document.definitions.filter((d) => d.kind === 'OperationDefinition');
  if (operations.length !== 1) return 'must hold exactly one operation';
  const operation = getOperationAST(document);
  if (!operation || operation.operation !== 'query') return 'must be a query (not a mutation or a subscription)';
  const declared = operation.variableDefinitions ?? [];
  const own = declared.find((v) => v.variable.name.value === variable);
  if (!own) return `must declare $${variable} (${types.join(' or ')}): it is bound to the changed record's id`;
  if (!types.includes(typeText(own.type))) return `$${variable} must be declared as ${types.join(' or ')}, not ${typeText(own.type)}`;
  const others = declared.filter((v) => v !== own && !v.defaultValue && v.type.kind === 'NonNullType');
  if (others.length) return `declares variables nothing binds: ${others.map((v) => `$${v.variable.name.value}`).join(', ')}`;
  let errors: readonly { message: string }[];
  try {
    errors = [...validate(schema, document, VALIDATION_RULES), ...COST.check(schema, document, { [variable]: 'x' })];
  } catch (err) {
    // graphql-armor's limits throw their first finding rather than report it.
    if (!(err instanceof GraphQLError)) throw err;
    errors = [err];
  }
  if (errors.length) return `is not a valid query of this API: ${errors.map((e) => e.message).join('; ')}`;
  return null;
}
