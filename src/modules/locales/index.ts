/**
 * The public entry of the locales module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export { supportedLocaleIds, supportedLocales, type LocaleRow } from './locales.data.js';
