import type { Db } from '../../platform/db/knex.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';

/** A tenant's view of one catalogue locale. */
export interface LocaleRow {
  id: number;
  code: string;
  name: string;
  full_name: string;
  supported: boolean;
  is_default: boolean;
  [key: string]: unknown;
}

async function byCodeOrId(db: Db, locale: string | number): Promise<LocaleRow> {
  const row = await (typeof locale === 'number' ? db('locales').where({ id: locale }) : db('locales').whereRaw('lower(code) = lower(?)', [locale])).first<LocaleRow | undefined>();
  if (!row) throw new NotFoundError(`No locale '${locale}' (codes look like en, fr, pt-BR)`, 'locale_not_found');
  return row;
}

/** Lets the tenant use a catalogue locale for content (primary, delivery, translations). */
export async function enableLocale(db: Db, locale: string | number): Promise<LocaleRow> {
  const row = await byCodeOrId(db, locale);
  await db('locales').where({ id: row.id }).update({ supported: true });
  return { ...row, supported: true };
}

/** Stops offering a locale for new content; content already in it keeps it. The default cannot be disabled. */
export async function disableLocale(db: Db, locale: string | number): Promise<LocaleRow> {
  const row = await byCodeOrId(db, locale);
  if (row.is_default) throw new ValidationError('The default locale cannot be disabled; make another locale the default first', { fields: { localeId: 'is the default locale' } });
  await db('locales').where({ id: row.id }).update({ supported: false });
  return { ...row, supported: false };
}

/** Makes a supported locale the tenant's default. */
export async function setDefaultLocale(db: Db, locale: string | number): Promise<LocaleRow> {
  const row = await byCodeOrId(db, locale);
  if (!row.supported) throw new ValidationError('Provided locale is not supported', { fields: { localeId: 'is not supported' } });
  await db('locales').where({ is_default: true }).update({ is_default: false });
  await db('locales').where({ id: row.id }).update({ is_default: true });
  return { ...row, is_default: true };
}

export function listSupportedLocales(db: Db): Promise<LocaleRow[]> {
  return db('locales').where({ supported: true }).orderBy('id');
}
