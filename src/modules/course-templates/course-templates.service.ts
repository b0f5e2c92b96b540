import type { Db } from '../../platform/db/knex.js';
import { fieldError, lineErrors, type FieldError } from '../../kit/graphql/errors.js';
import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { sanitizeRichText } from '../../platform/util/rich-text.js';
import { checkBaseValues, COURSE_TEMPLATE_VALUES, writeBaseValues, type DefinitionRow, type ValueInput } from '../custom-fields/custom-fields.service.js';
import type { LocaleRow } from '../locales/locales.service.js';
import { textProblem, type TranslatableEntity } from '../translations/translations.service.js';

/**
 * Course templates as the GraphQL API writes them (the REST API's event templates are the same
 * rows): their texts (rich text sanitised on write), lifecycle, primary locale, delivery locales
 * with a default among them, and custom field values. A rejected write answers FieldErrors and
 * writes nothing.
 */

export interface CourseTemplateRow {
  id: number;
  code: string | null;
  title: string;
  course_text1: string | null;
  course_text2: string | null;
  related_courses_text: string | null;
  lms_summary: string | null;
  lifecycle_state: string;
  locale_id: number | null;
  default_delivery_locale_id: number | null;
  created_on: string;
  updated_on: string;
  [key: string]: unknown;
}

/** The translatable face of a course template (contract: CourseTemplateTranslation). */
export const COURSE_TEMPLATE_TRANSLATIONS: TranslatableEntity = {
  entityName: 'Course Template',
  idLabel: 'courseTemplateId',
  table: 'course_templates',
  translationsTable: 'course_template_translations',
  owner: 'course_template_id',
  fields: {
    title: { column: 'title', richText: false, singleLine: true, maxLength: 255 },
    courseText1: { column: 'course_text1', richText: true, maxLength: 100000 },
    courseText2: { column: 'course_text2', richText: true, maxLength: 100000 },
    relatedCoursesText: { column: 'related_courses_text', richText: true, maxLength: 100000 },
    lmsSummary: { column: 'lms_summary', richText: true, maxLength: 100000 },
  },
  values: COURSE_TEMPLATE_VALUES,
};

export interface CourseTemplateInput {
  code?: string | null;
  title?: string | null;
  courseText1?: string | null;
  courseText2?: string | null;
  relatedCoursesText?: string | null;
  lmsSummary?: string | null;
  lifecycleState?: string | null;
  /** Resolved by the caller from ids: undefined = not given; null = cleared; a row, or `false` when the id named no supported locale. */
  locale?: LocaleRow | null | false;
  deliveryLocales?: (LocaleRow | false)[] | null;
  defaultDeliveryLocale?: LocaleRow | null | false;
  customFieldValues?: ValueInput[] | null;
}

export interface WriteContext {
  definitions: Iterable<DefinitionRow>;
  /** The ids as the caller sent them, for FieldError values. */
  raw: { localeId?: unknown; deliveryLocaleIds?: unknown[] | null; defaultDeliveryLocaleId?: unknown };
}

const utcNow = (db: Db) => db.raw(`(now() at time zone 'utc')`);

function textColumns(input: CourseTemplateInput, mode: 'create' | 'update', errors: FieldError[]): Record<string, string | null> {
  const columns: Record<string, string | null> = {};
  if (input.code !== undefined) {
    const codeErrors = lineErrors('code', input.code, 64);
    if (codeErrors.length) errors.push(...codeErrors);
    else columns.code = input.code;
  }
  for (const [name, f] of Object.entries(COURSE_TEMPLATE_TRANSLATIONS.fields)) {
    const value = input[name as keyof CourseTemplateInput] as string | null | undefined;
    if (value === undefined) continue;
    if (name === 'title' && (value === null || value.trim() === '')) {
      errors.push(fieldError('title', value, 'title must not be empty'));
      continue;
    }
    const problem = value === null ? null : textProblem(f, value);
    if (problem) errors.push(fieldError(name, value, `${name} ${problem}`));
    else columns[f.column] = value === null ? null : f.richText ? sanitizeRichText(value) : value;
  }
  if (mode === 'create' && columns.title === undefined && !errors.some((e) => e.label === 'title')) errors.push(fieldError('title', null, 'title is required'));
  if (input.lifecycleState != null) {
    if (!(LIFECYCLE_STATES as readonly string[]).includes(input.lifecycleState)) errors.push(fieldError('lifecycleState', input.lifecycleState, `lifecycleState must be one of ${LIFECYCLE_STATES.join(', ')}`));
    else columns.lifecycle_state = input.lifecycleState;
  }
  return columns;
}

/**
 * Locale fields after the write: the primary locale, the delivery locales, and the default
 * delivery locale, which must be one of them (contract rule 1). When the delivery locales are
 * emptied and no default is given, the default goes too.
 */
