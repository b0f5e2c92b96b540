import { problem, type Problem } from '../../platform/problems.js';
import { sanitizeRichText } from '../../platform/util/rich-text.js';
import type { ValueOwner } from '../custom-fields/index.js';

/**
 * The rules of translations of a record (course template, learning path, category), pure. By the contract:
 * - upsert creates or fully replaces one locale's overlay (omitted fields are stored as null);
 * - null means "not translated here" (fall back), '' a deliberate blank (no fallback);
 * - rich text is sanitised on write, single-line text (a title) is not;
 * - the record's primary locale is never a translation, and a record without one has none; a kind
 *   of record without primary locales (a category) takes a translation in any supported locale.
 * The messages are the contract's, word for word.
 */

export interface TranslatableField {
  column: string;
  /** Sanitised as HTML on write. */
  richText: boolean;
  /** Single-line text (no line breaks). */
  singleLine?: boolean;
  maxLength: number;
}

/** The kinds of record that have translations. */
export type TranslatableKind = 'course_template' | 'learning_path' | 'category';

/**
 * A kind of record with translations: how the contract names it, its input id field, its
 * translatable fields; and either its custom field values, translated with its texts, or (a
 * category, which has none) only the name of its kind.
 */
export type TranslatableEntity = TranslatableEntityBase &
  (
    | {
        /** Its custom field values; `values.appliesTo` is the kind of record (`course_template`, `learning_path`). */
        values: ValueOwner & { appliesTo: TranslatableKind };
        kind?: undefined;
      }
    | {
        /** A kind of record without custom field values (`category`): its translations are texts only. */
        kind: TranslatableKind;
        values?: undefined;
      }
  );

interface TranslatableEntityBase {
  /** As the contract names it in messages: "Course Template". */
  entityName: string;
  /** The input field naming the record: `courseTemplateId`. */
  idLabel: string;
  /** Input field name to column (the columns of the record and of its translations). */
  fields: Record<string, TranslatableField>;
  /**
   * false: the kind has no primary locale (a category), so any supported locale may hold a
   * translation. Otherwise (the default) the record's primary locale is never a translation, and
   * a record without one has none.
   */
  primaryLocale?: false;
}

/** The kind of record an entity describes (where its translations and custom field values are kept). */
export function translatableKindOf(entity: TranslatableEntity): TranslatableKind {
  return entity.values ? entity.values.appliesTo : entity.kind;
}

/** What the rules read of the record and the locale a translation names. */
export interface TranslationTarget {
  /** The record, when the id named one of this tenant's; with its primary locale, for a kind that has them. */
  owner: { id: number; locale_id?: number | null } | undefined;
  /** The locale, when the id named one the tenant supports (for a delete: one of the catalogue). */
  locale: { id: number } | undefined;
}

/**
 * The checks every translation write starts with, in the contract's order; empty when the write
 * may go on. The problems carry the ids as `ids` has them.
 */
export function translationTargetProblems(
  entity: TranslatableEntity,
  ids: { ownerId: unknown; localeId: unknown },
  target: TranslationTarget,
): Problem[] {
  const primary = entity.primaryLocale !== false;
  if (!target.owner) return [problem(entity.idLabel, ids.ownerId, `${entity.entityName} not found`)];
  if (primary && target.owner.locale_id == null)
    return [problem(entity.idLabel, ids.ownerId, `${entity.entityName} must have a primary language before translations can be managed`)];
  if (!target.locale) return [problem('localeId', ids.localeId, 'Provided locale is not supported')];
  if (primary && target.locale.id === target.owner.locale_id)
    return [problem('localeId', ids.localeId, `Cannot manage a translation in the ${entity.entityName}'s primary language`)];
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
 * The columns of a translation from its input, replace-not-patch: every translatable field,
 * absent or null stored as null (not translated, falls back); rich text sanitised. With the
 * problems of the values that are not fine.
 */
export function translationColumns(
  entity: TranslatableEntity,
  texts: Readonly<Record<string, string | null | undefined>>,
): { problems: Problem[]; columns: Record<string, string | null> } {
  const problems: Problem[] = [];
  const columns: Record<string, string | null> = {};
  for (const [name, field] of Object.entries(entity.fields)) {
    const raw = texts[name];
    if (raw === undefined || raw === null) {
      columns[field.column] = null;
      continue;
    }
    const why = textProblem(field, raw);
    if (why) problems.push(problem(name, raw, `${name} ${why}`));
    else columns[field.column] = field.richText ? sanitizeRichText(raw) : raw;
  }
  return { problems, columns };
}

/** The input field names that are not null in a translation (contract: translatedFields). */
export function translatedFields(entity: TranslatableEntity, row: object): string[] {
  const columns = row as Record<string, unknown>;
  return Object.entries(entity.fields)
    .filter(([, f]) => columns[f.column] !== null && columns[f.column] !== undefined)
    .map(([name]) => name);
}
