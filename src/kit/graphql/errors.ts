import { GraphQLError, type GraphQLFieldConfig, type GraphQLOutputType } from 'graphql';
import { hasPermission } from '../../modules/users/permissions.js';
import { isSingleLine } from '../../platform/util/text.js';
import type { GraphQLContext } from './context.js';

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

export function requirePermission(ctx: GraphQLContext, permission: string): void {
  if (!hasPermission(ctx.user.permissions, permission)) {
    throw new GraphQLError(`You do not have permission to do this: your role lacks ${permission}`, { extensions: { code: 'FORBIDDEN', permission } });
  }
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

/**
 * A field answering a record of another entity (an order line's event, an event's course
 * template), refused without that entity's VIEW permission as reaching it directly would be;
 * null when the parent refers to none.
 */
export function refField<P>(
  type: GraphQLOutputType,
  permission: string,
  idOf: (parent: P) => number | null | undefined,
  load: (ctx: GraphQLContext, id: number) => Promise<unknown>,
  description?: string,
): GraphQLFieldConfig<P, GraphQLContext> {
  return {
    type,
    ...(description ? { description } : {}),
    async resolve(parent, _args, ctx) {
      const id = idOf(parent);
      if (id == null) return null;
      requirePermission(ctx, permission);
      return (await load(ctx, id)) ?? null;
    },
  };
}
