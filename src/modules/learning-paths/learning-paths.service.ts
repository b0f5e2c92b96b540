import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import { writeBaseValues, type DefinitionRow } from '../custom-fields/custom-fields.data.js';
import { checkBaseValues, LEARNING_PATH_VALUES, type ValueInput } from '../custom-fields/custom-fields.rules.js';
import type { LocaleRow } from '../locales/locales.data.js';
import { translationLocaleIds } from '../translations/translations.data.js';
import { insertLearningPath, lockLearningPath, updateLearningPath, type LearningPathColumns, type LearningPathRow } from './learning-paths.data.js';
import { learningPathColumns, primaryLocaleProblems, type LearningPathTexts } from './learning-paths.rules.js';

/**
 * Learning paths: a name, a description, a primary locale and translations (the rules:
 * learning-paths.rules.ts). A write with problems writes nothing.
 */

export interface LearningPathInput extends LearningPathTexts {
  /** undefined: not given; null: cleared; false: the id named no supported locale. */
  locale?: LocaleRow | null | false;
  customFieldValues?: ValueInput[] | null;
}

/**
 * Creates (`id` null) or changes a learning path: only what `input` gives changes. Problems about
 * the path itself name `learningPathId` (with its id); about the locale, `localeId` (with the
 * locale's id, or null).
 */
export async function writeLearningPath(
  db: Db,
  id: number | null,
  input: LearningPathInput,
  definitions: Iterable<DefinitionRow>,
): Promise<{ learningPath: LearningPathRow | null; problems: Problem[] }> {
  const existing = id === null ? undefined : await lockLearningPath(db, id);
  if (id !== null && !existing) return { learningPath: null, problems: [problem('learningPathId', id, 'Learning Path not found')] };
  const texts = learningPathColumns(input, id === null ? 'create' : 'update');
  const problems = [...texts.problems];
  const columns: LearningPathColumns = { ...texts.columns };
  if (input.locale !== undefined) {
    const translated = existing ? await translationLocaleIds(db, 'learning_path', existing.id) : [];
    const localeProblems = primaryLocaleProblems(input.locale, translated);
    problems.push(...localeProblems);
    if (!localeProblems.length) columns.locale_id = input.locale ? input.locale.id : null;
  }
  const values = checkBaseValues(definitions, LEARNING_PATH_VALUES, input.customFieldValues ?? []);
  problems.push(...values.problems);
  if (problems.length) return { learningPath: null, problems };
  const row = existing ? await updateLearningPath(db, existing.id, columns) : await insertLearningPath(db, columns);
  await writeBaseValues(db, LEARNING_PATH_VALUES, row.id, values.values);
  return { learningPath: row, problems: [] };
}
