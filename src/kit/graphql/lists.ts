import DataLoader from 'dataloader';
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLInterfaceType,
  type GraphQLUnionType,
  type GraphQLFieldConfigArgumentMap,
} from 'graphql';
import type { Knex } from '../../platform/db/knex.js';
import { isCalendarDate, isDateTime, isTime } from '../../platform/util/dates.js';
import { MAX_FILTER_VALUES_PER_REQUEST, type GraphQLContext } from './context.js';
import { badInput } from './errors.js';
import { requirePermission } from './permissions.js';
import { fromCoreId, fromGlobalId } from './ids.js';

/**
 * List queries as every type has them (api-conventions.md): `filters: [<Type>FieldGraphFilter]`
 * (a field enum, an operation enum, `value` or `values`, always strings), `order: {field,
 * direction}`, `first`, `offset`, `after`, answering a connection with `edges { node cursor }`
 * and `pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }`. One
 * definition per type says which fields filter and order and how; the SQL is built here, with
 * every value bound, never spliced.
 */

export type FilterKind = 'id' | 'ref' | 'int' | 'text' | 'date' | 'datetime' | 'bool' | 'enum' | 'refList' | 'time' | 'instant';

/** A filter value as its column holds it (`null`: an id of another type, which names nothing). */
export type FilterValue = string | number | boolean | null;

export interface ListField {
  /** Column of the list's table (`t`), or for `refList` the linking table (with `expression`: only a name). */
  column: string;
  kind: FilterKind;
  /**
   * SQL over the row `t` (no bound values) that filters and orders in place of `column`: a value
   * the row does not store (places booked, counted from another module's table by its data file).
   */
  expression?: string;
  /** Spells a filter value the way the field stores it before it is checked (`PUBLISHED` as `published`). */
  normalize?: (raw: string) => string;
  /** For `id` and `ref`/`refList`: the GraphQL type the ids name. */
  refType?: string;
  enumValues?: readonly string[];
  /** For `refList`: `{ table, owner, value }` of a linking table (`contains` every given id). */
  link?: { table: string; owner: string; value: string };
  orderable?: boolean;
  description?: string;
  /**
   * A filter the list applies itself (not a comparison of `column`): called with the operation
   * and the converted `value` (or `values`). With `via`, it is one condition of that group: the
   * group's conditions hold together, on one related record (the same event).
   */
  apply?: (q: Knex.QueryBuilder, db: Knex, operation: string, value: FilterValue | FilterValue[]) => void;
  via?: string;
  /** The operations it takes (with `apply`); others are refused by name. */
  operations?: readonly string[];
  /**
   * A permission filtering or ordering by this field needs beside the list's own: its values are
   * another record's (an event's course template title needs COURSE_TEMPLATE_VIEW).
   */
  permission?: string;
  /**
   * Why the field cannot be filtered on: a field clients name that Lectern has no data for. A
   * filter on it is refused by name, whatever its operation, before anything is read (its
   * `column` is never read).
   */
  unsupported?: string;
}

