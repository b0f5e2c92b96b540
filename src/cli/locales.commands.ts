import { toGlobalId } from '../kit/graphql/ids.js';
import { disableLocale, enableLocale, listSupportedLocales, setDefaultLocale, type LocaleRow } from '../modules/locales/locales.service.js';
import { inTenant, str } from './command.js';
import type { Runners } from './manifest.js';

const localeOutput = (l: LocaleRow) => ({
  id: toGlobalId('Locale', l.id),
  legacyId: l.id,
  code: l.code,
  name: l.name,
  fullName: l.full_name,
  supported: l.supported,
  default: l.is_default,
});

/** The locales a tenant offers for content. */
export const runners: Runners<'locales'> = {
  'locales:enable': async (rt, flags) => ({
    output: localeOutput(await inTenant(rt, flags, (db) => enableLocale(db, str(flags, 'code')))),
  }),
  'locales:disable': async (rt, flags) => ({
    output: localeOutput(await inTenant(rt, flags, (db) => disableLocale(db, str(flags, 'code')))),
  }),
  'locales:default': async (rt, flags) => ({
    output: localeOutput(await inTenant(rt, flags, (db) => setDefaultLocale(db, str(flags, 'code')))),
  }),
  'locales:list': async (rt, flags) => ({ output: (await inTenant(rt, flags, (db) => listSupportedLocales(db))).map(localeOutput) }),
};
