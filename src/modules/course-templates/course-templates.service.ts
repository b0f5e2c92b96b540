import type { Db } from '../../platform/db/knex.js';
import type { Problem } from '../../platform/problems.js';
import { sanitizeRichText } from '../../platform/util/rich-text.js';
import { writeBaseValues, type DefinitionRow, checkBaseValues, COURSE_TEMPLATE_VALUES, type ValueInput } from '../custom-fields/index.js';
import type { LocaleRow } from '../locales/index.js';
import { translationLocaleIds, type TranslatableEntity, type TranslatedKind } from '../translations/index.js';
import { contactsByIds } from '../crm/index.js';
import {
  deliveryLocaleIds,
  insertCourseTemplate,
  lockCourseTemplate,
  replaceDeliveryLocales,
  replaceInstructors,
  updateCourseTemplateRow,
  type CourseTemplateColumns,
  type CourseTemplateRow,
} from './course-templates.data.js';
import {
  approvedInstructors,
  COURSE_TEMPLATE_TEXTS,
  courseTemplateProblems,
  templateLocales,
  type CourseTemplateFields,
  type TemplateLocales,
} from './course-templates.rules.js';

/**
 * Course templates as the GraphQL API writes them (the REST API's event templates are the same
 * rows): their texts (rich text sanitised on write), lifecycle, primary locale, delivery locales
 * with a default among them, custom field values and approved instructors (contacts). A rejected
 * write answers problems and writes nothing.
 */

/** The translatable face of a course template (contract: CourseTemplateTranslation). */
export const COURSE_TEMPLATE_TRANSLATIONS: TranslatableEntity = {
  entityName: 'Course Template',
  idLabel: 'courseTemplateId',
  fields: COURSE_TEMPLATE_TEXTS,
  values: COURSE_TEMPLATE_VALUES,
};

/** What a translation write needs of a course template: its rules, and its row read locked. */
export const COURSE_TEMPLATE_TRANSLATED: TranslatedKind = { entity: COURSE_TEMPLATE_TRANSLATIONS, lockOwner: lockCourseTemplate };

export interface CourseTemplateInput extends CourseTemplateFields {
  /** Resolved by the caller from ids: undefined = not given; null = cleared; a row, or `false` when the id named no supported locale. */
  locale?: LocaleRow | null | false;
  deliveryLocales?: (LocaleRow | false)[] | null;
  defaultDeliveryLocale?: LocaleRow | null | false;
  customFieldValues?: ValueInput[] | null;
  /** Contact ids (`false`: an id naming no contact) approved to teach it; replaces the list (null or [] empties it). */
  approvedInstructors?: (number | false)[] | null;
}

export interface WriteContext {
  definitions: Iterable<DefinitionRow>;
}

/** The columns of the texts, codes, lifecycle state and learning mode given (rich text sanitised), once the rules passed. */
function textColumns(input: CourseTemplateInput): CourseTemplateColumns {
  const columns: Record<string, string | null> = {};
  if (input.code !== undefined) columns.code = input.code;
  for (const [name, f] of Object.entries(COURSE_TEMPLATE_TEXTS)) {
    const value = input[name as keyof CourseTemplateFields];
    if (value !== undefined) columns[f.column] = value === null ? null : f.richText ? sanitizeRichText(value) : value;
  }
  if (input.lifecycleState != null) columns.lifecycle_state = input.lifecycleState;
  if (input.shortCode !== undefined) columns.short_code = input.shortCode;
  if (input.eventLearningMode != null) columns.event_learning_mode = input.eventLearningMode;
  if (input.sessionLayout != null) columns.session_layout = input.sessionLayout;
  return columns as CourseTemplateColumns;
}

/** The approved instructors a write gives (undefined: not given), with the problems of the ids that name no contact. */
async function instructorsOf(db: Db, input: CourseTemplateInput): Promise<{ ids: number[] | undefined; problems: Problem[] }> {
  if (input.approvedInstructors === undefined) return { ids: undefined, problems: [] };
  const given = input.approvedInstructors ?? [];
  const wanted = [...new Set(given.filter((id): id is number => id !== false))];
  const found = new Set(wanted.length ? (await contactsByIds(db, wanted)).map((c) => c.id) : []);
  return approvedInstructors(given, found);
}

/** The problems of a write: its fields, its locales (against what the template has), its custom field values, its instructors. */
async function check(db: Db, input: CourseTemplateInput, mode: 'create' | 'update', existing: TemplateLocales, ctx: WriteContext) {
  const locales = templateLocales(input, existing);
  const values = checkBaseValues(ctx.definitions, COURSE_TEMPLATE_VALUES, input.customFieldValues ?? []);
  const instructors = await instructorsOf(db, input);
  const problems: Problem[] = [...courseTemplateProblems(input, mode), ...locales.problems, ...values.problems, ...instructors.problems];
  return { locales, values: values.values, instructors: instructors.ids, problems };
}

export async function createCourseTemplate(
  db: Db,
  input: CourseTemplateInput,
  ctx: WriteContext,
): Promise<{ template: CourseTemplateRow | null; problems: Problem[] }> {
  const { locales, values, instructors, problems } = await check(
    db,
    input,
    'create',
    { locale_id: null, default_delivery_locale_id: null, delivery: [], translated: [] },
    ctx,
  );
  if (problems.length) return { template: null, problems };
  const row = await insertCourseTemplate(db, { ...textColumns(input), ...locales.columns });
  if (locales.delivery !== undefined) await replaceDeliveryLocales(db, row.id, locales.delivery);
  if (instructors !== undefined) await replaceInstructors(db, row.id, instructors);
  await writeBaseValues(db, COURSE_TEMPLATE_VALUES, row.id, values);
  return { template: row, problems: [] };
}

/** Changes the fields given (null clears a field that may be empty); the rest stay. */
export async function updateCourseTemplate(
  db: Db,
  id: number,
  input: CourseTemplateInput,
  ctx: WriteContext,
): Promise<{ template: CourseTemplateRow | null; problems: Problem[] }> {
  const before = await lockCourseTemplate(db, id);
  if (!before) return { template: null, problems: [{ field: 'courseTemplateId', value: null, message: 'Course Template not found' }] };
  const [delivery, translated] = await Promise.all([deliveryLocaleIds(db, id), translationLocaleIds(db, 'course_template', id)]);
  const { locales, values, instructors, problems } = await check(
    db,
    input,
    'update',
    { locale_id: before.locale_id, default_delivery_locale_id: before.default_delivery_locale_id, delivery, translated },
    ctx,
  );
  if (problems.length) return { template: null, problems };
  const row = await updateCourseTemplateRow(db, id, { ...textColumns(input), ...locales.columns });
  if (locales.delivery !== undefined) await replaceDeliveryLocales(db, id, locales.delivery);
  if (instructors !== undefined) await replaceInstructors(db, id, instructors);
  await writeBaseValues(db, COURSE_TEMPLATE_VALUES, id, values);
  return { template: row, problems: [] };
}
