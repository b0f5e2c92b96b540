import type { Db } from '../../platform/db/knex.js';
import type { Problem } from '../../platform/problems.js';
import { deleteCategoryTranslationRow, lockCategory, upsertCategoryTranslationRow, type CategoryTranslationRow } from './category-translations.data.js';
import { categoryTranslationColumns, categoryTranslationTargetProblems, type CategoryTranslationTexts } from './category-translations.rules.js';

/**
 * Translations of categories: a sparse per-locale overlay of a category's name and introduction,
 * falling back per field to the category's own (the rules: category-translations.rules.ts). A
 * delete is hard. Problems about the category name `learningCategoryId` (with the category's id),
 * problems about the locale name `localeId` (with the locale's id, or null when none was found).
 */

/** The category (read locked) and the locale a translation write names, and why they cannot take one. */
async function target(db: Db, categoryId: number | undefined, locale: { id: number } | undefined) {
  const category = categoryId === undefined ? undefined : await lockCategory(db, categoryId);
  const problems = categoryTranslationTargetProblems({ categoryId: categoryId ?? null, localeId: locale?.id ?? null }, { category, locale });
  return { category: category!, locale: locale!, problems };
}

/**
 * Creates or replaces the overlay of `locale` on the category `categoryId`: every translatable
 * field of `texts` (absent = null). `locale` is the supported locale the caller's id named
 * (undefined: none); `categoryId` undefined when the caller's id named no category.
 */
export async function upsertCategoryTranslation(
  db: Db,
  categoryId: number | undefined,
  locale: { id: number } | undefined,
  texts: Readonly<CategoryTranslationTexts>,
): Promise<{ translation: CategoryTranslationRow | null; problems: Problem[] }> {
  const t = await target(db, categoryId, locale);
  if (t.problems.length) return { translation: null, problems: t.problems };
  const { problems, columns } = categoryTranslationColumns(texts);
  if (problems.length) return { translation: null, problems };
  return { translation: await upsertCategoryTranslationRow(db, t.category.id, t.locale.id, columns), problems: [] };
}

/**
 * Deletes the overlay of `locale` (a locale of the catalogue, supported or not: a translation can
 * be deleted after its locale stopped being supported) on the category. Deleting one that is not
 * there is not an error.
 */
export async function deleteCategoryTranslation(db: Db, categoryId: number | undefined, locale: { id: number } | undefined): Promise<{ problems: Problem[] }> {
  const t = await target(db, categoryId, locale);
  if (t.problems.length) return { problems: t.problems };
  await deleteCategoryTranslationRow(db, t.category.id, t.locale.id);
  return { problems: [] };
}
