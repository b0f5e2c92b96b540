/**
 * The public entry of the translations module for other modules: its row types, read functions, services
 * and rules. `npm run lint` refuses an import of any other file of a module from outside it.
 */
export {
  CategoryTranslation,
  translatedTitles,
  translationLocaleIds,
  translationsOfOwners,
  translationTableOf,
} from './translations.data.js';
export { textProblem, type TranslatableEntity, type TranslatableField, type TranslatableKind } from './translations.rules.js';
export type { TranslatedKind } from './translations.service.js';
