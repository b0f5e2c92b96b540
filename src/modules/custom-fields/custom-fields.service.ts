import { RE2JS } from 're2js';
import { z } from 'zod';
import type { Db } from '../../platform/db/knex.js';
import { fieldError, type FieldError } from '../../kit/graphql/errors.js';
import { isCalendarDate } from '../../platform/util/dates.js';
import { sanitizeRichText } from '../../platform/util/rich-text.js';

/**
 * Custom fields: definitions (a key, a label, a type, what they apply to, whether they can be
 * translated) and their values on course templates, learning paths and events. A value with no
 * locale is the base value; with a locale, that locale's translation of it. A field can be
 * translated only when it is flagged translatable, is text-shaped, has a base value on the
 * record, and the value passes the definition's own validator (contract).
 */

export const CUSTOM_FIELD_TYPES = ['text', 'textarea', 'rich_text', 'number', 'date', 'boolean'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];
export const TEXT_SHAPED: readonly CustomFieldType[] = ['text', 'textarea', 'rich_text'];
export const APPLIES_TO = ['course_template', 'learning_path', 'event'] as const;
export type AppliesTo = (typeof APPLIES_TO)[number];

export interface DefinitionRow {
  id: number;
  key: string;
  label: string;
  type: CustomFieldType;
  applies_to: AppliesTo;
  is_translatable: boolean;
  is_builtin: boolean;
  max_length: number | null;
  pattern: string | null;
  [key: string]: unknown;
}

export interface FieldValueRow {
  id: number;
  definition_id: number;
  locale_id: number | null;
  value: string;
  [key: string]: unknown;
}

/** Where the values of one kind of record live, and how the contract names that kind. */
export interface ValueTable {
  table: string;
  owner: string;
  appliesTo: AppliesTo;
  /** "Course Template", as the contract's messages say it. */
  entityName: string;
}

export const COURSE_TEMPLATE_VALUES: ValueTable = { table: 'course_template_field_values', owner: 'course_template_id', appliesTo: 'course_template', entityName: 'Course Template' };
export const LEARNING_PATH_VALUES: ValueTable = { table: 'learning_path_field_values', owner: 'learning_path_id', appliesTo: 'learning_path', entityName: 'Learning Path' };
export const EVENT_VALUES: ValueTable = { table: 'event_field_values', owner: 'event_id', appliesTo: 'event', entityName: 'Event' };

const DEFAULT_MAX: Record<CustomFieldType, number> = { text: 255, textarea: 10000, rich_text: 100000, number: 40, date: 10, boolean: 5 };

/**
 * The definition's own validator: null when `value` is valid for it, else why not. Callers
 * check the value as it would be stored ({@link storedValue}: rich text sanitised).
 */
export function invalidFor(def: DefinitionRow, value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  const max = def.max_length ?? DEFAULT_MAX[def.type];
  if (value.length > max) return `must be at most ${max} characters`;
  switch (def.type) {
    case 'text':
      if (/[\r\n]/.test(value)) return 'must be a single line';
      break;
    case 'number':
      if (value !== '' && !/^-?\d{1,20}(\.\d{1,10})?$/.test(value)) return 'must be a number such as 12 or 3.5';
      break;
    case 'date':
      if (value !== '' && !isCalendarDate(value)) return 'must be a date (YYYY-MM-DD)';
      break;
    case 'boolean':
      if (value !== 'true' && value !== 'false') return "must be 'true' or 'false'";
      break;
  }
  if (def.pattern && value !== '' && !RE2JS.compile(def.pattern).test(value)) return `must match the pattern ${def.pattern}`;
  return null;
}

/** What is stored for a value: rich text sanitised, everything else as given. */
export function storedValue(def: DefinitionRow, value: string): string {
  return def.type === 'rich_text' ? sanitizeRichText(value) : value;
}

export interface ValueInput {
  definitionKey: string;
  value?: string | null;
}

export interface ResolvedValue {
  def: DefinitionRow;
  /** null removes the value. */
  value: string | null;
}

const byKey = (defs: Iterable<DefinitionRow>) => new Map([...defs].map((d) => [d.key, d]));

/** Base values of a record being written: each key a definition of this kind of record, each value valid for it. */
export function checkBaseValues(defs: Iterable<DefinitionRow>, vt: ValueTable, input: ValueInput[]): { errors: FieldError[]; values: ResolvedValue[] } {
  const keyed = byKey(defs);
  const errors: FieldError[] = [];
  const values: ResolvedValue[] = [];
  const seen = new Set<string>();
  input.forEach((v, i) => {
    const def = keyed.get(v.definitionKey);
    const label = `customFieldValues[${i}]`;
    if (!def || def.applies_to !== vt.appliesTo) return errors.push(fieldError(`${label}.definitionKey`, v.definitionKey, `Custom Field Definition does not exist or does not apply to this ${vt.entityName}`));
    if (def.is_builtin) return errors.push(fieldError(`${label}.definitionKey`, v.definitionKey, 'This Custom Field is a built-in course description field; set it with the courseText fields, not customFieldValues'));
    if (seen.has(def.key)) return errors.push(fieldError(`${label}.definitionKey`, v.definitionKey, 'This Custom Field is given twice'));
    seen.add(def.key);
    const value = v.value ?? null;
    const stored = value === null ? null : storedValue(def, value);
    const why = stored === null ? null : invalidFor(def, stored);
    if (why) return errors.push(fieldError(`${label}.value`, value, `Value ${why}`));
    values.push({ def, value: stored });
  });
  return { errors, values };
}

