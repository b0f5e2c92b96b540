import { RE2JS } from 're2js';
import { z } from 'zod';
import { problem, type Problem } from '../../platform/problems.js';
import { hasNul, isCalendarDate } from '../../platform/util/dates.js';
import { sanitizeRichText } from '../../platform/util/rich-text.js';

/**
 * The rules of custom fields, pure: what a definition may be, and what values it takes. A value
 * with no locale is the base value; with a locale, that locale's translation of it. A field can
 * be translated only when it is flagged translatable, is text-shaped, has a base value on the
 * record, and the value passes the definition's own validator (contract).
 */

export const CUSTOM_FIELD_TYPES = ['text', 'textarea', 'rich_text', 'number', 'date', 'boolean'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];
export const TEXT_SHAPED: readonly CustomFieldType[] = ['text', 'textarea', 'rich_text'];
export const APPLIES_TO = ['course_template', 'learning_path', 'event', 'session'] as const;
export type AppliesTo = (typeof APPLIES_TO)[number];
/**
 * The kinds whose values live in this module's value tables (with translations). A session's values
 * are the events module's (`session_field_values`: base values only, never translated).
 */
export type ValueKind = Exclude<AppliesTo, 'session'>;

/** What the rules read of a definition. */
export interface FieldDefinition {
  id: number;
  key: string;
  label: string;
  type: CustomFieldType;
  applies_to: AppliesTo;
  is_translatable: boolean;
  is_builtin: boolean;
  max_length: number | null;
  pattern: string | null;
  /** What the field is for (absent: none). */
  description?: string | null;
  /**
   * Another name a caller may give the definition in place of its key, when the API has one (the
   * Core API: its global id, as the production service's clients name definitions).
   */
  locator?: string;
}

/** What the rules read of a stored value. */
export interface StoredValue {
  definition_id: number;
  locale_id: number | null;
  value: string;
}

/** A kind of record that has custom field values, and how the contract names it. */
export interface ValueOwner {
  appliesTo: AppliesTo;
  /** "Course Template", as the contract's messages say it. */
  entityName: string;
}

export const COURSE_TEMPLATE_VALUES = { appliesTo: 'course_template', entityName: 'Course Template' } as const satisfies ValueOwner;
export const LEARNING_PATH_VALUES = { appliesTo: 'learning_path', entityName: 'Learning Path' } as const satisfies ValueOwner;
export const EVENT_VALUES = { appliesTo: 'event', entityName: 'Event' } as const satisfies ValueOwner;
/** A session's values are checked here and stored by the events module (`session_field_values`). */
export const SESSION_VALUES = { appliesTo: 'session', entityName: 'Session' } as const satisfies ValueOwner;

const DEFAULT_MAX: Record<CustomFieldType, number> = { text: 255, textarea: 10000, rich_text: 100000, number: 40, date: 10, boolean: 5 };

/**
 * The definition's own validator: null when `value` is valid for it, else why not. Callers
 * check the value as it would be stored ({@link storedValue}: rich text sanitised).
 */
