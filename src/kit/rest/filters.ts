import type { Knex } from 'knex';
import { BadRequestError } from '../../platform/errors.js';
import { hasNul } from '../../platform/util/dates.js';
import { parseFilterValue, type Fields } from './fields.js';

/**
 * The REST list query language real clients use: `field__op=value` (a bare `field=value` is
 * `__eq`), `_order=a,-b`, `_limit=N`. Values are always bound parameters; only column names
 * from the resource's own field list ever reach SQL text.
 */
const OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'notin', 'like'] as const;
type Op = (typeof OPS)[number];
const SQL_OP: Record<Exclude<Op, 'in' | 'notin' | 'like'>, string> = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' };

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface Filter {
  column: string;
  op: Op;
  value: unknown;
}

export interface ListQuery {
  filters: Filter[];
  order: { column: string; direction: 'asc' | 'desc'; nullable: boolean }[];
  limit: number;
}

function bad(message: string, param: string): never {
  throw new BadRequestError(message, { parameter: param }, 'invalid_filter');
}

export function parseListQuery(query: Record<string, string | string[] | undefined>, fields: Fields): ListQuery {
  const filters: Filter[] = [];
  let order: ListQuery['order'] = [];
  let limit = DEFAULT_LIMIT;
  for (const [param, rawValue] of Object.entries(query)) {
    if (rawValue === undefined) continue;
    const values = Array.isArray(rawValue) ? rawValue : [rawValue];
    if (param === '_limit') {
      const v = values.at(-1)!;
      if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > MAX_LIMIT) bad(`_limit must be a whole number from 1 to ${MAX_LIMIT}`, param);
      limit = Number(v);
      continue;
    }
    if (param === '_order') {
      order = values
        .join(',')
        .split(',')
        .filter(Boolean)
        .map((item) => {
          const desc = item.startsWith('-');
          const name = desc ? item.slice(1) : item;
          const f = Object.hasOwn(fields, name) ? fields[name] : undefined;
          if (!f?.filterable || !f.column) bad(`Cannot order by unknown field '${name}'`, param);
          return { column: f.column, direction: desc ? ('desc' as const) : ('asc' as const), nullable: f.nullable !== false };
        });
      continue;
    }
    if (param.startsWith('_')) bad(`Unknown parameter '${param}'`, param);
    const sep = param.lastIndexOf('__');
    const name = sep > 0 ? param.slice(0, sep) : param;
    const opName = sep > 0 ? param.slice(sep + 2) : 'eq';
    const f = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!f?.filterable || !f.column) bad(`Unknown filter field '${name}'`, param);
    if (!(OPS as readonly string[]).includes(opName)) bad(`Unknown filter operator '${opName}' (use one of ${OPS.join(', ')})`, param);
    const op = opName as Op;
    for (const raw of values) {
      if (op === 'in' || op === 'notin') {
        const list = raw.split(',').map((part) => {
          const v = parseFilterValue(f, part);
          if (v === undefined) bad(`'${part}' is not a valid ${f.type} for ${name}`, param);
          return v;
        });
        filters.push({ column: f.column, op, value: list });
      } else if (op === 'like') {
        if (f.type !== 'string') bad(`__like applies to text fields; '${name}' is ${f.type}`, param);
        if (hasNul(raw)) bad(`The pattern for ${name} must not contain NUL characters`, param);
        // PostgreSQL's LIKE escapes with a backslash; a pattern ending in an unpaired one is malformed.
        if (/(^|[^\\])(\\\\)*\\$/.test(raw))
          bad(`The pattern for ${name} ends with an unescaped backslash (write \\\\ for a literal one)`, param);
        filters.push({ column: f.column, op, value: raw });
      } else {
        const v = raw === 'null' && (op === 'eq' || op === 'ne') ? null : parseFilterValue(f, raw);
        if (v === undefined) bad(`'${raw}' is not a valid ${f.type} for ${name}`, param);
        filters.push({ column: f.column, op, value: v });
      }
    }
  }
  return { filters, order, limit };
}

/** Applies parsed filters and ordering to a query on `table` (columns are qualified with it). */
export function applyListQuery(qb: Knex.QueryBuilder, table: string, q: ListQuery): Knex.QueryBuilder {
  for (const f of q.filters) {
    const column = `${table}.${f.column}`;
    if (f.op === 'in') qb.whereIn(column, f.value as readonly Knex.Value[]);
    else if (f.op === 'notin') qb.whereNotIn(column, f.value as readonly Knex.Value[]);
    else if (f.op === 'like') qb.whereILike(column, f.value as string);
    else if (f.value === null && f.op === 'eq') qb.whereNull(column);
    else if (f.value === null) qb.whereNotNull(column);
    else qb.where(column, SQL_OP[f.op], f.value as Knex.Value);
  }
  // Records without a value come last either way, so `-field` starts with real values. (Only
  // for nullable columns: `NULLS LAST` on a descending id would stop PostgreSQL using its index.)
  for (const o of q.order) {
    if (o.nullable) qb.orderBy(`${table}.${o.column}`, o.direction, 'last');
    else qb.orderBy(`${table}.${o.column}`, o.direction);
  }
  // A stable order always, so keyset paging (`id__gt=<last>&_order=id`) is reliable.
  if (!q.order.some((o) => o.column === 'id')) qb.orderBy(`${table}.id`, 'asc');
  qb.limit(q.limit);
  return qb;
}
