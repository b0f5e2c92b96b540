import { GraphQLID, GraphQLInt, GraphQLInterfaceType, GraphQLNonNull, type GraphQLFieldConfig, type GraphQLFieldConfigMap } from 'graphql';
import type { GraphQLContext } from './context.js';
import { hasPermission } from '../../platform/permissions.js';
import { requirePermission } from './permissions.js';
import { fromCoreId, toGlobalId } from './ids.js';

/**
 * The `Node` interface and `node(id:)`. Each type that is a node registers how to load one of
 * its rows and the permission that reading it needs; an id of an unknown type, of a row that is
 * not there (or is another tenant's, which is the same thing: it is not in this schema) is null.
 */
export const NodeInterface = new GraphQLInterfaceType({
  name: 'Node',
  description: 'A record with a global id: base64 of "<Type>:<legacyId>".',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID) },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), description: 'The numeric id, as the legacy REST API has it.' },
  },
  resolveType: (value: { __type?: string }) => value.__type,
});

interface NodeKind {
  /** The view permission reading it needs; several: any one of them (a document is read as a course template's or a learning path's picture). */
  permission: string | readonly string[];
  load(ctx: GraphQLContext, legacyId: number): Promise<object | undefined>;
}

const kinds = new Map<string, NodeKind>();

export function registerNode(type: string, kind: NodeKind): void {
  kinds.set(type, kind);
}

/** `id` and `legacyId` of a node type whose rows have an integer `id`. */
export function nodeFields(type: string): GraphQLFieldConfigMap<{ id: number }, GraphQLContext> {
  return {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (row) => toGlobalId(type, row.id) },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (row) => row.id },
  };
}

export const nodeQuery: GraphQLFieldConfig<unknown, GraphQLContext, { id: string }> = {
  type: NodeInterface,
  description: 'Any record by its global id; null when there is none (in your instance).',
  args: { id: { type: new GraphQLNonNull(GraphQLID) } },
  async resolve(_root, { id }, ctx) {
    // Read as Core reads ids: an event named `Course:<n>` is that event, answered with its own id.
    const parsed = fromCoreId(id);
    const kind = parsed && kinds.get(parsed.type);
    if (!parsed || !kind) return null;
    const permissions = typeof kind.permission === 'string' ? [kind.permission] : kind.permission;
    requirePermission(ctx, permissions.find((p) => hasPermission(ctx.user.permissions, p)) ?? permissions[0]!);
    const gone = ctx.tombstone?.type === parsed.type && ctx.tombstone.legacyId === parsed.legacyId ? ctx.tombstone.row : undefined;
    const row = (await kind.load(ctx, parsed.legacyId)) ?? gone;
    return row ? { ...row, __type: parsed.type } : null;
  },
};
