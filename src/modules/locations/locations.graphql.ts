import { GraphQLInputObjectType, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { Location as LocationModel, locationRowsByIds } from './locations.data.js';
import type { LocationInput } from './locations.rules.js';
import { createLocation, type LocationRow } from './locations.service.js';

/** Locations: where classroom events take place (LOCATION_VIEW / LOCATION_EDIT). */
const VIEW = 'LOCATION_VIEW';
const EDIT = 'LOCATION_EDIT';

export const locationById = (ctx: GraphQLContext, id: number | null) => (id === null ? Promise.resolve(undefined) : ctx.loader('Location.byId', (db) => byId((ids) => locationRowsByIds(db, ids))).load(id));

export const Location = new GraphQLObjectType<LocationRow, GraphQLContext>({
  name: 'Location',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Location'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    addressStreet: { type: GraphQLString, resolve: (l) => l.address_street },
    addressTown: { type: GraphQLString, resolve: (l) => l.address_town },
    addressPostcode: { type: GraphQLString, resolve: (l) => l.address_postcode },
    addressCountryId: { type: GraphQLString, resolve: (l) => l.address_country_id, description: 'ISO 3166-1 alpha-2, e.g. GB.' },
    timeZoneName: { type: GraphQLString, resolve: (l) => l.time_zone_name, description: 'IANA zone of the place, e.g. Europe/London.' },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (l) => l.created_on },
  }),
});

registerNode('Location', { permission: VIEW, load: (ctx, id) => locationById(ctx, id) });

export const locationsQuery = listQuery<LocationRow>({
  typeName: 'Location',
  table: LocationModel.tableName,
  permission: VIEW,
  node: () => Location,
  defaultOrder: { field: 'name', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Location', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    addressTown: { column: 'address_town', kind: 'text', orderable: true },
    addressCountryId: { column: 'address_country_id', kind: 'text' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
  },
});

const LocationCreateInput = new GraphQLInputObjectType({
  name: 'LocationCreateInput',
  fields: {
    name: { type: new GraphQLNonNull(GraphQLString) },
    addressStreet: { type: GraphQLString },
    addressTown: { type: GraphQLString },
    addressPostcode: { type: GraphQLString },
    addressCountryId: { type: GraphQLString, description: 'ISO 3166-1 alpha-2, e.g. GB.' },
    timeZoneName: { type: GraphQLString, description: 'IANA zone, e.g. Europe/London.' },
  },
});
const LocationPayload = payloadType('LocationPayload', 'location', () => Location);

export const LocationMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'LocationMutations',
  fields: {
    create: {
      type: LocationPayload,
      args: { input: { type: new GraphQLNonNull(LocationCreateInput) } },
      async resolve(_root, { input }: { input: LocationInput }, ctx): Promise<{ location: LocationRow | null; errors: FieldError[] }> {
        requirePermission(ctx, EDIT);
        const { location, problems } = await createLocation(ctx.db, input);
        return { location, errors: toFieldErrors(problems) };
      },
    },
  },
});