export interface ListSpec<Row> {
  typeName: string;
  table: string;
  fields: Record<string, ListField>;
  defaultOrder: { field: string; direction: 'asc' | 'desc' };
  /** The view permission, checked before anything is read. */
  permission: string | null;
  /** The largest page, when a list's records are few and small and clients ask for all at once (WebLink categories: 1,000). Default {@link MAX_PAGE}. */
  maxPage?: number;
  node: () => GraphQLObjectType<Row, GraphQLContext> | GraphQLUnionType | GraphQLInterfaceType;
  /**
   * How its filters read ids: as the Core API does (the default: the production service's
   * spelling of an event's id, `Course:<n>`, names that event; ids.ts), or as WebLink does, whose
   * `Course` is a course template (each type by its own name only).
   */
  ids?: 'core' | 'weblink';
  /** Input type names when they are not `<Type>FieldGraphFilter` / `<Type>FieldGraphOrder` (WebLink: `CourseFieldFilter`). */
  inputNames?: { filter: string; order: string };
  /** The rows listed when they are not a table's (a union of tables), aliased `t` like a table. */
  from?: (db: Knex) => Knex.QueryBuilder;
  /** More arguments of the list, applied by `where` (WebLink's `search`). */
  args?: GraphQLFieldConfigArgumentMap;
  /** Checks them once per page (and spends their filter values), returning what they add to the page's query. */
  where?: (args: Record<string, unknown>, ctx: GraphQLContext) => (q: Knex.QueryBuilder) => void;
  /** Groups of `via` filters: `apply` adds the conditions (all of them, to each related record it checks). */
  via?: Record<string, (q: Knex.QueryBuilder, db: Knex, conditions: (w: Knex.QueryBuilder) => void) => void>;
  /** Scoping every query of this list (WebLink: published only). */
  scope?: (q: Knex.QueryBuilder, ctx: GraphQLContext) => void;
  /** Adds columns (and the joins they need) to the page's query. */
  select?: (q: Knex.QueryBuilder, ctx: GraphQLContext) => void;
  /**
   * Adds columns joined to the page once it is cut (its rows aliased `t`), so a join that only
   * decorates rows (a translation to overlay, WebLink) runs for the page's rows, not for every
   * row the filters keep. Answers whether it added anything (else the page is read as it is).
   */
  overlay?: (q: Knex.QueryBuilder, ctx: GraphQLContext) => boolean;
  /** Lets loaders keep the rows the list read, so node fields need not read them again. */
  prime?: (ctx: GraphQLContext, rows: Row[]) => void;
  description?: string;
  /**
   * Adds `orderBy: [{field, direction}]` beside `order`: several orders, the first deciding
   * first (some clients send `orderBy: [{field: code}, {field: timeZonedStart}]`).
   */
  orderBy?: boolean;
}

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;
/** Filters one list takes, and values one filter takes (`in`, `notin`, `contains`). */
export const MAX_FILTERS = 20;
export const MAX_FILTER_VALUES = 100;
/** Orders one `orderBy` takes. */
export const MAX_ORDERS = 5;

/**
 * `first` on a list inside a record that has no connection of its own (a template's events):
 * bounded like a page, and counted by the cost limit like one, so lists that lead back to
 * each other cannot multiply an answer past what the limit allows.
 */
export const NESTED_FIRST_ARGS = { first: { type: GraphQLInt, description: `How many: default ${DEFAULT_PAGE}, at most ${MAX_PAGE}.` } };
export function nestedFirst(args: { first?: number | null }): number {
  const first = args.first ?? DEFAULT_PAGE;
  if (first < 0 || first > MAX_PAGE) throw badInput(`first must be between 0 and ${MAX_PAGE}`);
  return first;
}

export const FilterOperationEnum = new GraphQLEnumType({
  name: 'FilterOperation',
  description:
    '`eq ne gt ge lt le like wordlike` take `value`; `in notin contains` take `values`; `isnull notnull` take neither. `like` uses SQL wildcards (`%excel%`), case-insensitive; `wordlike` matches a whole word. `ne` and `notin` also match records with no value (add a `notnull` filter to leave those out).',
  values: Object.fromEntries(
    ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'like', 'wordlike', 'in', 'notin', 'contains', 'isnull', 'notnull'].map((v) => [v, { value: v }]),
  ),
});

export const OrderDirectionEnum = new GraphQLEnumType({
  name: 'OrderDirection',
  values: { asc: { value: 'asc' }, desc: { value: 'desc' } },
});

export const PageInfoObject = new GraphQLObjectType({
  name: 'PageInfo',
  fields: {
    startCursor: { type: GraphQLString },
    endCursor: { type: GraphQLString, description: 'Pass as `after` to get the next page.' },
    totalRecords: { type: new GraphQLNonNull(GraphQLInt), description: 'Records matching the filters, on all pages.' },
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) },
  },
});

interface FilterInput {
  field: string;
  operation: string;
  value?: string | null;
  values?: (string | null)[] | null;
}

const cursorOf = (offset: number) => Buffer.from(`cursor:${offset}`).toString('base64');

function offsetOfCursor(cursor: string): number {
  const m = /^cursor:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  if (!m) throw badInput('`after` is not a cursor of this list (use pageInfo.endCursor)');
  return Number(m[1]) + 1;
}

const ESCAPE_LIKE = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);
const ESCAPE_REGEX = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Ends a word: a space or punctuation that is never part of one. */
const WORD_SEPARATOR = `[[:space:].,;:!?"'()\\[\\]{}]`;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * `wordlike`: the value as a whole word, as a PostgreSQL regular expression. An end that is a
 * letter or digit must not touch another; an end that is a symbol (`C++`, `C#`) must touch a
 * space, punctuation or the end of the text, so `C+` does not match `C++` (`\m...\M` cannot
 * match those at all).
 */
