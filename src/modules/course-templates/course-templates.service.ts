import type { Db } from '../../platform/db/knex.js';
import type { Problem } from '../../platform/problems.js';
import { sanitizeRichText } from '../../platform/util/rich-text.js';
import { writeBaseValues, type DefinitionRow } from '../custom-fields/custom-fields.data.js';
import { checkBaseValues, COURSE_TEMPLATE_VALUES, type ValueInput } from '../custom-fields/custom-fields.rules.js';
import type { LocaleRow } from '../locales/locales.service.js';
import { translationLocaleIds } from '../translations/translations.data.js';
import type { TranslatableEntity } from '../translations/translations.rules.js';
import {
  deliveryLocaleIds,
  insertCourseTemplate,
  lockCourseTemplate,
  replaceDeliveryLocales,
  updateCourseTemplateRow,
  type CourseTemplateColumns,
  type CourseTemplateRow,
} from './course-templates.data.js';
import { COURSE_TEMPLATE_TEXTS, courseTemplateProblems, templateLocales, type CourseTemplateFields, type TemplateLocales } from './course-templates.rules.js';


/**
 * Course templates as the GraphQL API writes them (the REST API's event templates are the same
 * rows): their texts (rich text sanitised on write), lifecycle, primary locale, delivery locales
 * with a default among them, and custom field values. A rejected write answers problems and
 * writes nothing.
 */

/** The translatable face of a course template (contract: CourseTemplateTranslation). */
export const COURSE_TEMPLATE_TRANSLATIONS: TranslatableEntity = {
  entityName: 'Course Template',
  idLabel: 'courseTemplateId',
  fields: COURSE_TEMPLATE_TEXTS,
  values: COURSE_TEMPLATE_VALUES,
};

export interface CourseTemplateInput extends CourseTemplateFields {
  /** Resolved by the caller from ids: undefined = not given; null = cleared; a row, or `false` when the id named no supported locale. */
  locale?: LocaleRow | null | false;
  deliveryLocales?: (LocaleRow | false)[] | null;
  defaultDeliveryLocale?: LocaleRow | null | false;
  customFieldValues?: ValueInput[] | null;
}

export interface WriteContext {
  definitions: Iterable<DefinitionRow>;
}

/** The columns of the texts and lifecycle state given (rich text sanitised), once the rules passed. */
function textColumns(input: CourseTemplateInput): CourseTemplateColumns {
  const columns: Record<string, string | null> = {};
  if (input.code !== undefined) columns.code = input.code;
  for (const [name, f] of Object.entries(COURSE_TEMPLATE_TEXTS)) {
    const value = input[name as keyof CourseTemplateFields];
    if (value !== undefined) columns[f.column] = value === null ? null : f.richText ? sanitizeRichText(value) : value;
  }
  if (input.lifecycleState != null) columns.lifecycle_state = input.lifecycleState;
  return columns as CourseTemplateColumns;
}

/** The problems of a write: its fields, its locales (against what the template has), its custom field values. */
function check(input: CourseTemplateInput, mode: 'create' | 'update', existing: TemplateLocales, ctx: WriteContext) {
  const locales = templateLocales(input, existing);
  const values = checkBaseValues(ctx.definitions, COURSE_TEMPLATE_VALUES, input.customFieldValues ?? []);
  const problems: Problem[] = [...courseTemplateProblems(input, mode), ...locales.problems, ...values.problems];
  return { locales, values: values.values, problems };
}

export async function createCourseTemplate(db: Db, input: CourseTemplateInput, ctx: WriteContext): Promise<{ template: CourseTemplateRow | null; problems: Problem[] }> {
  const { locales, values, problems } = check(input, 'create', { locale_id: null, default_delivery_locale_id: null, delivery: [], translated: [] }, ctx);
  if (problems.length) return { template: null, problems };
  const row = await insertCourseTemplate(db, { ...textColumns(input), ...locales.columns });
  if (locales.delivery !== undefined) await replaceDeliveryLocales(db, row.id, locales.delivery);
  await writeBaseValues(db, COURSE_TEMPLATE_VALUES, row.id, values);
  return { template: row, problems: [] };
}

/** Changes the fields given (null clears a field that may be empty); the rest stay. */
export async function updateCourseTemplate(db: Db, id: number, input: CourseTemplateInput, ctx: WriteContext): Promise<{ template: CourseTemplateRow | null; problems: Problem[] }> {
  const before = await lockCourseTemplate(db, id);
  if (!before) return { template: null, problems: [{ field: 'courseTemplateId', value: null, message: 'Course Template not found' }] };
  const [delivery, translated] = await Promise.all([deliveryLocaleIds(db, id), translationLocaleIds(db, 'course_template', id)]);
  const { locales, values, problems } = check(input, 'update', { locale_id: before.locale_id, default_delivery_locale_id: before.default_delivery_locale_id, delivery, translated }, ctx);
  if (problems.length) return { template: null, problems };
  const row = await updateCourseTemplateRow(db, id, { ...textColumns(input), ...locales.columns });
  if (locales.delivery !== undefined) await replaceDeliveryLocales(db, id, locales.delivery);
  await writeBaseValues(db, COURSE_TEMPLATE_VALUES, id, values);
  return { template: row, problems: [] };
}
