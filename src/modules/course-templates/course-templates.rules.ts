import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { lineProblems, oneOfProblems, problem, type Problem } from '../../platform/problems.js';
import { textProblem, type TranslatableField } from '../translations/index.js';

/**
 * What a course template (REST "event template", GraphQL CourseTemplate) may hold: one rule for
 * every face. The REST resource checks its rows with it and the GraphQL mutations their input,
 * so both refuse the same template for the same reason.
 */

/** The longest code of a course template or an event (and a template's short code). */
export const CODE_MAX_LENGTH = 64;

/** How a template's events are delivered (Core `eventLearningMode`): the values of an event's delivery method. */
export const EVENT_LEARNING_MODES = ['classroom', 'lms', 'blended'] as const;

/** How a template's events get their sessions: one a day of the event's period (the default), or one over the whole period. */
export const SESSION_LAYOUTS = ['per_day', 'single'] as const;

/** The translatable texts of a course template, by their name in the domain (the GraphQL input). */
export const COURSE_TEMPLATE_TEXTS = {
  title: { column: 'title', richText: false, singleLine: true, maxLength: 255 },
  courseText1: { column: 'course_text1', richText: true, maxLength: 100000 },
  courseText2: { column: 'course_text2', richText: true, maxLength: 100000 },
  relatedCoursesText: { column: 'related_courses_text', richText: true, maxLength: 100000 },
  lmsSummary: { column: 'lms_summary', richText: true, maxLength: 100000 },
  /** The short text a website shows in a list of courses (WebLink `teaserDescription`). */
  teaserDescription: { column: 'teaser_description', richText: true, maxLength: 10000 },
} as const satisfies Record<string, TranslatableField>;

export type CourseTemplateTextName = keyof typeof COURSE_TEMPLATE_TEXTS;

/** The texts and settings of a course template as written: undefined = not given, null = cleared. */
export interface CourseTemplateFields {
  code?: string | null;
  title?: string | null;
  courseText1?: string | null;
  courseText2?: string | null;
  relatedCoursesText?: string | null;
  lmsSummary?: string | null;
  teaserDescription?: string | null;
  lifecycleState?: string | null;
  shortCode?: string | null;
  /** One of EVENT_LEARNING_MODES; it cannot be cleared (null leaves it). */
  eventLearningMode?: string | null;
  /** One of SESSION_LAYOUTS; it cannot be cleared (null leaves it). */
  sessionLayout?: string | null;
}

/**
 * The problems of a course template's fields as written: a code of one line of at most 64
 * characters; a title that is one line and not blank (and, on create, given); texts within their
 * lengths; a lifecycle state among LIFECYCLE_STATES; a short code like a code; a learning mode
 * among EVENT_LEARNING_MODES; a session layout among SESSION_LAYOUTS.
 */
export function courseTemplateProblems(input: CourseTemplateFields, mode: 'create' | 'update'): Problem[] {
  const problems: Problem[] = [...lineProblems('code', input.code, CODE_MAX_LENGTH)];
  for (const [name, f] of Object.entries(COURSE_TEMPLATE_TEXTS)) {
    const value = input[name as CourseTemplateTextName];
    if (value === undefined) continue;
    if (name === 'title' && (value === null || value.trim() === '')) {
      problems.push(problem('title', value, 'title must not be empty'));
      continue;
    }
    const wrong = value === null ? null : textProblem(f, value);
    if (wrong) problems.push(problem(name, value, `${name} ${wrong}`));
  }
  if (mode === 'create' && input.title === undefined) problems.push(problem('title', null, 'title is required'));
  problems.push(...oneOfProblems('lifecycleState', input.lifecycleState, LIFECYCLE_STATES));
  problems.push(...lineProblems('shortCode', input.shortCode, CODE_MAX_LENGTH));
  problems.push(...oneOfProblems('eventLearningMode', input.eventLearningMode, EVENT_LEARNING_MODES));
  problems.push(...oneOfProblems('sessionLayout', input.sessionLayout, SESSION_LAYOUTS));
  return problems;
}

/** A course template's locales as they are before a write. */
export interface TemplateLocales {
  locale_id: number | null;
  default_delivery_locale_id: number | null;
  /** Its delivery locales. */
  delivery: number[];
  /** The locales it has translations in. */
  translated: number[];
}

