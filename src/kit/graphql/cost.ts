import {
  Kind,
  TypeInfo,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
} from 'graphql';
import { DEFAULT_PAGE, MAX_PAGE } from './lists.js';

/**
 * The document as the cost limit must see it. graphql-armor's cost rule multiplies a list by
 * its `first` only when that is written in the query as a number; a page size given by a
 * variable, or left out, would count once, so a query could pass the limit by moving its page
 * sizes into variables. Here every paged list's `first` is written in: the variable's value
 * when the request gives it (clamped to the largest page a list takes; the cost is then kept per query text
 * and page sizes, see query-cache.ts), the maximum when the value is not a whole number (such a
 * request fails to coerce anyway), the variable's declared default when the request leaves it out,
 * and the default page when it is left out or null. A list that takes
 * no `first` (a record's whole list: a path's objectives, a template's prices) counts once, as
 * clients read them whole; what such lists multiply is bounded when the request runs, by its
 * record budget (MAX_RECORDS_PER_REQUEST, spent by every list). A list filtered in the query
 * text on `{field: id, operation: eq}` answers at most one record (ids are unique): it counts as a
 * page of one, whatever its `first`, so one event's 100-session pages cost what they read.
 */
export function withPages(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables?: Readonly<Record<string, unknown>> | null,
): DocumentNode {
  // A variable the request leaves out takes its declared default (`$n: Int = 100`): counted so.
  const defaults: Record<string, unknown> = {};
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const v of d.variableDefinitions ?? []) if (v.defaultValue) defaults[v.variable.name.value] = valueFromASTUntyped(v.defaultValue);
  }
  const valueOf = (name: string) => (variables && variables[name] !== undefined ? variables[name] : defaults[name]);
  const typeInfo = new TypeInfo(schema);
  return visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node: FieldNode) {
        if (!typeInfo.getFieldDef()?.args.some((a) => a.name === 'first')) return undefined;
        const given = node.arguments?.find((a) => a.name.value === 'first');
        const one = oneById(node);
        if (given?.value.kind === Kind.INT && !one) return undefined;
        const pages = one ? 1 : given?.value.kind === Kind.VARIABLE ? pageOf(valueOf(given.value.name.value)) : DEFAULT_PAGE;
        const first: ArgumentNode = {
          kind: Kind.ARGUMENT,
          name: { kind: Kind.NAME, value: 'first' },
          value: { kind: Kind.INT, value: String(pages) },
        };
        return { ...node, arguments: [...(node.arguments ?? []).filter((a) => a !== given), first] };
      },
    }),
  );
}

/** Whether the list's `filters`, as written in the query, hold `{field: id, operation: eq}` (any value): at most one record. */
function oneById(node: FieldNode): boolean {
  const filters = node.arguments?.find((a) => a.name.value === 'filters')?.value;
  if (!filters) return false;
  const items = filters.kind === Kind.LIST ? filters.values : [filters];
  return items.some((item) => {
    if (item.kind !== Kind.OBJECT) return false;
    const word = (name: string) => {
      const v = item.fields.find((f) => f.name.value === name)?.value;
      return v && (v.kind === Kind.ENUM || v.kind === Kind.STRING) ? v.value : undefined;
    };
    return word('field') === 'id' && word('operation') === 'eq';
  });
}

/** The largest page any list takes (WebLink's categories); most take {@link MAX_PAGE}. */
const LARGEST_PAGE = 1000;

function pageOf(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_PAGE;
  // Up to the largest page any list takes (a list refuses more than its own largest page when it runs).
  return Number.isInteger(value) ? Math.min(LARGEST_PAGE, Math.max(0, value as number)) : MAX_PAGE;
}

/** The variables a document gives some list's `first` (its cost depends on their values). */
export function pageVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    Argument(node) {
      if (node.name.value === 'first' && node.value.kind === Kind.VARIABLE) names.add(node.value.name.value);
    },
  });
  return [...names].sort();
}
