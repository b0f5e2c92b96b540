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

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}(:\d{2})?$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$/;
const MAX_INT = 2147483647;

/** Validates one JSON input value for a field; returns the value to store or an error message. */
export function coerceInput(f: FieldDef, value: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  if (value === null) return f.nullable === false ? { ok: false, message: 'must not be null' } : { ok: true, value: null };
  switch (f.type) {
    case 'integer':
      return Number.isInteger(value) && Math.abs(value as number) <= MAX_INT ? { ok: true, value } : { ok: false, message: 'must be an integer' };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : { ok: false, message: 'must be a number' };
    case 'string':
      if (typeof value !== 'string') return { ok: false, message: 'must be a string' };
      if (value.length > (f.maxLength ?? 10000)) return { ok: false, message: `must be at most ${f.maxLength ?? 10000} characters` };
      return { ok: true, value };
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : { ok: false, message: 'must be true or false' };
    case 'date':
      return typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value))
        ? { ok: true, value }
        : { ok: false, message: 'must be a date (YYYY-MM-DD)' };
    case 'time':
      return typeof value === 'string' && TIME.test(value) ? { ok: true, value } : { ok: false, message: 'must be a time (HH:MM or HH:MM:SS)' };
    case 'datetime':
      return typeof value === 'string' && DATETIME.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T')))
        ? { ok: true, value: value.replace(' ', 'T') }
        : { ok: false, message: 'must be a date-time without zone (YYYY-MM-DDTHH:MM:SS)' };
    case 'array':
      return Array.isArray(value) ? { ok: true, value: JSON.stringify(value) } : { ok: false, message: 'must be an array' };
    case 'object':
      return typeof value === 'object' && !Array.isArray(value) ? { ok: true, value: JSON.stringify(value) } : { ok: false, message: 'must be an object' };
  }
}

/** Parses a filter value from the query string for a field; undefined when it does not fit. */
export function parseFilterValue(f: FieldDef, raw: string): unknown {
  switch (f.type) {
    case 'integer':
      return /^-?\d{1,10}$/.test(raw) && Math.abs(Number(raw)) <= MAX_INT ? Number(raw) : undefined;
    case 'number':
      return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : undefined;
    case 'boolean':
      return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : undefined;
    case 'date':
      return DATE.test(raw) && !Number.isNaN(Date.parse(raw)) ? raw : undefined;
    case 'time':
      return TIME.test(raw) ? raw : undefined;
    case 'datetime':
      return DATETIME.test(raw) ? raw.replace(' ', 'T') : undefined;
    case 'string':
      return raw;
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
