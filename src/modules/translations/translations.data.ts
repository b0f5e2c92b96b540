import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { utcNow } from '../../platform/db/sql.js';
import { BaseModel } from '../../platform/db/model.js';
import type { TranslatableKind } from './translations.rules.js';

/**
 * Translations of course templates, learning paths and categories: one row per record and locale,
 * a sparse overlay (null: not translated here, falls back to the record's own; '': a deliberate
 * blank). The only file that names the translation tables. Every function takes the transaction first.
 */

class TranslationRecord extends BaseModel {
  declare id: number;
  declare locale_id: number;
  declare created_on: string;
  declare updated_on: string;
}

export class CourseTemplateTranslation extends TranslationRecord {
  static override tableName = 'course_template_translations';
  declare course_template_id: number;
  declare title: string | null;
  declare course_text1: string | null;
  declare course_text2: string | null;
  declare related_courses_text: string | null;
  declare lms_summary: string | null;
  declare teaser_description: string | null;
}

export class LearningPathTranslation extends TranslationRecord {
  static override tableName = 'learning_path_translations';
  declare learning_path_id: number;
  declare name: string | null;
  declare description: string | null;
}

/** A category's name and introduction in one locale. */
export class CategoryTranslation extends TranslationRecord {
  static override tableName = 'category_translations';
  declare category_id: number;
  declare name: string | null;
  declare introduction: string | null;
}

export type TranslationRow =
  ModelObject<CourseTemplateTranslation> | ModelObject<LearningPathTranslation> | ModelObject<CategoryTranslation>;

const TABLES: Record<TranslatableKind, { table: string; owner: string }> = {
  course_template: { table: CourseTemplateTranslation.tableName, owner: 'course_template_id' },
  learning_path: { table: LearningPathTranslation.tableName, owner: 'learning_path_id' },
  category: { table: CategoryTranslation.tableName, owner: 'category_id' },
};

/** The translation table of a kind of record and its owner column (for a face's per-request loaders). */
export function translationTableOf(kind: TranslatableKind): { table: string; owner: string } {
  return TABLES[kind];
}

/** Every translation of these records, by locale (a page's batch). */
export function translationsOfOwners(db: Db, kind: TranslatableKind, ownerIds: readonly number[]): Promise<TranslationRow[]> {
  const t = TABLES[kind];
  return db(t.table)
    .whereIn(t.owner, ownerIds as number[])
    .orderBy('locale_id');
}

/** What a translation write reads of its record. */
export interface TranslationOwner {
  id: number;
  /** The primary locale, for a kind of record that has them: a record without one has no translations. */
  locale_id?: number | null;
}

/** Creates or replaces the translation of one record in one locale with `columns` (every translatable column). */
export async function upsertTranslationRow(
  db: Db,
  kind: TranslatableKind,
  ownerId: number,
  localeId: number,
  columns: Record<string, string | null>,
): Promise<TranslationRow> {
  const t = TABLES[kind];
  const [row] = await db(t.table)
    .insert({ [t.owner]: ownerId, locale_id: localeId, ...columns })
    .onConflict([t.owner, 'locale_id'])
    .merge({ ...columns, updated_on: utcNow(db) })
    .returning('*');
  return row as TranslationRow;
}

/** Deletes the translation of one record in one locale (none there: nothing happens). */
export async function deleteTranslationRow(db: Db, kind: TranslatableKind, ownerId: number, localeId: number): Promise<void> {
  const t = TABLES[kind];
  await db(t.table)
    .where({ [t.owner]: ownerId, locale_id: localeId })
    .delete();
}

/** The locales a record is translated into. */
export function translationLocaleIds(db: Db, kind: TranslatableKind, ownerId: number): Promise<number[]> {
  const t = TABLES[kind];
  return db(t.table)
    .where({ [t.owner]: ownerId })
    .pluck('locale_id');
}

/** A course template's translated titles (not null, not blank), for the events that take its title in their locale. */
export function translatedTitles(db: Db, templateId: number): Promise<{ locale_id: number; title: string }[]> {
  return db(CourseTemplateTranslation.tableName)
    .where({ course_template_id: templateId })
    .whereNotNull('title')
    .whereNot('title', '')
    .select<{ locale_id: number; title: string }[]>('locale_id', 'title');
}

/** Translations by their own id (a node's batch). */
export function translationsByIds(db: Db, kind: TranslatableKind, ids: readonly number[]): Promise<TranslationRow[]> {
  return db(TABLES[kind].table).whereIn('id', ids as number[]);
}
