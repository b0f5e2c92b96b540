import { getOperationAST, Kind, type DocumentNode, type TypeNode } from 'graphql';

/**
 * Numeric strings for `Int` variables (real-clients.md section 5, "Int as a string"): an n8n
 * workflow declares `query Learners($offset: Int!)` and sends `{"offset": "0"}`, a JSON string,
 * which graphql-js refuses ("Int cannot represent non-integer value"). Such a string is read as
 * the number it writes, before the request is validated and run: only for a variable the
 * operation declares as `Int` (`Int`, `Int!`, `[Int]`, `[Int!]!`, each item of a list), and only a
 * plain whole number within the 32-bit range `Int` has (`"0"`, `"-12"`; not `"1.5"`, `" 3"`,
 * `"1e3"`, `"+1"` or `"2147483648"`). Anything else is left as sent, for graphql-js to refuse as it
 * does. Other types (`ID`, `String`, `Float`, `Decimal`, input objects) are never touched.
 */

const PLAIN_INT = /^-?\d{1,10}$/;
const INT_MAX = 2147483647;

/** The number a plain whole-number string writes, or the value as it was. */
function intOf(value: unknown): unknown {
  if (typeof value !== 'string' || !PLAIN_INT.test(value)) return value;
  const n = Number(value);
  return n >= -INT_MAX - 1 && n <= INT_MAX ? n : value;
}

/** `value` read against a declared type: Int's numeric strings as numbers, lists item by item (a single value stands for a list of one). */
function coerce(type: TypeNode, value: unknown): unknown {
  switch (type.kind) {
    case Kind.NON_NULL_TYPE:
      return coerce(type.type, value);
    case Kind.LIST_TYPE:
      if (Array.isArray(value)) {
        let changed = false;
        const items = value.map((item) => {
          const read = coerce(type.type, item);
          changed ||= read !== item;
          return read;
        });
        return changed ? items : value;
      }
      return coerce(type.type, value);
    default:
      return type.name.value === 'Int' ? intOf(value) : value;
  }
}

/**
 * The request's variables with numeric strings of its `Int` variables read as numbers; the same
 * object when there is nothing to read (or the document names no single operation to run).
 */
export function intStringsAsInts(
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  const operation = getOperationAST(document, operationName);
  let read: Record<string, unknown> | undefined;
  for (const definition of operation?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (!Object.hasOwn(variables, name)) continue;
    const value = coerce(definition.type, variables[name]);
    if (value !== variables[name]) (read ??= { ...variables })[name] = value;
  }
  return read ?? variables;
}
