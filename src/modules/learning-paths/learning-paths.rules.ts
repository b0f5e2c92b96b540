import { problem, type Problem } from '../../platform/problems.js';
import { LEARNING_PATH_VALUES } from '../custom-fields/custom-fields.rules.js';
import { textProblem, type TranslatableEntity } from '../translations/translations.rules.js';

/**
 * The rules of learning paths, pure. A learning path has a name, a description, a primary locale
 * and translations. Neither field is rich text, so translations (and the path itself) are stored
 * verbatim (contract rule 4).
 */

export const LEARNING_PATH_TRANSLATIONS = {
  entityName: 'Learning Path',
  idLabel: 'learningPathId',
  fields: {
    name: { column: 'name', richText: false, singleLine: true, maxLength: 255 },
    description: { column: 'description', richText: false, maxLength: 100000 },
  },
  values: LEARNING_PATH_VALUES,
} as const satisfies TranslatableEntity;

/** The name and description a write gives (absent: unchanged; on create, the name is required). */
export interface LearningPathTexts {
  name?: string | null;
  description?: string | null;
}

/** The columns of a learning path from the texts a write gives, with the problems of those that are not fine. */
export function learningPathColumns(input: LearningPathTexts, mode: 'create' | 'update'): { problems: Problem[]; columns: { name?: string; description?: string | null } } {
  const problems: Problem[] = [];
  const columns: { name?: string; description?: string | null } = {};
  for (const [name, f] of Object.entries(LEARNING_PATH_TRANSLATIONS.fields)) {
    const value = input[name as keyof LearningPathTexts];
    if (value === undefined) continue;
    if (name === 'name' && (value === null || value.trim() === '')) {
      problems.push(problem('name', value, 'name must not be empty'));
      continue;
    }
    const why = value === null ? null : textProblem(f, value);
    if (why) problems.push(problem(name, value, `${name} ${why}`));
    else (columns as Record<string, string | null>)[f.column] = value;
  }
  if (mode === 'create' && columns.name === undefined && !problems.some((p) => p.field === 'name')) problems.push(problem('name', null, 'name is required'));
  return { problems, columns };
}

/**
 * A change of primary locale (`false`: the id named no supported locale; null: removed), given the
 * locales the path is translated into: a translation's locale cannot become the primary one, and a
 * path with translations keeps a primary locale. The problems carry the locale's id (null: none).
 */
export function primaryLocaleProblems(locale: { id: number } | null | false, translated: readonly number[]): Problem[] {
  if (locale === false) return [problem('localeId', null, 'Provided locale is not supported')];
  if (locale && translated.includes(locale.id)) return [problem('localeId', locale.id, 'The Learning Path has a translation in this locale; delete it before making this the primary language')];
  if (locale === null && translated.length) return [problem('localeId', null, 'The Learning Path has translations; delete them before removing its primary language')];
  return [];
}