export function invalidFor(def: FieldDefinition, value: string): string | null {
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
export function storedValue(def: FieldDefinition, value: string): string {
  return def.type === 'rich_text' ? sanitizeRichText(value) : value;
}

export interface ValueInput {
  definitionKey: string;
  value?: string | null;
}

export interface ResolvedValue<D extends FieldDefinition = FieldDefinition> {
  def: D;
  /** null removes the value. */
  value: string | null;
}

/** Definitions by key, and by locator where they have one (a key is lowercase, a locator is not: they never clash). */
const byKey = <D extends FieldDefinition>(defs: Iterable<D>) =>
  new Map([...defs].flatMap((d) => (d.locator ? [[d.key, d] as const, [d.locator, d] as const] : [[d.key, d] as const])));

/** Base values of a record being written: each key a definition of this kind of record, each value valid for it. */
export function checkBaseValues<D extends FieldDefinition>(
  defs: Iterable<D>,
  owner: ValueOwner,
  input: ValueInput[],
): { problems: Problem[]; values: ResolvedValue<D>[] } {
  const keyed = byKey(defs);
  const problems: Problem[] = [];
  const values: ResolvedValue<D>[] = [];
  const seen = new Set<string>();
  input.forEach((v, i) => {
    const def = keyed.get(v.definitionKey);
    const label = `customFieldValues[${i}]`;
    if (!def || def.applies_to !== owner.appliesTo)
      return problems.push(
        problem(
          `${label}.definitionKey`,
          v.definitionKey,
          `Custom Field Definition does not exist or does not apply to this ${owner.entityName}`,
        ),
      );
    if (def.is_builtin)
      return problems.push(
        problem(
          `${label}.definitionKey`,
          v.definitionKey,
          'This Custom Field is a built-in course description field; set it with the courseText fields, not customFieldValues',
        ),
      );
    if (seen.has(def.key)) return problems.push(problem(`${label}.definitionKey`, v.definitionKey, 'This Custom Field is given twice'));
    seen.add(def.key);
    const value = v.value ?? null;
    const stored = value === null ? null : storedValue(def, value);
    const why = stored === null ? null : invalidFor(def, stored);
    if (why) return problems.push(problem(`${label}.value`, value, `Value ${why}`));
    values.push({ def, value: stored });
  });
  return { problems, values };
}

/**
 * Translated values of a record for one locale, by every rule of the contract, in order: the
 * definition exists and applies here; it is not a built-in description field; it is flagged
 * translatable; it is text-shaped; the record has a base value for it; the value is valid.
 */
export function checkTranslatedValues<D extends FieldDefinition>(
  defs: Iterable<D>,
  owner: ValueOwner,
  baseValues: readonly StoredValue[],
  input: ValueInput[],
): { problems: Problem[]; values: ResolvedValue<D>[] } {
  const keyed = byKey(defs);
  const withBase = new Set(baseValues.filter((v) => v.locale_id === null).map((v) => v.definition_id));
  const problems: Problem[] = [];
  const values: ResolvedValue<D>[] = [];
  const seen = new Set<string>();
  input.forEach((v, i) => {
    const def = keyed.get(v.definitionKey);
    const key = (message: string) => problems.push(problem(`customFieldValues[${i}].definitionKey`, v.definitionKey, message));
    if (!def || def.applies_to !== owner.appliesTo)
      return key(`Custom Field Definition does not exist or does not apply to this ${owner.entityName}`);
    if (def.is_builtin)
      return key(
        'This Custom Field is a built-in course description field; translate it with the courseText fields on this mutation, not customFieldValues',
      );
    if (!def.is_translatable) return key('This Custom Field is not translatable');
    if (!TEXT_SHAPED.includes(def.type)) return key('Only text custom fields can be translated');
    if (!withBase.has(def.id)) return key(`Custom Field has no base value on the ${owner.entityName} to translate`);
    if (seen.has(def.key)) return key('This Custom Field is given twice');
    seen.add(def.key);
    const value = v.value ?? null;
    const stored = value === null ? null : storedValue(def, value);
    const why = stored === null ? null : invalidFor(def, stored);
    if (why) return problems.push(problem(`customFieldValues[${i}].value`, value, `Value ${why}`));
    values.push({ def, value: stored });
  });
  return { problems, values };
}

/**
 * The values to show: the base values of the record's non-built-in fields, each overlaid by
 * `localeId`'s translation when it has one (per field: the translation, else the base).
 */
export function shownValues<D extends FieldDefinition>(
  defs: ReadonlyMap<number, D>,
  values: readonly StoredValue[],
  localeId: number | null,
): { def: D; value: string | null }[] {
  const translated = new Map(values.filter((v) => localeId !== null && v.locale_id === localeId).map((v) => [v.definition_id, v.value]));
  return values
    .filter((v) => v.locale_id === null)
    .map((v) => ({ def: defs.get(v.definition_id)!, value: translated.get(v.definition_id) ?? v.value }))
    .filter((v) => v.def && !v.def.is_builtin)
    .sort((a, b) => a.def.id - b.def.id);
}

// --- Definitions ----------------------------------------------------------------------------

/** A definition as a caller gives it (create: key, label, type and appliesTo required; update: what changes). */
export interface DefinitionInput {
  key?: string | null;
  label?: string | null;
  description?: string | null;
  type?: string | null;
  appliesTo?: string | null;
  isTranslatable?: boolean | null;
  maxLength?: number | null;
  pattern?: string | null;
}

/** A definition that passed the rules. */
export interface DefinitionValues {
  key: string;
  label: string;
  description?: string | null;
  type: CustomFieldType;
  appliesTo: AppliesTo;
  isTranslatable: boolean;
  maxLength?: number | null;
  pattern?: string | null;
}

const keyFormat = /^[a-z][a-z0-9_]{0,62}$/;

const definitionSchema = z
  .object({
    key: z.string().regex(keyFormat, { message: 'must be 1-63 lowercase letters, digits or _, starting with a letter' }),
    label: z
      .string()
      .trim()
      .min(1, { message: 'must not be empty' })
      .max(200, { message: 'must be at most 200 characters' })
      .refine((v) => !hasNul(v), { message: 'must not contain NUL characters' }),
    description: z
      .string()
      .max(2000, { message: 'must be at most 2000 characters' })
      .refine((v) => !hasNul(v), { message: 'must not contain NUL characters' })
      .nullable()
      .optional(),
    type: z.enum(CUSTOM_FIELD_TYPES, { message: `must be one of ${CUSTOM_FIELD_TYPES.join(', ')}` }),
    appliesTo: z.enum(APPLIES_TO, { message: `must be one of ${APPLIES_TO.join(', ')}` }),
    isTranslatable: z.boolean().default(false),
    maxLength: z.number().int().min(1).max(100000).nullable().optional(),
    // RE2 syntax (no backreferences or lookaround): matching takes time linear in the value, so no
    // pattern can stall the process however it is written.
    pattern: z
      .string()
      .max(200)
      .refine(
        (p) => {
          try {
            RE2JS.compile(p);
            return true;
          } catch {
            return false;
          }
        },
        { message: 'must be a valid RE2 regular expression (no backreferences or lookaround)' },
      )
      .nullable()
      .optional(),
  })
  .refine((d) => !(d.appliesTo === 'session' && d.isTranslatable), {
    // Sessions keep base values only (their table has no locale): a translatable one could not be translated.
    message: 'Session custom fields cannot be translatable',
    path: ['isTranslatable'],
  });

/** The definition's problems (each naming the input field and carrying the value `echo` has for it), or the definition. */
function parsedDefinition(candidate: DefinitionInput, echo: DefinitionInput): { problems: Problem[]; definition?: DefinitionValues } {
  const parsed = definitionSchema.safeParse(candidate);
  if (parsed.success) return { problems: [], definition: parsed.data };
  return {
    problems: parsed.error.issues.map((i) =>
      problem(String(i.path[0] ?? 'input'), echo[String(i.path[0]) as keyof DefinitionInput], i.message),
    ),
  };
}

/** A new definition: key, label, type and appliesTo required; not translatable unless said. */
export function newDefinition(input: DefinitionInput): { problems: Problem[]; definition?: DefinitionValues } {
  return parsedDefinition({ ...input, isTranslatable: input.isTranslatable ?? false }, input);
}

/**
 * A change of `existing`: its label, description, translatability and validation may change; its
 * key, type and what it applies to stay, and a built-in one does not change at all (the problem
 * names `customFieldDefinitionId`, with the definition's id). Absent fields keep their value; a
 * description, maxLength or pattern given as null is cleared.
 */
export function changedDefinition(
  existing: FieldDefinition,
  input: DefinitionInput,
): { problems: Problem[]; definition: DefinitionValues | undefined } {
  const problems: Problem[] = [];
  if (existing.is_builtin) problems.push(problem('customFieldDefinitionId', existing.id, 'Built-in custom fields cannot be changed'));
  for (const [name, column] of [
    ['key', 'key'],
    ['type', 'type'],
    ['appliesTo', 'applies_to'],
  ] as const) {
    if (input[name] != null && input[name] !== existing[column])
      problems.push(problem(name, input[name], `The ${name} of a custom field cannot change`));
  }
  const merged: DefinitionInput = {
    key: existing.key,
    label: input.label ?? existing.label,
    description: 'description' in input ? input.description : (existing.description ?? null),
    type: existing.type,
    appliesTo: existing.applies_to,
    isTranslatable: input.isTranslatable ?? existing.is_translatable,
    maxLength: 'maxLength' in input ? input.maxLength : existing.max_length,
    pattern: 'pattern' in input ? input.pattern : existing.pattern,
  };
  problems.push(...parsedDefinition(merged, merged).problems);
  // What is stored is the merge as given (the label untrimmed), as it always was on update.
  return { problems, definition: problems.length ? undefined : (merged as DefinitionValues) };
}

/** Whether `input` turns a translatable definition's translatability off (then its translated values are looked for). */
export function turnsTranslationOff(existing: FieldDefinition, input: DefinitionInput): boolean {
  return existing.is_translatable && (input.isTranslatable ?? existing.is_translatable) === false;
}

/** Turning translatability off while translated values exist: refused. */
export function translatabilityProblems(existing: FieldDefinition, input: DefinitionInput, hasTranslatedValues: boolean): Problem[] {
  return turnsTranslationOff(existing, input) && hasTranslatedValues
    ? [problem('isTranslatable', false, 'This Custom Field has translated values; remove them from the translations first')]
    : [];
}
