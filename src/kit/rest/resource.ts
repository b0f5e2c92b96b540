import type { Db, Knex } from '../../platform/db/knex.js';
import { AppError, BadRequestError, ConflictError, NotFoundError } from '../../platform/errors.js';
import type { Problem } from '../../platform/problems.js';
import { coerceInput, normaliseFields, outputValue, type FieldDef, type Fields } from './fields.js';
import { applyListQuery, parseListQuery } from './filters.js';

export type Row = Record<string, unknown>;
export type RestRecord = Record<string, unknown>;
export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete';

/**
 * A REST resource: its table, fields and operations. The engine below gives every resource the
 * same list/get/create/update/delete behaviour; a resource adds only what is its own (embedded
 * objects, computed fields, extra rules).
 */
export interface ResourceDef {
  /** Human name for messages, e.g. `Marketing activity`. */
  name: string;
  /** Path under /api/v2, e.g. `crm/marketing_activities`. */
  path: string;
  /** Other spellings clients use (`event/public_event`). */
  aliases?: string[];
  table: string;
  /** Entity name of its permissions: reading needs `<permission>_VIEW`, writing `<permission>_EDIT`. */
  permission: string;
  fields: Fields;
  operations: Operation[];
  /** Fills embedded and computed fields of freshly serialised records, batched over the page. */
  enrich?: (db: Db, rows: Row[], records: RestRecord[]) => Promise<void>;
  /**
   * Embedded fields read in the same statement as the record: field name to a select expression
   * correlated with the resource's table (its JSON as PostgreSQL builds it). Lists, GET :id and
   * DELETE read them with the row; a row written by POST gets them in one more statement.
   */
  embedded?: Record<string, (db: Db) => Knex.Raw>;
  /** Checks beyond field types (cross-field rules); returns field errors. */
  check?: (db: Db, values: Row, existing: Row | undefined) => Promise<Record<string, string>>;
}

/**
 * The problems of a module's rules as REST field errors (`{ name: 'must be one line ...' }`):
 * `names` maps a rule's field (the domain's input name, `title`) to the REST field (`name`) where
 * they differ; the message loses its leading field name, as REST prints `<field> <message>`.
 */
export function restFieldErrors(problems: readonly Problem[], names: Readonly<Record<string, string>> = {}): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const p of problems) {
    const field = Object.hasOwn(names, p.field) ? names[p.field]! : p.field;
    if (Object.hasOwn(errors, field)) continue;
    errors[field] = p.message.startsWith(`${p.field} `) ? p.message.slice(p.field.length + 1) : p.message;
  }
  return errors;
}

export interface Resource extends ResourceDef {
  list(db: Db, query: Record<string, string | string[] | undefined>): Promise<RestRecord[]>;
  get(db: Db, id: number): Promise<RestRecord>;
  create(db: Db, body: unknown): Promise<RestRecord>;
  update(db: Db, id: number, body: unknown): Promise<RestRecord>;
  remove(db: Db, id: number): Promise<RestRecord>;
  serialise(db: Db, rows: Row[]): Promise<RestRecord[]>;
}

const pgCode = (err: unknown) => (err as { code?: string }).code;

/** A column's value once an update is applied: the new value when the body sets it (even to null), else the stored one. */
export function afterWrite(values: Row, existing: Row | undefined, column: string): unknown {
  return Object.hasOwn(values, column) ? values[column] : existing?.[column];
}

/** Field errors when the end date would fall before the start date (either may come from the stored row). */
export function checkDateOrder(values: Row, existing: Row | undefined, start: string, end: string): Record<string, string> {
  const from = afterWrite(values, existing, start);
  const to = afterWrite(values, existing, end);
  return from && to && String(to) < String(from) ? { [end]: `must not be before ${start}` } : {};
}

/**
 * Compiles a resource's row-to-record mapping into one function that returns an object literal
 * with the contract's fields in order. Filling records key by key in a loop cost about 6 µs a
 * record (V8's generic keyed stores), a literal about 0.2 µs: 0.6 ms against 0.02 ms for a page
 * of 100. The generated text holds only our own field and column names, quoted by JSON.stringify.
 */
function compileRecordShape(readable: [string, FieldDef][]): (row: Row) => RestRecord {
  const parts = readable.map(([name, f], i) => {
    const key = JSON.stringify(name);
    if (!f.column) return `${key}: ${f.type === 'array' ? '[]' : 'null'}`;
    const value = `row[${JSON.stringify(f.column)}]`;
    // Numbers (NUMERIC arrives as text) and arrays (null becomes []) go through outputValue.
    return `${key}: ${f.type === 'number' || f.type === 'array' ? `out(defs[${i}], ${value})` : `${value} ?? null`}`;
  });
  const make = new Function('defs', 'out', `return function toRecord(row) { return { ${parts.join(', ')} }; };`);
  return make(
    readable.map(([, f]) => f),
    outputValue,
  ) as (row: Row) => RestRecord;
}

