import type { TranslatedKind } from '../translations/index.js';
import { lockCategory } from './categories.data.js';
import { CATEGORY_TRANSLATIONS } from './categories.rules.js';

/**
 * Categories as Core GraphQL writes them: only their translations, by the translations module's
 * service (REST writes the categories themselves through its resource engine).
 */

/** What a translation write needs of a category: its rules, and its row read locked. */
export const CATEGORY_TRANSLATED: TranslatedKind = { entity: CATEGORY_TRANSLATIONS, lockOwner: lockCategory };
