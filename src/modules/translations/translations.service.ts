import type { Db } from '../../platform/db/knex.js';
import { fieldError, type FieldError } from '../../kit/graphql/errors.js';
import { sanitizeRichText } from '../../platform/util/rich-text.js';
import {
  checkTranslatedValues,
  deleteTranslatedValues,
  replaceTranslatedValues,
  type DefinitionRow,
  type FieldValueRow,
  type ValueInput,
  type ValueTable,
} from '../custom-fields/custom-fields.service.js';
import type { LocaleRow } from '../locales/locales.service.js';

/**
 * Translations of a record (course template, learning path): a sparse per-locale overlay,
 * falling back per field to the record's own content. By the contract's rules:
 * - upsert creates or fully replaces one locale's overlay (omitted fields are stored as null);
 * - null means "not translated here" (fall back), '' a deliberate blank (no fallback);
 * - rich text is sanitised on write, single-line text (a title) is not;
 * - the record's primary locale is never a translation, and a record without one has none;
 * - delete is hard and takes the locale's translated custom field values with it.
 * The messages are the contract's, word for word, as FieldErrors.
 */

export interface TranslatableField {
  column: string;
  /** Sanitised as HTML on write. */
  richText: boolean;
  /** Single-line text (no line breaks). */
  singleLine?: boolean;
  maxLength: number;
}

export interface TranslatableEntity {
  /** As the contract names it in messages: "Course Template". */
  entityName: string;
  /** The input field naming the record: `courseTemplateId`. */
  idLabel: string;
  table: string;
  translationsTable: string;
  owner: string;
  /** GraphQL field name to column. */
  fields: Record<string, TranslatableField>;
  values: ValueTable;
}

export interface TranslationRow {
  id: number;
  locale_id: number;
  [column: string]: unknown;
}

interface OwnerRow {
  id: number;
  locale_id: number | null;
}

export interface TranslationTarget {
  /** The record, when the id named one of this tenant's. */
  owner: OwnerRow | undefined;
  /** The locale, when the id named one the tenant supports. */
  locale: LocaleRow | undefined;
}

/** The checks every translation write starts with, in the contract's order. Empty when the write may go on. */
export function translationTargetErrors(entity: TranslatableEntity, ids: { ownerId: unknown; localeId: unknown }, target: TranslationTarget): FieldError[] {
  if (!target.owner) return [fieldError(entity.idLabel, ids.ownerId, `${entity.entityName} not found`)];
  if (target.owner.locale_id === null) return [fieldError(entity.idLabel, ids.ownerId, `${entity.entityName} must have a primary language before translations can be managed`)];
  if (!target.locale) return [fieldError('localeId', ids.localeId, 'Provided locale is not supported')];
  if (target.locale.id === target.owner.locale_id) return [fieldError('localeId', ids.localeId, `Cannot manage a translation in the ${entity.entityName}'s primary language`)];
  return [];
}

/** Checks a text value of a record or translation field; null when it is fine. */
export function textProblem(field: TranslatableField, value: string): string | null {
  if (value.length > field.maxLength) return `must be at most ${field.maxLength} characters`;
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (field.singleLine && /[\r\n]/.test(value)) return 'must be a single line';
  return null;
}

/**
 * Creates or replaces the overlay of `target.locale` on `target.owner` (checked with
 * {@link translationTargetErrors} first): every translatable field from `input` (absent = null),
 * and the locale's custom field values, replaced as a whole.
 */
export async function upsertTranslation(
  db: Db,
  entity: TranslatableEntity,
  target: { owner: OwnerRow; locale: LocaleRow },
  input: Record<string, unknown>,
  definitions: Iterable<DefinitionRow>,
  ownerValues: FieldValueRow[],
): Promise<{ translation: TranslationRow | null; errors: FieldError[] }> {
  const errors: FieldError[] = [];
  const row: Record<string, string | null> = {};
  for (const [name, field] of Object.entries(entity.fields)) {
    const raw = input[name];
    if (raw === undefined || raw === null) {
      row[field.column] = null;
      continue;
    }
    const problem = typeof raw !== 'string' ? 'must be text' : textProblem(field, raw);
    if (problem) errors.push(fieldError(name, raw, `${name} ${problem}`));
    else row[field.column] = field.richText ? sanitizeRichText(raw as string) : (raw as string);
  }
  const values = checkTranslatedValues(definitions, entity.values, ownerValues, (input.customFieldValues as ValueInput[] | null | undefined) ?? []);
  errors.push(...values.errors);
  if (errors.length) return { translation: null, errors };

  const [translation] = await db(entity.translationsTable)
    .insert({ [entity.owner]: target.owner.id, locale_id: target.locale.id, ...row })
    .onConflict([entity.owner, 'locale_id'])
    .merge({ ...row, updated_on: db.raw(`(now() at time zone 'utc')`) })
    .returning('*');
  await replaceTranslatedValues(db, entity.values, target.owner.id, target.locale.id, values.values);
  return { translation: translation as TranslationRow, errors: [] };
}

/** Deletes the overlay of one locale, and its translated custom field values. Deleting one that is not there is not an error. */
export async function deleteTranslation(db: Db, entity: TranslatableEntity, target: { owner: OwnerRow; locale: LocaleRow }): Promise<void> {
  await db(entity.translationsTable).where({ [entity.owner]: target.owner.id, locale_id: target.locale.id }).delete();
  await deleteTranslatedValues(db, entity.values, target.owner.id, target.locale.id);
}

/** The GraphQL field names that are not null in a translation (contract: translatedFields). */
export function translatedFields(entity: TranslatableEntity, row: TranslationRow): string[] {
  return Object.entries(entity.fields)
    .filter(([, f]) => row[f.column] !== null && row[f.column] !== undefined)
    .map(([name]) => name);
}