/**
 * Translated values of a record for one locale, by every rule of the contract, in order: the
 * definition exists and applies here; it is not a built-in description field; it is flagged
 * translatable; it is text-shaped; the record has a base value for it; the value is valid.
 */
export function checkTranslatedValues(
  defs: Iterable<DefinitionRow>,
  vt: ValueTable,
  baseValues: FieldValueRow[],
  input: ValueInput[],
): { errors: FieldError[]; values: ResolvedValue[] } {
  const keyed = byKey(defs);
  const withBase = new Set(baseValues.filter((v) => v.locale_id === null).map((v) => v.definition_id));
  const errors: FieldError[] = [];
  const values: ResolvedValue[] = [];
  const seen = new Set<string>();
  input.forEach((v, i) => {
    const def = keyed.get(v.definitionKey);
    const key = (message: string) => errors.push(fieldError(`customFieldValues[${i}].definitionKey`, v.definitionKey, message));
    if (!def || def.applies_to !== vt.appliesTo) return key(`Custom Field Definition does not exist or does not apply to this ${vt.entityName}`);
    if (def.is_builtin) return key('This Custom Field is a built-in course description field; translate it with the courseText fields on this mutation, not customFieldValues');
    if (!def.is_translatable) return key('This Custom Field is not translatable');
    if (!TEXT_SHAPED.includes(def.type)) return key('Only text custom fields can be translated');
    if (!withBase.has(def.id)) return key(`Custom Field has no base value on the ${vt.entityName} to translate`);
    if (seen.has(def.key)) return key('This Custom Field is given twice');
    seen.add(def.key);
    const value = v.value ?? null;
    const stored = value === null ? null : storedValue(def, value);
    const why = stored === null ? null : invalidFor(def, stored);
    if (why) return errors.push(fieldError(`customFieldValues[${i}].value`, value, `Value ${why}`));
    values.push({ def, value: stored });
  });
  return { errors, values };
}

/**
 * Sets base values; other base values stay. null removes a value, with its translations (a
 * translation needs a base value).
 */
export async function writeBaseValues(db: Db, vt: ValueTable, ownerId: number, values: ResolvedValue[]): Promise<void> {
  for (const { def, value } of values) {
    if (value === null) await db(vt.table).where({ [vt.owner]: ownerId, definition_id: def.id }).delete();
    else {
      const updated = await db(vt.table).where({ [vt.owner]: ownerId, definition_id: def.id }).whereNull('locale_id').update({ value });
      if (!updated) await db(vt.table).insert({ [vt.owner]: ownerId, definition_id: def.id, locale_id: null, value });
    }
  }
}

/** Replaces one locale's translated values with `values` (translations replace, not patch). */
export async function replaceTranslatedValues(db: Db, vt: ValueTable, ownerId: number, localeId: number, values: ResolvedValue[]): Promise<void> {
  await db(vt.table).where({ [vt.owner]: ownerId, locale_id: localeId }).delete();
  const rows = values.filter((v) => v.value !== null).map((v) => ({ [vt.owner]: ownerId, definition_id: v.def.id, locale_id: localeId, value: v.value }));
  if (rows.length) await db(vt.table).insert(rows);
}

export async function deleteTranslatedValues(db: Db, vt: ValueTable, ownerId: number, localeId: number): Promise<void> {
  await db(vt.table).where({ [vt.owner]: ownerId, locale_id: localeId }).delete();
}

const keyFormat = /^[a-z][a-z0-9_]{0,62}$/;

export const definitionInput = z.object({
  key: z.string().regex(keyFormat, { message: 'must be 1-63 lowercase letters, digits or _, starting with a letter' }),
  label: z.string().trim().min(1, { message: 'must not be empty' }).max(200, { message: 'must be at most 200 characters' }),
  type: z.enum(CUSTOM_FIELD_TYPES, { message: `must be one of ${CUSTOM_FIELD_TYPES.join(', ')}` }),
  appliesTo: z.enum(APPLIES_TO, { message: `must be one of ${APPLIES_TO.join(', ')}` }),
  isTranslatable: z.boolean().default(false),
  maxLength: z.number().int().min(1).max(100000).nullable().optional(),
  // RE2 syntax (no backreferences or lookaround): matching takes time linear in the value, so no
  // pattern can stall the process however it is written.
  pattern: z
    .string()
    .max(200)
    .refine((p) => {
      try {
        RE2JS.compile(p);
        return true;
      } catch {
        return false;
      }
    }, { message: 'must be a valid RE2 regular expression (no backreferences or lookaround)' })
    .nullable()
    .optional(),
});
