import { GraphQLFloat, GraphQLInputObjectType, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { TaxType as TaxTypeModel, taxTypesByIds } from './tax-types.data.js';
import type { TaxTypeInput } from './tax-types.rules.js';
import { createTaxType, type TaxTypeRow } from './tax-types.service.js';

/** Tax types: the tax an event's price is sold under (TAX_TYPE_VIEW / TAX_TYPE_EDIT). */
const VIEW = 'TAX_TYPE_VIEW';
const EDIT = 'TAX_TYPE_EDIT';

export const taxTypeById = (ctx: GraphQLContext, id: number | null) =>
  id === null ? Promise.resolve(undefined) : ctx.loader('TaxType.byId', (db) => byId((ids) => taxTypesByIds(db, ids))).load(id);

export const TaxTypeObject = new GraphQLObjectType<TaxTypeRow, GraphQLContext>({
  name: 'TaxType',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('TaxType'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    rate: { type: new GraphQLNonNull(GraphQLFloat), resolve: (t) => Number(t.rate), description: 'Percent, e.g. 20 for 20 %.' },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (t) => t.created_on },
  }),
});

registerNode('TaxType', { permission: VIEW, load: (ctx, id) => taxTypeById(ctx, id) });

export const taxTypesQuery = listQuery<TaxTypeRow>({
  typeName: 'TaxType',
  table: TaxTypeModel.tableName,
  permission: VIEW,
  node: () => TaxTypeObject,
  defaultOrder: { field: 'name', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'TaxType', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
  },
});

const TaxTypeCreateInput = new GraphQLInputObjectType({
  name: 'TaxTypeCreateInput',
  fields: {
    name: { type: new GraphQLNonNull(GraphQLString) },
    rate: { type: new GraphQLNonNull(GraphQLFloat), description: 'Percent, 0 to 100.' },
  },
});
const TaxTypePayload = payloadType('TaxTypePayload', 'taxType', () => TaxTypeObject);

export const TaxTypeMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'TaxTypeMutations',
  fields: {
    create: {
      type: TaxTypePayload,
      args: { input: { type: new GraphQLNonNull(TaxTypeCreateInput) } },
      async resolve(_root, { input }: { input: TaxTypeInput }, ctx): Promise<{ taxType: TaxTypeRow | null; errors: FieldError[] }> {
        requirePermission(ctx, EDIT);
        const { taxType, problems } = await createTaxType(ctx.db, input);
        return { taxType, errors: toFieldErrors(problems) };
      },
    },
  },
});
