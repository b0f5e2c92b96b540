import { toGlobalId } from '../kit/graphql/ids.js';
import { disableLocale, enableLocale, listSupportedLocales, setDefaultLocale, type LocaleRow } from '../modules/locales/locales.service.js';
import { inTenant, str, tenantFlag, type Commands } from './command.js';

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
export const localeCommands: Commands = {
  'locales:enable': {
    summary: 'Let a tenant use a locale for content (primary, delivery, translations)',
    flags: { ...tenantFlag, code: { required: true, description: 'e.g. fr, pt-BR' } },
    async run(rt, flags) {
      const l = await inTenant(rt, flags, (db) => enableLocale(db, str(flags, 'code')));
      return { output: localeOutput(l) };
    },
  },
  'locales:disable': {
    summary: 'Stop offering a locale for new content (content in it keeps it; not the default)',
    flags: { ...tenantFlag, code: { required: true, description: 'e.g. fr' } },
    run: async (rt, flags) => ({ output: localeOutput(await inTenant(rt, flags, (db) => disableLocale(db, str(flags, 'code')))) }),
  },
  'locales:default': {
    summary: "Make a supported locale the tenant's default",
    flags: { ...tenantFlag, code: { required: true, description: 'e.g. fr' } },
    run: async (rt, flags) => ({ output: localeOutput(await inTenant(rt, flags, (db) => setDefaultLocale(db, str(flags, 'code')))) }),
  },
  'locales:list': {
    summary: "A tenant's supported locales",
    flags: tenantFlag,
    run: async (rt, flags) => ({ output: (await inTenant(rt, flags, (db) => listSupportedLocales(db))).map(localeOutput) }),
  },
};