function wholeWord(value: string): string {
  const left = WORD_CHAR.test(value.at(0) ?? '') ? '(^|\\W)' : `(^|${WORD_SEPARATOR})`;
  const right = WORD_CHAR.test(value.at(-1) ?? '') ? '(\\W|$)' : `(${WORD_SEPARATOR}|$)`;
  return `${left}${ESCAPE_REGEX(value)}${right}`;
}

/** Reads an id given to a filter: {@link ListSpec.ids}. */
type IdReader = (id: string) => { type: string; legacyId: number } | undefined;

/** A filter value as its column holds it; `null` when it names nothing there (an id of another type). */
function convert(field: ListField, name: string, given: string, readId: IdReader): FilterValue {
  const raw = field.normalize ? field.normalize(given) : given;
  const bad = (what: string) => badInput(`Filter on ${name}: '${raw.slice(0, 100)}' is not ${what}`);
  if (raw.length > 1000) throw badInput(`Filter on ${name}: values are at most 1000 characters`);
  switch (field.kind) {
    case 'id':
    case 'ref':
    case 'refList': {
      const parsed = readId(raw);
      if (!parsed) throw bad('an id of this API');
      return parsed.type === field.refType ? parsed.legacyId : null;
    }
    case 'int':
      if (!/^-?\d{1,10}$/.test(raw) || Math.abs(Number(raw)) > 2147483647) throw bad('a whole number');
      return Number(raw);
    case 'date':
      if (!isCalendarDate(raw)) throw bad('a date (YYYY-MM-DD)');
      return raw;
    case 'datetime':
      if (!isCalendarDate(raw) && !isDateTime(raw)) throw bad('a date-time (YYYY-MM-DDTHH:MM:SS)');
      return raw;
    case 'time':
      if (!isTime(raw)) throw bad('a time of day (HH:MM:SS)');
      return raw;
    case 'instant': {
      // ISO 8601 with an offset; without one it is UTC.
      const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-](\d{2}):?(\d{2}))?)?$/.exec(raw);
      if (!m || !isCalendarDate(m[1]!) || (m[2] && !isDateTime(`${m[1]}T${m[2]}`))) throw bad('a date-time (YYYY-MM-DDTHH:MM:SS+01:00)');
      // Offsets run from -14:00 to +14:00, in whole minutes.
      if (m[4] !== undefined && (Number(m[4]) > 14 || Number(m[5]) > 59 || (Number(m[4]) === 14 && Number(m[5]) > 0)))
        throw bad('a date-time with an offset between -14:00 and +14:00');
      return `${m[1]}T${m[2] ?? '00:00'}${m[3] ?? 'Z'}`;
    }
    case 'bool':
      if (raw !== 'true' && raw !== 'false') throw bad("'true' or 'false'");
      return raw === 'true';
    case 'enum':
      if (!field.enumValues?.includes(raw)) throw bad(`one of ${field.enumValues?.join(', ')}`);
      return raw;
    default:
      return raw;
  }
}

type Conditions = Map<string, ((w: Knex.QueryBuilder) => void)[]>;