function localeColumns(
  input: CourseTemplateInput,
  existing: { locale_id: number | null; default_delivery_locale_id: number | null; delivery: number[]; translated: number[] },
  ctx: WriteContext,
  errors: FieldError[],
): { columns: Record<string, number | null>; delivery: number[] | undefined } {
  const columns: Record<string, number | null> = {};
  if (input.locale !== undefined) {
    if (input.locale === false) errors.push(fieldError('localeId', ctx.raw.localeId, 'Provided locale is not supported'));
    else if (input.locale && existing.translated.includes(input.locale.id)) {
      errors.push(fieldError('localeId', ctx.raw.localeId, 'The Course Template has a translation in this locale; delete it before making this the primary language'));
    } else if (input.locale === null && existing.translated.length) {
      errors.push(fieldError('localeId', null, 'The Course Template has translations; delete them before removing its primary language'));
    } else columns.locale_id = input.locale ? input.locale.id : null;
  }
  let delivery: number[] | undefined;
  if (input.deliveryLocales !== undefined) {
    delivery = [];
    (input.deliveryLocales ?? []).forEach((l, i) => {
      if (l === false) errors.push(fieldError(`deliveryLocaleIds[${i}]`, ctx.raw.deliveryLocaleIds?.[i], 'Provided locale is not supported'));
      else if (!delivery!.includes(l.id)) delivery!.push(l.id);
    });
  }
  const finalDelivery = delivery ?? existing.delivery;
  let finalDefault = existing.default_delivery_locale_id;
  if (input.defaultDeliveryLocale !== undefined) {
    if (input.defaultDeliveryLocale === false) {
      errors.push(fieldError('defaultDeliveryLocaleId', ctx.raw.defaultDeliveryLocaleId, 'Provided locale is not supported'));
      return { columns, delivery };
    }
    finalDefault = input.defaultDeliveryLocale ? input.defaultDeliveryLocale.id : null;
  } else if (delivery !== undefined && finalDefault !== null && !finalDelivery.includes(finalDefault) && finalDelivery.length === 0) {
    finalDefault = null;
  }
  if (finalDefault !== null && !finalDelivery.includes(finalDefault)) {
    errors.push(fieldError('defaultDeliveryLocaleId', ctx.raw.defaultDeliveryLocaleId ?? null, 'Default delivery locale must be one of the delivery locales'));
  }
  if (finalDefault !== existing.default_delivery_locale_id) columns.default_delivery_locale_id = finalDefault;
  return { columns, delivery };
}

async function writeDelivery(db: Db, templateId: number, delivery: number[] | undefined): Promise<void> {
  if (delivery === undefined) return;
  await db('course_template_delivery_locales').where({ course_template_id: templateId }).delete();
  if (delivery.length) await db('course_template_delivery_locales').insert(delivery.map((locale_id) => ({ course_template_id: templateId, locale_id })));
}

export async function createCourseTemplate(db: Db, input: CourseTemplateInput, ctx: WriteContext): Promise<{ template: CourseTemplateRow | null; errors: FieldError[] }> {
  const errors: FieldError[] = [];
  const text = textColumns(input, 'create', errors);
  const locales = localeColumns(input, { locale_id: null, default_delivery_locale_id: null, delivery: [], translated: [] }, ctx, errors);
  const values = checkBaseValues(ctx.definitions, COURSE_TEMPLATE_VALUES, input.customFieldValues ?? []);
  errors.push(...values.errors);
  if (errors.length) return { template: null, errors };
  const [row] = (await db('course_templates').insert({ ...text, ...locales.columns }).returning('*')) as CourseTemplateRow[];
  await writeDelivery(db, row!.id, locales.delivery);
  await writeBaseValues(db, COURSE_TEMPLATE_VALUES, row!.id, values.values);
  return { template: row!, errors: [] };
}

/** Changes the fields given (null clears a field that may be empty); the rest stay. */
export async function updateCourseTemplate(db: Db, id: number, input: CourseTemplateInput, ctx: WriteContext): Promise<{ template: CourseTemplateRow | null; errors: FieldError[] }> {
  const existing = await db('course_templates').where({ id }).forUpdate().first<CourseTemplateRow | undefined>();
  if (!existing) return { template: null, errors: [fieldError('courseTemplateId', null, 'Course Template not found')] };
  const [delivery, translated] = await Promise.all([
    db('course_template_delivery_locales').where({ course_template_id: id }).pluck('locale_id'),
    db('course_template_translations').where({ course_template_id: id }).pluck('locale_id'),
  ]);
  const errors: FieldError[] = [];
  const text = textColumns(input, 'update', errors);
  const locales = localeColumns(input, { locale_id: existing.locale_id, default_delivery_locale_id: existing.default_delivery_locale_id, delivery, translated }, ctx, errors);
  const values = checkBaseValues(ctx.definitions, COURSE_TEMPLATE_VALUES, input.customFieldValues ?? []);
  errors.push(...values.errors);
  if (errors.length) return { template: null, errors };
  const [row] = (await db('course_templates').where({ id }).update({ ...text, ...locales.columns, updated_on: utcNow(db) }).returning('*')) as CourseTemplateRow[];
  await writeDelivery(db, id, locales.delivery);
  await writeBaseValues(db, COURSE_TEMPLATE_VALUES, id, values.values);
  return { template: row!, errors: [] };
}
