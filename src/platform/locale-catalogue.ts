/**
 * The catalogue of locales Lectern knows. Ids are fixed forever (they are the `legacyId` of
 * GraphQL Locale ids, so clients may store them); a new locale gets the next id and a migration
 * adds it to every tenant. Each tenant supports some of them and has one default (English).
 */
export interface CatalogueLocale {
  id: number;
  code: string;
  name: string;
  fullName: string;
}

export const LOCALE_CATALOGUE: readonly CatalogueLocale[] = [
  { id: 1, code: 'en', name: 'English', fullName: 'English' },
  { id: 2, code: 'en-US', name: 'English', fullName: 'English (United States)' },
  { id: 3, code: 'fr', name: 'French', fullName: 'French' },
  { id: 4, code: 'fr-CA', name: 'French', fullName: 'French (Canada)' },
  { id: 5, code: 'de', name: 'German', fullName: 'German' },
  { id: 6, code: 'es', name: 'Spanish', fullName: 'Spanish' },
  { id: 7, code: 'it', name: 'Italian', fullName: 'Italian' },
  { id: 8, code: 'nl', name: 'Dutch', fullName: 'Dutch' },
  { id: 9, code: 'pt', name: 'Portuguese', fullName: 'Portuguese' },
  { id: 10, code: 'pt-BR', name: 'Portuguese', fullName: 'Portuguese (Brazil)' },
  { id: 11, code: 'sv', name: 'Swedish', fullName: 'Swedish' },
  { id: 12, code: 'da', name: 'Danish', fullName: 'Danish' },
  { id: 13, code: 'nb', name: 'Norwegian', fullName: 'Norwegian (Bokmål)' },
  { id: 14, code: 'fi', name: 'Finnish', fullName: 'Finnish' },
  { id: 15, code: 'pl', name: 'Polish', fullName: 'Polish' },
  { id: 16, code: 'cs', name: 'Czech', fullName: 'Czech' },
  { id: 17, code: 'hu', name: 'Hungarian', fullName: 'Hungarian' },
  { id: 18, code: 'ro', name: 'Romanian', fullName: 'Romanian' },
  { id: 19, code: 'el', name: 'Greek', fullName: 'Greek' },
  { id: 20, code: 'tr', name: 'Turkish', fullName: 'Turkish' },
  { id: 21, code: 'ar', name: 'Arabic', fullName: 'Arabic' },
  { id: 22, code: 'he', name: 'Hebrew', fullName: 'Hebrew' },
  { id: 23, code: 'zh-Hans', name: 'Chinese', fullName: 'Chinese (Simplified)' },
  { id: 24, code: 'zh-Hant', name: 'Chinese', fullName: 'Chinese (Traditional)' },
  { id: 25, code: 'ja', name: 'Japanese', fullName: 'Japanese' },
  { id: 26, code: 'ko', name: 'Korean', fullName: 'Korean' },
  { id: 27, code: 'hi', name: 'Hindi', fullName: 'Hindi' },
  { id: 28, code: 'ru', name: 'Russian', fullName: 'Russian' },
  { id: 29, code: 'uk', name: 'Ukrainian', fullName: 'Ukrainian' },
  { id: 30, code: 'cy', name: 'Welsh', fullName: 'Welsh' },
  { id: 31, code: 'ga', name: 'Irish', fullName: 'Irish' },
];

export const DEFAULT_LOCALE_CODE = 'en';