function applyFilter(
  q: Knex.QueryBuilder,
  db: Knex,
  f: FilterInput,
  index: number,
  fields: Record<string, ListField>,
  grouped: Conditions,
  readId: IdReader,
): void {
  const field = fields[f.field];
  if (!field) throw badInput(`filters[${index}]: ${f.field} cannot be filtered on`);
  const name = `filters[${index}] (${f.field} ${f.operation})`;
  // A column of `t`, or the field's expression: knex takes a Raw wherever it takes a column name (its types say only string).
  const col = (field.kind === 'refList' ? '' : field.expression ? db.raw(field.expression) : `t.${field.column}`) as string;
  const one = (): FilterValue => {
    if (typeof f.value !== 'string') throw badInput(`${name}: needs \`value\``);
    if (f.values != null) throw badInput(`${name}: takes \`value\`, not \`values\``);
    return convert(field, f.field, f.value, readId);
  };
  const many = (): FilterValue[] => {
    if (!Array.isArray(f.values) || f.values.length === 0) throw badInput(`${name}: needs a non-empty \`values\``);
    if (f.value != null) throw badInput(`${name}: takes \`values\`, not \`value\``);
    if (f.values.length > MAX_FILTER_VALUES) throw badInput(`${name}: at most ${MAX_FILTER_VALUES} values`);
    return f.values.map((v) => {
      if (typeof v !== 'string') throw badInput(`${name}: values are strings`);
      return convert(field, f.field, v, readId);
    });
  };
  const textOnly = () => {
    if (field.kind !== 'text') throw badInput(`${name}: ${f.operation} works on text fields only`);
  };
  const nothing = () => q.whereRaw('false');
  if (field.apply) {
    if (!field.operations?.includes(f.operation)) throw badInput(`${name}: ${f.field} takes ${field.operations?.join(', ')}`);
    const takesMany = f.operation === 'in' || f.operation === 'notin' || f.operation === 'contains';
    const value = takesMany ? many() : one();
    const apply = field.apply;
    if (!field.via) apply(q, db, f.operation, value);
    else grouped.set(field.via, [...(grouped.get(field.via) ?? []), (w) => apply(w, db, f.operation, value)]);
    return;
  }
  if (field.kind === 'refList') {
    // A list field (deliveryLocales): `contains` every id, `isnull` for none, `notnull` for any.
    const link = field.link!;
    const has = (id: number) =>
      db.raw(`exists (select 1 from ?? l where l.?? = t.id and l.?? = ?)`, [link.table, link.owner, link.value, id]);
    const any = db.raw(`exists (select 1 from ?? l where l.?? = t.id)`, [link.table, link.owner]);
    if (f.operation === 'contains') {
      const ids = many();
      if (ids.some((id) => id === null)) nothing();
      else for (const id of ids) q.whereRaw(has(id as number));
    } else if (f.operation === 'isnull') q.whereNot(any);
    else if (f.operation === 'notnull') q.where(any);
    else throw badInput(`${name}: a list field takes contains, isnull or notnull`);
    return;
  }
  switch (f.operation) {
    case 'eq':
    case 'ne': {
      const v = one();
      if (v === null) {
        if (f.operation === 'eq') nothing();
      } else q.whereRaw(`?? ${f.operation === 'eq' ? '=' : 'is distinct from'} ?`, [col, v]);
      return;
    }
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le': {
      if (field.kind === 'bool' || field.kind === 'enum' || field.kind === 'ref' || field.kind === 'id')
        throw badInput(`${name}: ${f.operation} does not work on this field`);
      const v = one();
      q.whereRaw(`?? ${{ gt: '>', ge: '>=', lt: '<', le: '<=' }[f.operation]} ?`, [col, v]);
      return;
    }
    case 'like': {
      textOnly();
      const v = one();
      // `\` escapes the next character (`\%` is a percent sign): one with nothing after it is no pattern.
      if (typeof v === 'string' && /(^|[^\\])(\\\\)*\\$/.test(v))
        throw badInput(
          `Filter on ${name}: a like value cannot end with a lone backslash (it escapes the next character; write \\\\ for a backslash)`,
        );
      q.whereRaw('?? ilike ?', [col, v]);
      return;
    }
    case 'wordlike':
      textOnly();
      q.whereRaw('?? ~* ?', [col, wholeWord(String(one()))]);
      return;
    case 'in':
    case 'notin': {
      const vs = many().filter((v) => v !== null);
      if (f.operation === 'in') {
        if (vs.length) q.whereIn(col, vs as string[]);
        else nothing();
      } else if (vs.length) q.where((w) => w.whereNotIn(col, vs as string[]).orWhereNull(col));
      return;
    }
    case 'contains':
      textOnly();
      for (const v of many()) q.whereRaw(`?? ilike ? escape '\\'`, [col, `%${ESCAPE_LIKE(String(v))}%`]);
      return;
    case 'isnull':
    case 'notnull':
      if (f.value != null || f.values != null) throw badInput(`${name}: takes neither value nor values`);
      if (f.operation === 'isnull') q.whereNull(col);
      else q.whereNotNull(col);
      return;
    default:
      throw badInput(`${name}: unknown operation`);
  }
}

export interface Page<Row> {
  edges: { node: Row; cursor: string }[];
  pageInfo: { startCursor: string | null; endCursor: string | null; totalRecords: number; hasNextPage: boolean; hasPreviousPage: boolean };
}

interface OrderInput {
  field: string;
  direction?: 'asc' | 'desc' | null;
}

