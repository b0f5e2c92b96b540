import { GraphQLError } from 'graphql';
import type { Problem } from '../../platform/problems.js';

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
  return {
    label,
    value: value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value),
    message,
  };
}

/** The problems a module's rules found, as the GraphQL API reports them (the field becomes the label). */
export function toFieldErrors(problems: readonly Problem[]): FieldError[] {
  return problems.map((p) => fieldError(p.field, p.value, p.message));
}

/** A mistake in the request itself (a malformed filter, a bad cursor): the whole request fails. */
export function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}
