import { problem, type Problem } from '../../platform/problems.js';
import { textProblem, type TranslatableField } from '../translations/index.js';

/**
 * The rules of translations of categories, pure: the rules of course template translations
 * (translations.rules.ts) where they apply.
 * - upsert creates or fully replaces one locale's overlay (omitted fields are stored as null);
 * - null means "not translated here" (fall back), '' a deliberate blank (no fallback);
 * - the name is one line of at most 255 characters, as a category's own; the description (the
 *   category's introduction) at most 10,000, stored as given, as REST stores the introduction;
 *   neither holds NUL;
 * - categories have no primary locale: any locale the instance supports may hold a translation.
 */

/** The translatable fields of a category, by their input names, with the columns they overlay. */
export const CATEGORY_TRANSLATION_FIELDS = {
  name: { column: 'name', richText: false, singleLine: true, maxLength: 255 },
  description: { column: 'introduction', richText: false, maxLength: 10000 },
} as const satisfies Record<string, TranslatableField>;

/** A translation's texts as a caller gives them (absent or null: not translated). */
export interface CategoryTranslationTexts {
  name?: string | null;
  description?: string | null;
}

/** What the rules read of the category and the locale a translation names. */
export interface CategoryTranslationTarget {
  /** The category, when the id named one of this tenant's. */
  category: { id: number } | undefined;
  /** The locale, when the id named one the tenant supports (for a delete: one of the catalogue). */
  locale: { id: number } | undefined;
}

/**
 * The checks every category translation write starts with; empty when the write may go on. The
 * problems carry the ids as `ids` has them.
 */
export function categoryTranslationTargetProblems(ids: { categoryId: unknown; localeId: unknown }, target: CategoryTranslationTarget): Problem[] {
  if (!target.category) return [problem('learningCategoryId', ids.categoryId, 'Learning Category not found')];
  if (!target.locale) return [problem('localeId', ids.localeId, 'Provided locale is not supported')];
  return [];
}

/**
 * The columns of a translation from its texts, replace-not-patch: every translatable field,
 * absent or null stored as null (not translated, falls back). With the problems of the values
 * that are not fine.
 */
export function categoryTranslationColumns(texts: Readonly<CategoryTranslationTexts>): { problems: Problem[]; columns: { name: string | null; introduction: string | null } } {
  const problems: Problem[] = [];
  const columns = { name: null as string | null, introduction: null as string | null };
  for (const [field, spec] of Object.entries(CATEGORY_TRANSLATION_FIELDS) as [keyof CategoryTranslationTexts, TranslatableField & { column: 'name' | 'introduction' }][]) {
    const value = texts[field];
    if (value === undefined || value === null) continue;
    const why = textProblem(spec, value);
    if (why) problems.push(problem(field, value, `${field} ${why}`));
    else columns[spec.column] = value;
  }
  return { problems, columns };
}

/** The input field names that are not null in a translation (its `translatedFields`). */
export function categoryTranslatedFields(row: { name: string | null; introduction: string | null }): string[] {
  return Object.entries(CATEGORY_TRANSLATION_FIELDS)
    .filter(([, spec]) => row[spec.column] !== null && row[spec.column] !== undefined)
    .map(([field]) => field);
}