/** One list's arguments, checked: the page asked for, its conditions and its order. */
interface Prepared {
  first: number;
  offset: number;
  where: (q: Knex.QueryBuilder) => Knex.QueryBuilder;
  /** `order by` over `t` (SQL and its bindings), ties broken by id in the first order's direction. */
  order: { sql: string; bindings: (string | Knex.Raw)[] };
}

/** What a list made by {@link listQuery} knows, for the lists nested in other records ({@link nestedList}). */
interface ListInternals<Row> {
  spec: ListSpec<Row>;
  prepare(a: Record<string, unknown>, ctx: GraphQLContext): Prepared;
  from(db: Knex): Knex.QueryBuilder;
  connection: GraphQLObjectType;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each list has its own row type; nestedList reads it back as the list's
const internals = new WeakMap<object, ListInternals<any>>();

/** The node type of a connection: an object, an interface or a union. */
type NodeType = GraphQLObjectType | GraphQLInterfaceType | GraphQLUnionType;

/** `<name>Connection { edges: [<name>Edge!]! pageInfo: PageInfo! }` with `<name>Edge { node: <node>! cursor: String! }`. */
function connectionType(name: string, node: () => NodeType): GraphQLObjectType {
  const edge = new GraphQLObjectType({
    name: `${name}Edge`,
    fields: () => ({ node: { type: new GraphQLNonNull(node()) }, cursor: { type: new GraphQLNonNull(GraphQLString) } }),
  });
  return new GraphQLObjectType({
    name: `${name}Connection`,
    fields: () => ({
      edges: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(edge))) },
      pageInfo: { type: new GraphQLNonNull(PageInfoObject) },
    }),
  });
}

/**
 * A cut page (at most a page's rows) as the table `t` that an overlay joins its decorations to.
 * It is a materialized CTE rather than a subquery: the WebLink catalogue page with its
 * translations took 0.88 ms of PostgreSQL's time with the page as a subquery and 0.52 as a CTE,
 * against 0.31 for the page alone (pgbench, one client, extended protocol, on the weblink bench's
 * data). EXPLAIN ANALYZE times the two plans alike, so the difference lies in what it does not
 * time, not in planning or in the joins it shows.
 */
function overlaid(db: Knex, cut: Knex.QueryBuilder): Knex.QueryBuilder {
  return db.withMaterialized('t', cut).from('t').select('t.*');
}

/** The page of `rows` (those from `offset` on), out of `total`. */
function pageOf<Row>(rows: readonly Row[], offset: number, total: number): Page<Row> {
  const edges = rows.map((node, i) => ({ node, cursor: cursorOf(offset + i) }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      totalRecords: total,
      hasNextPage: offset + rows.length < total,
      // Whether there are records before the page's start, as Relay has it for `after` ("edges
      // prior to after exist"): a page past the end of a list that has records has all of them
      // before it (true: walking back reaches them); a list with none has nothing before any
      // offset, so an offset alone (`offset: 20` on an empty result) is no previous page.
      hasPreviousPage: offset > 0 && total > 0,
    },
  };
}