/**
 * The locales a write gives a course template, resolved by the caller from ids: undefined = not
 * given; null = cleared; `{ id }`, or `false` when the id named no supported locale.
 */
export interface TemplateLocaleInput {
  locale?: { id: number } | null | false;
  deliveryLocales?: ({ id: number } | false)[] | null;
  defaultDeliveryLocale?: { id: number } | null | false;
}

/**
 * Locale fields after the write: the primary locale, the delivery locales, and the default
 * delivery locale, which must be one of them (contract rule 1). When the delivery locales are
 * emptied and no default is given, the default goes too. Problems carry the locale's id, or null
 * when the input named none (a face shows the id as its caller wrote it).
 */
export function templateLocales(
  input: TemplateLocaleInput,
  existing: TemplateLocales,
): {
  columns: { locale_id?: number | null; default_delivery_locale_id?: number | null };
  delivery: number[] | undefined;
  problems: Problem[];
} {
  const problems: Problem[] = [];
  const columns: { locale_id?: number | null; default_delivery_locale_id?: number | null } = {};
  if (input.locale !== undefined) {
    if (input.locale === false) problems.push(problem('localeId', null, 'Provided locale is not supported'));
    else if (input.locale && existing.translated.includes(input.locale.id)) {
      problems.push(
        problem(
          'localeId',
          input.locale.id,
          'The Course Template has a translation in this locale; delete it before making this the primary language',
        ),
      );
    } else if (input.locale === null && existing.translated.length) {
      problems.push(problem('localeId', null, 'The Course Template has translations; delete them before removing its primary language'));
    } else columns.locale_id = input.locale ? input.locale.id : null;
  }
  let delivery: number[] | undefined;
  if (input.deliveryLocales !== undefined) {
    delivery = [];
    (input.deliveryLocales ?? []).forEach((l, i) => {
      if (l === false) problems.push(problem(`deliveryLocaleIds[${i}]`, null, 'Provided locale is not supported'));
      else if (!delivery!.includes(l.id)) delivery!.push(l.id);
    });
  }
  const finalDelivery = delivery ?? existing.delivery;
  let finalDefault = existing.default_delivery_locale_id;
  if (input.defaultDeliveryLocale !== undefined) {
    if (input.defaultDeliveryLocale === false) {
      problems.push(problem('defaultDeliveryLocaleId', null, 'Provided locale is not supported'));
      return { columns, delivery, problems };
    }
    finalDefault = input.defaultDeliveryLocale ? input.defaultDeliveryLocale.id : null;
  } else if (delivery !== undefined && finalDefault !== null && !finalDelivery.includes(finalDefault) && finalDelivery.length === 0) {
    finalDefault = null;
  }
  if (finalDefault !== null && !finalDelivery.includes(finalDefault)) {
    problems.push(problem('defaultDeliveryLocaleId', finalDefault, 'Default delivery locale must be one of the delivery locales'));
  }
  if (finalDefault !== existing.default_delivery_locale_id) columns.default_delivery_locale_id = finalDefault;
  return { columns, delivery, problems };
}

/** The most contacts a course template may list as approved instructors. */
export const MAX_APPROVED_INSTRUCTORS = 500;

/**
 * The approved instructors a write gives a template: contact ids resolved by the caller (`false`
 * when the id named no contact), `found` the ids of those that exist. Duplicates count once.
 * Problems are labelled `approvedInstructors[<index>]`.
 */
export function approvedInstructors(
  given: readonly (number | false)[],
  found: ReadonlySet<number>,
): { ids: number[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const ids: number[] = [];
  given.forEach((id, i) => {
    if (id === false || !found.has(id)) problems.push(problem(`approvedInstructors[${i}]`, id === false ? null : id, 'Contact not found'));
    else if (!ids.includes(id)) ids.push(id);
  });
  if (ids.length > MAX_APPROVED_INSTRUCTORS)
    problems.push(
      problem('approvedInstructors', null, `approvedInstructors: at most ${MAX_APPROVED_INSTRUCTORS} contacts may be approved`),
    );
  return { ids, problems };
}
