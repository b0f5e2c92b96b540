import { lineProblems, oneOfProblems, problem, type Problem } from '../../platform/problems.js';
import { LEARNING_PATH_VALUES } from '../custom-fields/index.js';
import { textProblem, type TranslatableEntity } from '../translations/index.js';

/**
 * The rules of learning paths, pure. A learning path has a name, a description, a primary locale
 * and translations. Neither field is rich text, so translations (and the path itself) are stored
 * verbatim (contract rule 4). It also has a code, a lifecycle state and a bundle flag, and
 * objectives (course templates and events, in order).
 */

/**
 * The lifecycle states of a learning path (migration 009 holds the table to them): its own list,
 * not the `draft published cancelled` of course templates and events, because the production
 * service's clients list learning paths with `lifecycleState eq "active"`.
 */
export const LEARNING_PATH_STATES = ['draft', 'active', 'retired'] as const;
export type LearningPathState = (typeof LEARNING_PATH_STATES)[number];

/** The longest code of a learning path (as of a course template or an event). */
export const LEARNING_PATH_CODE_MAX_LENGTH = 64;

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
export function learningPathColumns(
  input: LearningPathTexts,
  mode: 'create' | 'update',
): { problems: Problem[]; columns: { name?: string; description?: string | null } } {
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
  if (mode === 'create' && columns.name === undefined && !problems.some((p) => p.field === 'name'))
    problems.push(problem('name', null, 'name is required'));
  return { problems, columns };
}

/**
 * A change of primary locale (`false`: the id named no supported locale; null: removed), given the
 * locales the path is translated into: a translation's locale cannot become the primary one, and a
 * path with translations keeps a primary locale. The problems carry the locale's id (null: none).
 */
export function primaryLocaleProblems(locale: { id: number } | null | false, translated: readonly number[]): Problem[] {
  if (locale === false) return [problem('localeId', null, 'Provided locale is not supported')];
  if (locale && translated.includes(locale.id))
    return [
      problem(
        'localeId',
        locale.id,
        'The Learning Path has a translation in this locale; delete it before making this the primary language',
      ),
    ];
  if (locale === null && translated.length)
    return [problem('localeId', null, 'The Learning Path has translations; delete them before removing its primary language')];
  return [];
}

/** A learning path's settings as a write gives them: undefined = not given, null = cleared. */
export interface LearningPathSettings {
  code?: string | null;
  lifecycleState?: string | null;
  isBundle?: boolean | null;
}

/**
 * The columns of a learning path from the settings a write gives, with the problems of those that
 * are not fine: a code of one line of at most 64 characters, stored as given (null: none); a lifecycle
 * state among LEARNING_PATH_STATES and a bundle flag, neither of which can be cleared.
 */
export function learningPathSettings(input: LearningPathSettings): {
  problems: Problem[];
  columns: { code?: string | null; lifecycle_state?: LearningPathState; is_bundle?: boolean };
} {
  const problems: Problem[] = [...lineProblems('code', input.code, LEARNING_PATH_CODE_MAX_LENGTH)];
  const columns: { code?: string | null; lifecycle_state?: LearningPathState; is_bundle?: boolean } = {};
  if (input.code !== undefined && !problems.length) columns.code = input.code;
  if (input.lifecycleState === null)
    problems.push(problem('lifecycleState', null, `lifecycleState must be one of ${LEARNING_PATH_STATES.join(', ')}`));
  else if (input.lifecycleState !== undefined) {
    const wrong = oneOfProblems('lifecycleState', input.lifecycleState, LEARNING_PATH_STATES);
    problems.push(...wrong);
    if (!wrong.length) columns.lifecycle_state = input.lifecycleState as LearningPathState;
  }
  if (input.isBundle === null) problems.push(problem('isBundle', null, 'isBundle must be true or false'));
  else if (input.isBundle !== undefined) columns.is_bundle = input.isBundle;
  return { problems, columns };
}

/** The most objectives a path has (a page: what `learningObjectives` shows at once). */
export const MAX_OBJECTIVES = 100;

/**
 * One objective as a write gives it, ids resolved by the caller: a course template or an event
 * (exactly one); `false` when the id given names no record of that type.
 */
export interface ObjectiveInput {
  courseTemplateId?: number | false | null;
  eventId?: number | false | null;
}

/** Where an objective leads: the column it sets. */
export type ObjectiveTarget = { course_template_id: number } | { event_id: number };

/**
 * A path's objectives as a write gives them (the whole list, in order), given the course
 * templates and events that exist among those named: each names exactly one of them, and one
 * that exists; at most {@link MAX_OBJECTIVES}. Problems name `learningObjectives[i].<field>`.
 */
export function objectiveTargets(
  input: readonly ObjectiveInput[],
  existing: { courseTemplates: ReadonlySet<number>; events: ReadonlySet<number> },
): { problems: Problem[]; targets: ObjectiveTarget[] } {
  if (input.length > MAX_OBJECTIVES)
    return {
      problems: [
        problem('learningObjectives', input.length, `a learning path has at most ${MAX_OBJECTIVES} objectives (${input.length} given)`),
      ],
      targets: [],
    };
  const problems: Problem[] = [];
  const targets: ObjectiveTarget[] = [];
  input.forEach((o, i) => {
    const at = `learningObjectives[${i}]`;
    const template = o.courseTemplateId;
    const event = o.eventId;
    if ((template == null) === (event == null)) problems.push(problem(at, null, `${at} names either a courseTemplateId or an eventId`));
    else if (template != null) {
      if (template === false || !existing.courseTemplates.has(template))
        problems.push(problem(`${at}.courseTemplateId`, template === false ? null : template, 'Course Template not found'));
      else targets.push({ course_template_id: template });
    } else if (event === false || !existing.events.has(event!))
      problems.push(problem(`${at}.eventId`, event === false ? null : event, 'Event not found'));
    else targets.push({ event_id: event! });
  });
  return { problems, targets };
}