/** The connection type, its arguments and resolver of one type's list query. */
export function listQuery<Row extends { id: number }>(
  spec: ListSpec<Row>,
): GraphQLFieldConfig<unknown, GraphQLContext, Record<string, unknown>> {
  const t = spec.typeName;
  const describe = (f: ListField) => f.description ?? (f.unsupported ? `Not supported: ${f.unsupported}.` : undefined);
  const filterField = new GraphQLEnumType({
    name: `${t}FilterField`,
    values: Object.fromEntries(
      Object.entries(spec.fields).map(([k, f]) => [k, { value: k, ...(describe(f) ? { description: describe(f) } : {}) }]),
    ),
  });
  const orderable = Object.entries(spec.fields).filter(([, f]) => f.orderable);
  const orderField = new GraphQLEnumType({ name: `${t}OrderField`, values: Object.fromEntries(orderable.map(([k]) => [k, { value: k }])) });
  const filter = new GraphQLInputObjectType({
    name: spec.inputNames?.filter ?? `${t}FieldGraphFilter`,
    fields: {
      field: { type: new GraphQLNonNull(filterField) },
      operation: { type: new GraphQLNonNull(FilterOperationEnum) },
      value: { type: GraphQLString },
      values: { type: new GraphQLList(GraphQLString) },
    },
  });
  const order = new GraphQLInputObjectType({
    name: spec.inputNames?.order ?? `${t}FieldGraphOrder`,
    fields: { field: { type: new GraphQLNonNull(orderField) }, direction: { type: OrderDirectionEnum, defaultValue: 'asc' } },
  });
  const connection = connectionType(t, spec.node);
  const args: GraphQLFieldConfigArgumentMap = {
    filters: {
      type: new GraphQLList(filter),
      description: `All must hold. At most ${MAX_FILTERS} filters of at most ${MAX_FILTER_VALUES} values each, and ${MAX_FILTER_VALUES_PER_REQUEST} filter values in one request.`,
    },
    order: { type: order, description: `Default: ${spec.defaultOrder.field} ${spec.defaultOrder.direction}.` },
    ...(spec.orderBy
      ? {
          orderBy: {
            type: new GraphQLList(order),
            description: `Several orders, the first deciding first (at most ${MAX_ORDERS}); instead of \`order\`, not with it.`,
          },
        }
      : {}),
    first: { type: GraphQLInt, description: `Page size: default ${DEFAULT_PAGE}, at most ${spec.maxPage ?? MAX_PAGE}.` },
    offset: { type: GraphQLInt, description: 'Records to skip (or use `after`).' },
    after: { type: GraphQLString, description: "The previous page's pageInfo.endCursor." },
    ...spec.args,
  };
  const from = (db: Knex) => (spec.from ? db.from(spec.from(db).as('t')) : db(`${spec.table} as t`));
  const readId: IdReader = spec.ids === 'weblink' ? fromGlobalId : fromCoreId;

  /** The orders asked for (`order`, or `orderBy`'s list), else the default. */
  const ordersOf = (a: Record<string, unknown>): OrderInput[] => {
    const many = a.orderBy as (OrderInput | null)[] | null | undefined;
    if (many != null && a.order != null) throw badInput('Use either order or orderBy, not both');
    if (many == null) return [(a.order as OrderInput | null | undefined) ?? spec.defaultOrder];
    const given = many.filter((o): o is OrderInput => o !== null);
    if (given.length > MAX_ORDERS) throw badInput(`orderBy: at most ${MAX_ORDERS} orders (${given.length} given)`);
    return given.length ? given : [spec.defaultOrder];
  };

  const prepare = (a: Record<string, unknown>, ctx: GraphQLContext): Prepared => {
    if (spec.permission) requirePermission(ctx, spec.permission);
    const first = a.first ?? DEFAULT_PAGE;
    const maxPage = spec.maxPage ?? MAX_PAGE;
    if (typeof first !== 'number' || first < 0 || first > maxPage) throw badInput(`first must be between 0 and ${maxPage}`);
    if (a.offset != null && a.after != null) throw badInput('Use either offset or after, not both');
    const offset = a.after != null ? offsetOfCursor(String(a.after)) : ((a.offset as number | null | undefined) ?? 0);
    if (offset < 0) throw badInput('offset must not be negative');
    const filters = (a.filters as (FilterInput | null)[] | null | undefined) ?? [];
    if (filters.length > MAX_FILTERS) throw badInput(`filters: at most ${MAX_FILTERS} filters in a list (${filters.length} given)`);
    for (const f of filters) {
      if (f && spec.fields[f.field]?.unsupported) throw badInput(`${f.field} cannot be filtered on: ${spec.fields[f.field]!.unsupported}`);
    }
    // What a filter or order reads of other records needs their view permission too.
    for (const name of [...filters.map((f) => f?.field), ...ordersOf(a).map((o) => o.field)]) {
      const needs = name ? spec.fields[name]?.permission : undefined;
      if (needs) requirePermission(ctx, needs);
    }
    const orders = ordersOf(a).map((o) => {
      const field = spec.fields[o.field]!;
      return {
        target: field.expression ? ctx.db.raw(field.expression) : `t.${field.column}`,
        direction: o.direction === 'desc' ? 'desc' : 'asc',
      };
    });
    ctx.spendFilterValues(filters.reduce((n, f) => n + Math.max(1, Array.isArray(f?.values) ? f.values.length : 0), 0));
    const more = spec.where?.(a, ctx);
    const where = (q: Knex.QueryBuilder) => {
      spec.scope?.(q, ctx);
      const grouped: Conditions = new Map();
      filters.forEach((f, i) => f && applyFilter(q, ctx.db, f, i, spec.fields, grouped, readId));
      for (const [group, conditions] of grouped) {
        const via = spec.via?.[group];
        if (!via) throw new Error(`List ${t}: no group ${group}`);
        via(q, ctx.db, (w) => conditions.forEach((c) => c(w)));
      }
      more?.(q);
      return q;
    };
    const sql = [...orders.map((o) => `?? ${o.direction} nulls last`), `t.id ${orders[0]!.direction}`].join(', ');
    return { first, offset, where, order: { sql, bindings: orders.map((o) => o.target) } };
  };

  const field: GraphQLFieldConfig<unknown, GraphQLContext, Record<string, unknown>> = {
    type: new GraphQLNonNull(connection),
    args,
    ...(spec.description ? { description: spec.description } : {}),
    async resolve(_root, a, ctx): Promise<Page<Row>> {
      const { first, offset, where, order } = prepare(a, ctx);
      // The total comes with the page (a window count), so a page costs one statement.
      const page = where(from(ctx.db)).select('t.*', ctx.db.raw('count(*) over () as "__total"'));
      spec.select?.(page, ctx);
      const ordered = (q: Knex.QueryBuilder) => q.orderByRaw(order.sql, order.bindings);
      const cut = ordered(page).limit(first).offset(offset);
      const decorated = overlaid(ctx.db, cut);
      const rows = (await (spec.overlay?.(decorated, ctx) ? ordered(decorated) : cut)) as (Row & { __total: number })[];
      const total = rows.length
        ? rows[0]!.__total
        : offset > 0 || first === 0
          ? Number((await where(from(ctx.db)).count('* as n').first())!.n)
          : 0;
      ctx.spendRecords(rows.length);
      spec.prime?.(ctx, rows);
      return pageOf(rows, offset, total);
    },
  };
  internals.set(field, { spec, prepare, from, connection });
  return field;
}

