import { problem, type Problem } from '../../platform/problems.js';
import { hasNul } from '../../platform/util/dates.js';
import { MAPPING_TYPES, type MappingRow } from '../course-templates/index.js';

/**
 * The rules of delegates' scores, as pure functions returning problems (a REST face turns them
 * into its 400/404 `details.fields`). A score is keyed by the id of a score mapping of the
 * delegate's event template; its value is text the mapping's type accepts.
 */

/** A score value's limit. */
export const MAX_SCORE_LENGTH = 10000;
/** A score mapping label's limit. */
export const MAX_MAPPING_LABEL_LENGTH = 255;

/** A value that can be a row id (a PostgreSQL integer above zero). */
export const isId = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) <= 2147483647;

/**
 * Checks scores sent as `{"<mapping id>": "<value>"}` against the delegate's mappings: every key
 * a mapping, every value a string of the mapping's type. The scores to write, or the problems
 * (one per key at fault) when any.
 */
export function checkScores(
  values: Readonly<Record<string, unknown>>,
  mappings: readonly MappingRow[],
): { problems: Problem[]; scores: { mapping_id: number; value: string }[] } {
  const byId = new Map(mappings.map((m) => [String(m.id), m]));
  const problems: Problem[] = [];
  const scores: { mapping_id: number; value: string }[] = [];
  for (const [key, value] of Object.entries(values)) {
    const m = byId.get(key);
    if (!m) problems.push(problem(key, value, `${key} is not a score mapping of this delegate's event template`));
    else if (typeof value !== 'string') problems.push(problem(key, value, `${key} value must be a string`));
    else if (hasNul(value) || value.length > MAX_SCORE_LENGTH)
      problems.push(problem(key, value, `${key} value must be text of at most ${MAX_SCORE_LENGTH} characters without NUL`));
    else if (!MAPPING_TYPES[m.type_id]?.valid(value))
      problems.push(problem(key, value, `${key} value must be ${MAPPING_TYPES[m.type_id]?.hint ?? 'valid'} for ${m.label}`));
    else scores.push({ mapping_id: m.id, value });
  }
  return { problems, scores };
}

/** A new score mapping: a label of 1 to 255 characters without NUL, a type among MAPPING_TYPES. */
export function mappingProblems(input: { label?: unknown; type_id?: unknown }): Problem[] {
  const problems: Problem[] = [];
  if (typeof input.label !== 'string' || !input.label.trim()) problems.push(problem('label', input.label, 'label is required'));
  else if (input.label.length > MAX_MAPPING_LABEL_LENGTH || hasNul(input.label))
    problems.push(problem('label', input.label, `label must be at most ${MAX_MAPPING_LABEL_LENGTH} characters without NUL`));
  if (!Number.isInteger(input.type_id) || !MAPPING_TYPES[input.type_id as number]) {
    problems.push(
      problem(
        'type_id',
        input.type_id,
        `type_id must be one of ${Object.entries(MAPPING_TYPES)
          .map(([id, t]) => `${id} (${t.name})`)
          .join(', ')}`,
      ),
    );
  }
  return problems;
}
