import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { utcNow } from '../../platform/db/sql.js';
import { Category } from './categories.data.js';

/**
 * Translations of categories: one row per category and locale, a sparse overlay of its name and
 * introduction (null: not translated here, falls back to the category's own; '': a deliberate
 * blank). The only file that names the `category_translations` table. Every function takes the
 * transaction first.
 */

export class CategoryTranslation extends BaseModel {
  static override tableName = 'category_translations';

  declare id: number;
  declare category_id: number;
  declare locale_id: number;
  declare name: string | null;
  declare introduction: string | null;
  declare created_on: string;
  declare updated_on: string;
}

export type CategoryTranslationRow = ModelObject<CategoryTranslation>;

/** The translatable columns of a category, as a translation stores them (null: not translated). */
export interface CategoryTranslationColumns {
  name: string | null;
  introduction: string | null;
}

/** Every translation of these categories, by locale (a page's batch). */
export function translationsOfCategories(db: Db, categoryIds: readonly number[]): Promise<CategoryTranslationRow[]> {
  return db(CategoryTranslation.tableName).whereIn('category_id', categoryIds as number[]).orderBy(['category_id', 'locale_id']);
}

/** Category translations by their own id (a node's batch). */
export function categoryTranslationsByIds(db: Db, ids: readonly number[]): Promise<CategoryTranslationRow[]> {
  return db(CategoryTranslation.tableName).whereIn('id', ids as number[]);
}

/**
 * The category a translation is written for, read with a key-share lock: a concurrent delete of
 * the category waits for the write (and then takes the translation with it).
 */
export async function lockCategory(db: Db, id: number): Promise<Pick<Category, 'id'> | undefined> {
  return Category.query(db).findById(id).select('id').forKeyShare();
}

/** Creates or replaces the translation of one category in one locale with `columns` (every translatable column). */
export async function upsertCategoryTranslationRow(db: Db, categoryId: number, localeId: number, columns: CategoryTranslationColumns): Promise<CategoryTranslationRow> {
  const [row] = (await db(CategoryTranslation.tableName)
    .insert({ category_id: categoryId, locale_id: localeId, ...columns })
    .onConflict(['category_id', 'locale_id'])
    .merge({ ...columns, updated_on: utcNow(db) })
    .returning('*')) as CategoryTranslationRow[];
  return row!;
}

/** Deletes the translation of one category in one locale (none there: nothing happens). */
export async function deleteCategoryTranslationRow(db: Db, categoryId: number, localeId: number): Promise<void> {
  await db(CategoryTranslation.tableName).where({ category_id: categoryId, locale_id: localeId }).delete();
}
