import type { Db } from '../../platform/db/knex.js';
import { fieldError, type FieldError } from '../../kit/graphql/errors.js';
import { checkBaseValues, LEARNING_PATH_VALUES, writeBaseValues, type DefinitionRow, type ValueInput } from '../custom-fields/custom-fields.service.js';
import type { LocaleRow } from '../locales/locales.service.js';
import { textProblem, type TranslatableEntity } from '../translations/translations.service.js';

/**
 * Learning paths: a name, a description, a primary locale and translations. Neither field is
 * rich text, so translations (and the path itself) are stored verbatim (contract rule 4).
 */
export interface LearningPathRow {
  id: number;
  name: string;
  description: string | null;
  locale_id: number | null;
  created_on: string;
  updated_on: string;
  [key: string]: unknown;
}

export const LEARNING_PATH_TRANSLATIONS: TranslatableEntity = {
  entityName: 'Learning Path',
  idLabel: 'learningPathId',
  table: 'learning_paths',
  translationsTable: 'learning_path_translations',
  owner: 'learning_path_id',
  fields: {
    name: { column: 'name', richText: false, singleLine: true, maxLength: 255 },
    description: { column: 'description', richText: false, maxLength: 100000 },
  },
  values: LEARNING_PATH_VALUES,
};

export interface LearningPathInput {
  name?: string | null;
  description?: string | null;
  /** undefined: not given; null: cleared; false: the id named no supported locale. */
  locale?: LocaleRow | null | false;
  customFieldValues?: ValueInput[] | null;
}

export async function writeLearningPath(
  db: Db,
  id: number | null,
  input: LearningPathInput,
  ctx: { definitions: Iterable<DefinitionRow>; rawLocaleId?: unknown },
): Promise<{ learningPath: LearningPathRow | null; errors: FieldError[] }> {
  const existing = id === null ? undefined : await db('learning_paths').where({ id }).forUpdate().first<LearningPathRow | undefined>();
  if (id !== null && !existing) return { learningPath: null, errors: [fieldError('learningPathId', null, 'Learning Path not found')] };
  const errors: FieldError[] = [];
  const columns: Record<string, string | number | null> = {};
  for (const [name, f] of Object.entries(LEARNING_PATH_TRANSLATIONS.fields)) {
    const value = input[name as 'name' | 'description'];
    if (value === undefined) continue;
    if (name === 'name' && (value === null || value.trim() === '')) {
      errors.push(fieldError('name', value, 'name must not be empty'));
      continue;
    }
    const problem = value === null ? null : textProblem(f, value);
    if (problem) errors.push(fieldError(name, value, `${name} ${problem}`));
    else columns[f.column] = value;
  }
  if (id === null && columns.name === undefined && !errors.some((e) => e.label === 'name')) errors.push(fieldError('name', null, 'name is required'));
  if (input.locale !== undefined) {
    const translated: number[] = existing ? await db('learning_path_translations').where({ learning_path_id: existing.id }).pluck('locale_id') : [];
    if (input.locale === false) errors.push(fieldError('localeId', ctx.rawLocaleId, 'Provided locale is not supported'));
    else if (input.locale && translated.includes(input.locale.id)) errors.push(fieldError('localeId', ctx.rawLocaleId, 'The Learning Path has a translation in this locale; delete it before making this the primary language'));
    else if (input.locale === null && translated.length) errors.push(fieldError('localeId', null, 'The Learning Path has translations; delete them before removing its primary language'));
    else columns.locale_id = input.locale ? input.locale.id : null;
  }
  const values = checkBaseValues(ctx.definitions, LEARNING_PATH_VALUES, input.customFieldValues ?? []);
  errors.push(...values.errors);
  if (errors.length) return { learningPath: null, errors };
  const [row] = (existing
    ? await db('learning_paths').where({ id: existing.id }).update({ ...columns, updated_on: db.raw(`(now() at time zone 'utc')`) }).returning('*')
    : await db('learning_paths').insert(columns).returning('*')) as LearningPathRow[];
  await writeBaseValues(db, LEARNING_PATH_VALUES, row!.id, values.values);
  return { learningPath: row!, errors: [] };
}
