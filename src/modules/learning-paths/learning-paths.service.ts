import type { Db } from '../../platform/db/knex.js';
import { problem, type Problem } from '../../platform/problems.js';
import { writeBaseValues, type DefinitionRow, checkBaseValues, LEARNING_PATH_VALUES, type ValueInput } from '../custom-fields/index.js';
import { courseTemplatesByIds } from '../course-templates/index.js';
import { eventsByIds } from '../events/index.js';
import type { LocaleRow } from '../locales/index.js';
import { translationLocaleIds, type TranslatedKind } from '../translations/index.js';
import {
  insertLearningPath,
  lockLearningPath,
  replaceObjectives,
  updateLearningPath,
  type LearningPathColumns,
  type LearningPathRow,
} from './learning-paths.data.js';
import {
  learningPathColumns,
  learningPathSettings,
  LEARNING_PATH_TRANSLATIONS,
  objectiveTargets,
  primaryLocaleProblems,
  type LearningPathSettings,
  type LearningPathTexts,
  type ObjectiveInput,
  type ObjectiveTarget,
} from './learning-paths.rules.js';

/** What a translation write needs of a learning path: its rules, and its row read locked. */
export const LEARNING_PATH_TRANSLATED: TranslatedKind = { entity: LEARNING_PATH_TRANSLATIONS, lockOwner: lockLearningPath };

/**
 * Learning paths: a name, a description, a primary locale and translations, a code, a lifecycle
 * state, a bundle flag and objectives (the rules: learning-paths.rules.ts). A write with problems
 * writes nothing.
 */

export interface LearningPathInput extends LearningPathTexts, LearningPathSettings {
  /** undefined: not given; null: cleared; false: the id named no supported locale. */
  locale?: LocaleRow | null | false;
  customFieldValues?: ValueInput[] | null;
  /** The whole list of objectives, in order (undefined: unchanged; null or []: none). */
  learningObjectives?: ObjectiveInput[] | null;
}

/** The objectives a write gives, checked against the course templates and events that exist. */
async function checkedObjectives(db: Db, input: readonly ObjectiveInput[]): Promise<{ problems: Problem[]; targets: ObjectiveTarget[] }> {
  const named = (key: keyof ObjectiveInput) => [...new Set(input.map((o) => o[key]).filter((id): id is number => typeof id === 'number'))];
  const [templates, events] = [named('courseTemplateId'), named('eventId')];
  const existing = {
    courseTemplates: new Set(templates.length ? (await courseTemplatesByIds(db, templates)).map((r) => r.id) : []),
    events: new Set(events.length ? (await eventsByIds(db, events)).map((r) => r.id) : []),
  };
  return objectiveTargets(input, existing);
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
  const settings = learningPathSettings(input);
  const problems = [...texts.problems, ...settings.problems];
  const columns: LearningPathColumns = { ...texts.columns, ...settings.columns };
  if (input.locale !== undefined) {
    const translated = existing ? await translationLocaleIds(db, 'learning_path', existing.id) : [];
    const localeProblems = primaryLocaleProblems(input.locale, translated);
    problems.push(...localeProblems);
    if (!localeProblems.length) columns.locale_id = input.locale ? input.locale.id : null;
  }
  const values = checkBaseValues(definitions, LEARNING_PATH_VALUES, input.customFieldValues ?? []);
  problems.push(...values.problems);
  const objectives = input.learningObjectives === undefined ? undefined : await checkedObjectives(db, input.learningObjectives ?? []);
  problems.push(...(objectives?.problems ?? []));
  if (problems.length) return { learningPath: null, problems };
  const row = existing ? await updateLearningPath(db, existing.id, columns) : await insertLearningPath(db, columns);
  await writeBaseValues(db, LEARNING_PATH_VALUES, row.id, values.values);
  if (objectives) await replaceObjectives(db, row.id, objectives.targets);
  return { learningPath: row, problems: [] };
}