export function defineResource(input: ResourceDef): Resource {
  const fields = normaliseFields(input.fields);
  const def: ResourceDef = { ...input, fields };
  const readable = Object.entries(fields).filter(([, f]) => f.readable);

  const notFound = (id: number) => new NotFoundError(`${def.name} ${id} does not exist`);

  const toRecord = compileRecordShape(readable);
  const embedded = Object.entries(def.embedded ?? {});
  /** The row's columns and its embedded fields, each under the field's name. */
  const selection = (db: Db) => [`${def.table}.*`, ...embedded.map(([name, sql]) => db.raw('(?) as ??', [sql(db), name]))];

  async function serialise(db: Db, rows: Row[]): Promise<RestRecord[]> {
    const records = rows.map(toRecord);
    if (embedded.length && rows.length) {
      // Rows read without them (a fresh insert's) get them in one statement for the lot.
      const missing = rows.filter((r) => !Object.hasOwn(r, embedded[0]![0]));
      const found = missing.length
        ? new Map(
            (
              (await db(def.table)
                .whereIn(
                  'id',
                  missing.map((r) => r.id as number),
                )
                .select(['id', ...selection(db).slice(1)])) as Row[]
            ).map((r) => [r.id, r]),
          )
        : undefined;
      rows.forEach((row, i) => {
        const source = Object.hasOwn(row, embedded[0]![0]) ? row : found?.get(row.id);
        for (const [name] of embedded) records[i]![name] = source?.[name] ?? [];
      });
    }
    if (def.enrich && rows.length) await def.enrich(db, rows, records);
    return records;
  }

  async function findRow(db: Db, id: number, lock = false): Promise<Row | undefined> {
    const q = db(def.table).where({ id }).first(selection(db));
    return (lock ? q.forUpdate() : q) as Promise<Row | undefined>;
  }

  /** Validates a create/update body; throws with every field at fault named. */
  async function validate(db: Db, body: unknown, mode: 'create' | 'update', existing?: Row): Promise<Row> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new BadRequestError('Request body must be a JSON object', undefined, 'invalid_body');
    }
    const errors: Record<string, string> = {};
    const values: Row = {};
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      // Own keys only: a body key like `constructor` must not find Object.prototype's.
      const f = Object.hasOwn(fields, name) ? fields[name] : undefined;
      if (!f) {
        errors[name] = 'unknown field';
        continue;
      }
      // Read-only fields (id, embedded objects) are ignored, so a record read with GET can be sent back.
      if (!f.writable || !f.column) continue;
      const r = coerceInput(f, value);
      if (r.ok) values[f.column] = r.value;
      else errors[name] = r.message;
    }
    if (mode === 'create') {
      for (const [name, f] of Object.entries(fields)) {
        if (f.required && f.column && (values[f.column] === undefined || values[f.column] === null) && !errors[name])
          errors[name] = 'is required';
      }
    }
    for (const [name, f] of Object.entries(fields)) {
      const v = f.column ? values[f.column] : undefined;
      if (!f.references || v === undefined || v === null || errors[name]) continue;
      const found = await db(f.references.table).where({ id: v }).first('id');
      if (!found) errors[name] = `${f.references.label} ${String(v)} does not exist`;
    }
    if (def.check && !Object.keys(errors).length) Object.assign(errors, await def.check(db, values, existing));
    if (Object.keys(errors).length) {
      const summary = Object.entries(errors)
        .map(([k, m]) => `${k} ${m}`)
        .join('; ');
      // The contract: a POST that could not create answers 404; a bad PUT is a 400.
      throw mode === 'create'
        ? new AppError(404, 'could_not_create', `${def.name} could not be created: ${summary}`, { fields: errors })
        : new AppError(400, 'invalid_fields', `${def.name} could not be updated: ${summary}`, { fields: errors });
    }
    return values;
  }

  return {
    ...def,
    serialise,
    async list(db, query) {
      const q = parseListQuery(query, fields);
      const rows = (await applyListQuery(db(def.table).select(selection(db)), def.table, q)) as Row[];
      return serialise(db, rows);
    },
    async get(db, id) {
      const row = await findRow(db, id);
      if (!row) throw notFound(id);
      return (await serialise(db, [row]))[0]!;
    },
    async create(db, body) {
      const values = await validate(db, body, 'create');
      try {
        const [row] = (await db(def.table).insert(values).returning('*')) as Row[];
        return (await serialise(db, [row!]))[0]!;
      } catch (err) {
        if (pgCode(err) === '23503')
          throw new AppError(404, 'could_not_create', `${def.name} could not be created: a referenced record does not exist`);
        if (pgCode(err) === '23505') throw new ConflictError(`${def.name} already exists`);
        throw err;
      }
    },
    async update(db, id, body) {
      const existing = await findRow(db, id, true);
      if (!existing) throw notFound(id);
      const values = await validate(db, body, 'update', existing);
      if (Object.keys(values).length) await db(def.table).where({ id }).update(values);
      return this.get(db, id);
    },
    async remove(db, id) {
      const existing = await findRow(db, id, true);
      if (!existing) throw notFound(id);
      const [record] = await serialise(db, [existing]);
      try {
        await db(def.table).where({ id }).delete();
      } catch (err) {
        // 23503 foreign_key_violation; PostgreSQL 18 reports ON DELETE RESTRICT as 23001 restrict_violation.
        if (pgCode(err) === '23503' || pgCode(err) === '23001')
          throw new ConflictError(`${def.name} ${id} is still in use by other records and cannot be deleted`, 'in_use');
        throw err;
      }
      return record!;
    },
  };
}
