import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';

/**
 * A tenant's locales: the catalogue Lectern knows (seeded by the tenant migration), with which of
 * them the tenant supports and which is its default. The only file that names the `locales` table.
 */

export class Locale extends BaseModel {
  static override tableName = 'locales';

  /** The catalogue's id (the same in every tenant). */
  declare id: number;
  /** BCP 47, e.g. fr-CA. */
  declare code: string;
  /** e.g. French */
  declare name: string;
  /** e.g. French (Canada) */
  declare full_name: string;
  /** The tenant uses this locale for content. */
  declare supported: boolean;
  /** The tenant's default (always a supported one; at most one). */
  declare is_default: boolean;
}

/** A tenant's view of one catalogue locale. */
export type LocaleRow = ModelObject<Locale>;

/** The locale with this id, or this code in any case. */
export function localeByCodeOrId(db: Db, locale: string | number): Promise<LocaleRow | undefined> {
  return (
    typeof locale === 'number'
      ? db(Locale.tableName).where({ id: locale })
      : db(Locale.tableName).whereRaw('lower(code) = lower(?)', [locale])
  ).first<LocaleRow | undefined>();
}

export async function setSupported(db: Db, id: number, supported: boolean): Promise<void> {
  await db(Locale.tableName).where({ id }).update({ supported });
}

/** Makes the locale the only default (the previous default first stops being it: one default at most). */
export async function makeDefault(db: Db, id: number): Promise<void> {
  await db(Locale.tableName).where({ is_default: true }).update({ is_default: false });
  await db(Locale.tableName).where({ id }).update({ is_default: true });
}

/** The locales the tenant supports, by id. */
export function supportedLocales(db: Db): Promise<LocaleRow[]> {
  return db(Locale.tableName).where({ supported: true }).orderBy('id');
}

/** The ids of the locales the tenant supports. */
export async function supportedLocaleIds(db: Db): Promise<Set<number>> {
  return new Set(await db(Locale.tableName).where({ supported: true }).pluck<number[]>('id'));
}

/** Every locale of the catalogue, supported or not, by id. */
export function allLocaleRows(db: Db): Promise<LocaleRow[]> {
  return db(Locale.tableName).orderBy('id');
}
