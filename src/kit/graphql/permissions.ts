import { GraphQLError, type GraphQLFieldConfig, type GraphQLOutputType } from 'graphql';
import { hasPermission } from '../../platform/permissions.js';
import type { GraphQLContext } from './context.js';

/**
 * Permission checks of the GraphQL API: a permission error is a GraphQL error (`FORBIDDEN`),
 * checked before anything is read, so it never reveals whether a record exists.
 */
export function requirePermission(ctx: GraphQLContext, permission: string): void {
  if (!hasPermission(ctx.user.permissions, permission)) {
    throw new GraphQLError(`You do not have permission to do this: your role lacks ${permission}`, {
      extensions: { code: 'FORBIDDEN', permission },
    });
  }
}

/**
 * Refuses a caller whose role holds none of `permissions` (data that several entities show: the
 * price levels and currencies of course templates', events' and learning paths' prices), naming
 * them all; checked before anything is read.
 */
export function requireAnyPermission(ctx: GraphQLContext, permissions: readonly string[]): void {
  if (permissions.some((p) => hasPermission(ctx.user.permissions, p))) return;
  const names = permissions.length > 1 ? `${permissions.slice(0, -1).join(', ')} or ${permissions.at(-1)}` : permissions[0];
  throw new GraphQLError(`You do not have permission to do this: your role lacks ${names}`, {
    extensions: { code: 'FORBIDDEN', permission: permissions[0], permissions: [...permissions] },
  });
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
