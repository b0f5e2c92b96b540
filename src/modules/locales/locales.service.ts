import type { Db } from '../../platform/db/knex.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { localeByCodeOrId, makeDefault, setSupported, supportedLocales, type LocaleRow } from './locales.data.js';

export type { LocaleRow } from './locales.data.js';

async function byCodeOrId(db: Db, locale: string | number): Promise<LocaleRow> {
  const row = await localeByCodeOrId(db, locale);
  if (!row) throw new NotFoundError(`No locale '${locale}' (codes look like en, fr, pt-BR)`, 'locale_not_found');
  return row;
}

/** Lets the tenant use a catalogue locale for content (primary, delivery, translations). */
export async function enableLocale(db: Db, locale: string | number): Promise<LocaleRow> {
  const row = await byCodeOrId(db, locale);
  await setSupported(db, row.id, true);
  return { ...row, supported: true };
}

/** Stops offering a locale for new content; content already in it keeps it. The default cannot be disabled. */
export async function disableLocale(db: Db, locale: string | number): Promise<LocaleRow> {
  const row = await byCodeOrId(db, locale);
  if (row.is_default)
    throw new ValidationError('The default locale cannot be disabled; make another locale the default first', {
      fields: { localeId: 'is the default locale' },
    });
  await setSupported(db, row.id, false);
  return { ...row, supported: false };
}

/** Makes a supported locale the tenant's default. */
export async function setDefaultLocale(db: Db, locale: string | number): Promise<LocaleRow> {
  const row = await byCodeOrId(db, locale);
  if (!row.supported) throw new ValidationError('Provided locale is not supported', { fields: { localeId: 'is not supported' } });
  await makeDefault(db, row.id);
  return { ...row, is_default: true };
}

/** The locales the tenant supports, by id. */
export function listSupportedLocales(db: Db): Promise<LocaleRow[]> {
  return supportedLocales(db);
}
