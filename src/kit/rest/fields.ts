import { hasNul, isCalendarDate, isDateTime, isTime } from '../../platform/util/dates.js';
import { sanitizeRichText } from '../../platform/util/rich-text.js';

/**
 * Field definitions of REST resources: one description per field drives reading (output shape),
 * writing (validation and coercion), filtering and the OpenAPI document.
 */
export type FieldType = 'integer' | 'number' | 'string' | 'boolean' | 'date' | 'time' | 'datetime' | 'array' | 'object';

export interface FieldDef {
  type: FieldType;
  /** Table column; absent for computed or embedded fields (read-only). */
  column?: string;
  /** Whether the value may be null (output and input). Default true. */
  nullable?: boolean;
  /** Required on create. */
  required?: boolean;
  /** Accepted on create/update. Default: true for column fields other than `id`. */
  writable?: boolean;
  /** Present in responses. Default true (`priority` of categories is write-only). */
  readable?: boolean;
  /** Usable in `field__op=value` filters and `_order`. Default: true for column fields. */
  filterable?: boolean;
  /** On create, a foreign key that must exist: `{ table, label }`. */
  references?: { table: string; label: string };
  maxLength?: number;
  /** Range of an integer or number field (defaults: a PostgreSQL integer; numeric(14,2) for numbers). */
  min?: number;
  max?: number;
  /** Allowed values of a string field. */
  enum?: readonly string[];
  /** HTML an editor wrote: sanitised on write, as on every face of the same record. */
  richText?: boolean;
  /** For OpenAPI: a short description. */
  description?: string;
}

export type Fields = Record<string, FieldDef>;

/** Resolves defaults, so the rest of the engine reads plain booleans. */
export function normaliseFields(fields: Fields): Fields {
  return Object.fromEntries(
    Object.entries(fields).map(([name, f]) => {
      const column = f.column;
      return [
        name,
        {
          ...f,
          nullable: f.nullable ?? true,
          readable: f.readable ?? true,
          writable: f.writable ?? (column !== undefined && name !== 'id'),
          filterable: f.filterable ?? column !== undefined,
        },
      ];
    }),
  );
}

const MAX_INT = 2147483647;
const NUMBER = /^-?\d+(?:\.\d+)?$/;
/** Deepest nesting accepted inside an array/object field (jsonb); deeper is a client mistake. */
const MAX_DEPTH = 16;

/** Depth of nested arrays/objects, and whether any string inside holds a NUL (jsonb refuses it too). */
function jsonProblem(value: unknown, depth = 1): string | undefined {
  if (depth > MAX_DEPTH) return `must not be nested more than ${MAX_DEPTH} levels deep`;
  if (typeof value === 'string') return hasNul(value) ? 'must not contain NUL characters' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (hasNul(k)) return 'must not contain NUL characters';
    const problem = jsonProblem(v, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/** Largest amount a numeric(14,2) column (prices, costs, sales targets) holds. */
const MAX_AMOUNT = 999999999999.99;

/** Numeric range of a field: its own, else that of its column type (integer, or numeric(14,2)). */
function rangeOf(f: FieldDef): { min: number; max: number } {
  const limit = f.type === 'integer' ? MAX_INT : MAX_AMOUNT;
  return { min: f.min ?? -limit, max: f.max ?? limit };
}

const ok = (value: unknown) => ({ ok: true as const, value });
const fail = (message: string) => ({ ok: false as const, message });

/** Validates one JSON input value for a field; returns the value to store or an error message. */
export function coerceInput(f: FieldDef, value: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  if (value === null) return f.nullable === false ? fail('must not be null') : ok(null);
  switch (f.type) {
    case 'integer':
    case 'number': {
      const { min, max } = rangeOf(f);
      const valid = f.type === 'integer' ? Number.isInteger(value) : typeof value === 'number' && Number.isFinite(value);
      if (!valid) return fail(f.type === 'integer' ? 'must be an integer' : 'must be a number');
      return (value as number) < min || (value as number) > max ? fail(`must be between ${min} and ${max}`) : ok(value);
    }
    case 'string': {
      if (typeof value !== 'string') return fail('must be a string');
      if (value.length > (f.maxLength ?? 10000)) return fail(`must be at most ${f.maxLength ?? 10000} characters`);
      if (hasNul(value)) return fail('must not contain NUL characters');
      if (f.enum && !f.enum.includes(value)) return fail(`must be one of ${f.enum.join(', ')}`);
      return ok(f.richText ? sanitizeRichText(value) : value);
    }
    case 'boolean':
      return typeof value === 'boolean' ? ok(value) : fail('must be true or false');
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? ok(value) : fail('must be a date (YYYY-MM-DD)');
    case 'time':
      return typeof value === 'string' && isTime(value) ? ok(value) : fail('must be a time (HH:MM or HH:MM:SS)');
    case 'datetime':
      return typeof value === 'string' && isDateTime(value)
        ? ok(value.replace(' ', 'T'))
        : fail('must be a date-time without zone (YYYY-MM-DDTHH:MM:SS)');
    case 'array':
    case 'object': {
      const shapeOk = f.type === 'array' ? Array.isArray(value) : typeof value === 'object' && !Array.isArray(value);
      if (!shapeOk) return fail(f.type === 'array' ? 'must be an array' : 'must be an object');
      const problem = jsonProblem(value);
      return problem ? fail(problem) : ok(JSON.stringify(value));
    }
  }
}

/** Parses a filter value from the query string for a field; undefined when it does not fit. */
export function parseFilterValue(f: FieldDef, raw: string): unknown {
  switch (f.type) {
    case 'integer':
    case 'number': {
      const pattern = f.type === 'integer' ? /^-?\d{1,10}$/ : NUMBER;
      if (!pattern.test(raw)) return undefined;
      const n = Number(raw);
      // Filters compare, so any value the column type can hold is fine; beyond it nothing matches anyway.
      return Number.isFinite(n) && Math.abs(n) <= (f.type === 'integer' ? MAX_INT : 1e15) ? n : undefined;
    }
    case 'boolean':
      return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : undefined;
    case 'date':
      return isCalendarDate(raw) ? raw : undefined;
    case 'time':
      return isTime(raw) ? raw : undefined;
    case 'datetime':
      // A bare date means its midnight, so `created_on__gte=2026-01-01` works as people expect.
      if (isCalendarDate(raw)) return `${raw}T00:00:00`;
      return isDateTime(raw) ? raw.replace(' ', 'T') : undefined;
    case 'string':
      return hasNul(raw) ? undefined : raw;
    default:
      return undefined;
  }
}

/** Shapes a stored value for output: NUMERIC strings become numbers, jsonb stays as parsed. */
export function outputValue(f: FieldDef, value: unknown): unknown {
  if (value === undefined || value === null) return f.type === 'array' ? [] : null;
  if (f.type === 'number' && typeof value === 'string') return Number(value);
  return value;
}
