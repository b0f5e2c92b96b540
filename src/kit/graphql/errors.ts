import { GraphQLError } from 'graphql';
import type { Problem } from '../../platform/problems.js';
import { isSingleLine } from '../../platform/util/text.js';

/**
 * Errors of the GraphQL API. A permission error is a GraphQL error (`FORBIDDEN`), checked before
 * anything is read, so it never reveals whether a record exists. Rejected writes answer with
 * FieldErrors in the payload (`label`, `value`, `message`), with HTTP 200, as the contract has them.
 */
export interface FieldError {
  label: string;
  value: string | null;
  message: string;
}

export function fieldError(label: string, value: unknown, message: string): FieldError {
  return { label, value: value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value), message };
}

/** The problems a module's rules found, as the GraphQL API reports them (the field becomes the label). */
export function toFieldErrors(problems: readonly Problem[]): FieldError[] {
  return problems.map((p) => fieldError(p.field, p.value, p.message));
}

/**
 * The FieldError (none or one) of a single-line text field (a name, a code, a title) that holds a
 * line break or is too long; with `required`, also when it is blank. None when the value is absent.
 */
export function lineErrors(label: string, value: string | null | undefined, max: number, required = false): FieldError[] {
  if (value == null || (value.length <= max && isSingleLine(value) && !(required && value.trim() === ''))) return [];
  return [fieldError(label, value, required ? `${label} must be one line of 1 to ${max} characters` : `${label} must be one line of at most ${max} characters`)];
}

/** A mistake in the request itself (a malformed filter, a bad cursor): the whole request fails. */
export function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}
