import { isSingleLine } from './util/text.js';

/**
 * Why a write cannot be done, in the domain's own words: the input field at fault (`title`,
 * `customFieldValues[0].value`: the names of the domain's input, which the GraphQL API uses as
 * they are), the value it had, and a sentence saying what is wrong (`title must be one line of at
 * most 255 characters`). Rules return problems; each API face turns them into its own shape (a
 * GraphQL FieldError, a REST 400 or 404 with `details.fields`), so every face refuses the same
 * input for the same reason. A write with problems writes nothing.
 */
export interface Problem {
  field: string;
  value: unknown;
  message: string;
}

export function problem(field: string, value: unknown, message: string): Problem {
  return { field, value, message };
}

/**
 * The problem (none or one) of a single-line text field (a name, a code, a title) that holds a
 * line break or is too long; with `required`, also when it is blank. None when the value is absent.
 */
export function lineProblems(field: string, value: string | null | undefined, max: number, required = false): Problem[] {
  if (value == null || (value.length <= max && isSingleLine(value) && !(required && value.trim() === ''))) return [];
  return [
    problem(
      field,
      value,
      required ? `${field} must be one line of 1 to ${max} characters` : `${field} must be one line of at most ${max} characters`,
    ),
  ];
}

/** `value` among `allowed`, else the problem naming them. */
export function oneOfProblems(field: string, value: string | null | undefined, allowed: readonly string[]): Problem[] {
  return value == null || allowed.includes(value) ? [] : [problem(field, value, `${field} must be one of ${allowed.join(', ')}`)];
}