/** How a list nested in a record (a course template's events) finds the record's rows. */
export interface NestedListOptions<Parent> {
  /** The column of the list's rows that names the record they belong to (`course_template_id`). */
  parentColumn: string;
  /** The record's id (null: it has none, the list is empty). */
  parentId: (parent: Parent) => number | null;
  description?: string;
}

/**
 * A list made by {@link listQuery}, as a field of the records its rows belong to, with the same
 * arguments and connection. A page of records costs one statement for all their lists (a
 * window per record: `row_number()` and `count(*)` partitioned by the parent column), and one
 * more when some record's page is empty and its total is still to count. Its type is nullable:
 * a permission the list needs but the caller lacks empties this field only, not the record.
 */
export function nestedList<Parent>(
  list: GraphQLFieldConfig<unknown, GraphQLContext, Record<string, unknown>>,
  options: NestedListOptions<Parent>,
): GraphQLFieldConfig<Parent, GraphQLContext, Record<string, unknown>> {
  const known = internals.get(list);
  if (!known) throw new Error('nestedList takes a list made by listQuery');
  const { spec, prepare, from } = known;
  const parent = `t.${options.parentColumn}`;
  const pages = (a: Record<string, unknown>, ctx: GraphQLContext) =>
    // One loader per set of arguments: the records of a page that ask the same share one statement.
    ctx.loader(`nested-list:${spec.typeName}:${options.parentColumn}:${JSON.stringify(a)}`, (db) => {
      const { first, offset, where, order } = prepare(a, ctx);
      return new DataLoader<number, Page<{ id: number }>>(async (ids) => {
        const ranked = where(from(db))
          .whereIn(parent, ids as number[])
          .select(
            't.*',
            db.raw(`row_number() over (partition by ?? order by ${order.sql}) as "__rank"`, [parent, ...order.bindings]),
            db.raw('count(*) over (partition by ??) as "__total"', [parent]),
          );
        spec.select?.(ranked, ctx);
        const inOrder = (q: Knex.QueryBuilder) => q.orderBy([parent, 't.__rank']);
        // Every row read is answered to some record, and spent there: more than the request may
        // still answer fails it now, without reading them all.
        const left = ctx.recordsLeft();
        const cut = inOrder(
          db
            .from(ranked.as('t'))
            .select('t.*')
            .where('t.__rank', '>', offset)
            .where('t.__rank', '<=', offset + first),
        ).limit(left + 1);
        const decorated = overlaid(db, cut);
        const rows = (await (spec.overlay?.(decorated, ctx) ? inOrder(decorated) : cut)) as ({ id: number; __total: number } & Record<
          string,
          unknown
        >)[];
        if (rows.length > left) ctx.spendRecords(rows.length);
        const byParent = new Map<number, typeof rows>();
        for (const row of rows) {
          const key = row[options.parentColumn] as number;
          const list = byParent.get(key);
          if (list) list.push(row);
          else byParent.set(key, [row]);
        }
        const totals = new Map([...byParent].map(([id, list]) => [id, list[0]!.__total]));
        const uncounted = ids.filter((id) => !totals.has(id));
        if (uncounted.length && (offset > 0 || first === 0)) {
          const counted = (await where(from(db))
            .whereIn(parent, uncounted)
            .groupBy(parent)
            .select(`${parent} as parent`, db.raw('count(*)::int as n'))) as { parent: number; n: number }[];
          for (const c of counted) totals.set(c.parent, c.n);
        }
        spec.prime?.(ctx, rows as never[]);
        return ids.map((id) => pageOf(byParent.get(id) ?? [], offset, totals.get(id) ?? 0));
      });
    });
  return {
    type: (list.type as GraphQLNonNull<GraphQLObjectType>).ofType,
    ...(list.args ? { args: list.args } : {}),
    ...(options.description ? { description: options.description } : {}),
    async resolve(source, a, ctx) {
      const id = options.parentId(source);
      const page = id === null ? pageOf([], 0, 0) : await pages(a, ctx).load(id);
      ctx.spendRecords(page.edges.length);
      return page;
    },
  };
}

/** A connection answering a whole list at once: its type, and its pages. */
export interface WholeConnection<Row> {
  /** `<Type>Connection` (nullable: a field wraps it in GraphQLNonNull when it always answers). */
  type: GraphQLObjectType;
  /**
   * The connection of `rows` (all of them, on one page, cursors as a page's), spending them from
   * the request's record budget. `total`: the records there are, when `rows` shows fewer.
   */
  page(ctx: GraphQLContext, rows: readonly Row[], total?: number): Page<Row>;
}

const wholeConnections = new Map<
  string,
  { node: NodeType | (() => NodeType) | GraphQLFieldConfig<unknown, GraphQLContext, Record<string, unknown>>; made: WholeConnection<never> }
>();

/**
 * A list a record answers whole, without `first`, as integrations read it (a template's public
 * prices, a path's objectives): the `<typeName>Connection` and `<typeName>Edge` types, made once
 * per type name, with the same `edges { node cursor }` and `pageInfo` as a page of a list. Given
 * a list made by {@link listQuery} instead of a name, it answers that list's connection type (a
 * record's learning categories are a LearningCategoryConnection). Past the request's record
 * budget a page throws ANSWER_TOO_LARGE, as pages of lists do: lists without `first` count once
 * in the static cost limit, so the budget is what bounds them.
 */
export function wholeConnection<Row>(list: GraphQLFieldConfig<unknown, GraphQLContext, Record<string, unknown>>): WholeConnection<Row>;
export function wholeConnection<Row>(typeName: string, node: NodeType | (() => NodeType)): WholeConnection<Row>;
export function wholeConnection<Row>(
  named: string | GraphQLFieldConfig<unknown, GraphQLContext, Record<string, unknown>>,
  node?: NodeType | (() => NodeType),
): WholeConnection<Row> {
  const list = typeof named === 'string' ? undefined : internals.get(named);
  if (typeof named !== 'string' && !list) throw new Error('wholeConnection takes a type name or a list made by listQuery');
  const name = list ? list.spec.typeName : (named as string);
  const given = typeof named === 'string' ? node! : named;
  const known = wholeConnections.get(name);
  if (known) {
    if (known.node !== given) throw new Error(`wholeConnection: ${name}Connection is made once, for one node type`);
    return known.made as WholeConnection<Row>;
  }
  const nodeOf = () => (typeof node === 'function' ? node() : node!);
  const made: WholeConnection<Row> = {
    type: list ? list.connection : connectionType(name, nodeOf),
    page(ctx, rows, total = rows.length) {
      ctx.spendRecords(rows.length);
      return pageOf(rows, 0, total);
    },
  };
  wholeConnections.set(name, { node: given, made: made as WholeConnection<never> });
  return made;
}
