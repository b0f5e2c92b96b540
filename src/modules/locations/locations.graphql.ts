import { GraphQLID, GraphQLInputObjectType, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import type { Problem } from '../../platform/problems.js';
import { RegionObject, regionById } from '../pricing/index.graphql.js';
import { Location as LocationModel, locationRowsByIds } from './locations.data.js';
import type { LocationInput } from './locations.rules.js';
import { changeLocation, createLocation, type LocationRow } from './locations.service.js';

/** Locations: where classroom events take place (LOCATION_VIEW / LOCATION_EDIT), each with a code and a region (the Region of prices). */
const VIEW = 'LOCATION_VIEW';
const EDIT = 'LOCATION_EDIT';

export const locationById = (ctx: GraphQLContext, id: number | null) =>
  id === null ? Promise.resolve(undefined) : ctx.loader('Location.byId', (db) => byId((ids) => locationRowsByIds(db, ids))).load(id);

export const LocationObject = new GraphQLObjectType<LocationRow, GraphQLContext>({
  name: 'Location',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Location'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    code: { type: GraphQLString, description: 'A short code of the place (not unique).' },
    region: {
      type: RegionObject,
      description: 'The region it is in (shown with the location, under LOCATION_VIEW); null: none.',
      resolve: (l, _a, ctx) => regionById(ctx, l.region_id),
    },
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
  node: () => LocationObject,
  defaultOrder: { field: 'name', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Location', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    regionId: { column: 'region_id', kind: 'ref', refType: 'Region', description: 'A Region id.' },
    addressTown: { column: 'address_town', kind: 'text', orderable: true },
    addressCountryId: { column: 'address_country_id', kind: 'text' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
  },
});

const inputFields = (create: boolean) => ({
  name: { type: create ? new GraphQLNonNull(GraphQLString) : GraphQLString, ...(create ? {} : { description: 'Cannot be cleared.' }) },
  code: { type: GraphQLString, description: 'A short code of the place (one line, at most 64 characters; not unique).' },
  regionId: { type: GraphQLID, description: 'A Region id; null: none.' },
  addressStreet: { type: GraphQLString },
  addressTown: { type: GraphQLString },
  addressPostcode: { type: GraphQLString },
  addressCountryId: { type: GraphQLString, description: 'ISO 3166-1 alpha-2, e.g. GB.' },
  timeZoneName: { type: GraphQLString, description: 'IANA zone, e.g. Europe/London.' },
});
const LocationCreateInput = new GraphQLInputObjectType({ name: 'LocationCreateInput', fields: inputFields(true) });
const LocationUpdateInput = new GraphQLInputObjectType({
  name: 'LocationUpdateInput',
  description: 'Only the fields given change; null clears one.',
  fields: inputFields(false),
});
const LocationPayload = payloadType('LocationPayload', 'location', () => LocationObject);

type RawInput = Omit<LocationInput, 'region'> & { regionId?: string | null };
type Payload = { location: LocationRow | null; errors: FieldError[] };

/** The write as the service takes it: the region id resolved (false: it names no region of this instance). */
async function resolveInput(ctx: GraphQLContext, input: RawInput): Promise<LocationInput> {
  const { regionId, ...rest } = input;
  const out: LocationInput = { ...rest };
  if (regionId !== undefined) {
    const id = regionId === null ? null : legacyIdOf('Region', regionId);
    out.region = id === null ? null : id === undefined ? false : ((await regionById(ctx, id)) ?? false);
  }
  return out;
}

/** Problems about the location and its region carry their ids; the caller sees the ids it sent. */
const withGivenIds = (problems: Problem[], given: { locationId?: string; regionId?: string | null }) =>
  toFieldErrors(
    problems.map((p) =>
      p.field === 'locationId' ? { ...p, value: given.locationId } : p.field === 'regionId' ? { ...p, value: given.regionId } : p,
    ),
  );

export const LocationMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'LocationMutations',
  fields: {
    create: {
      type: LocationPayload,
      args: { input: { type: new GraphQLNonNull(LocationCreateInput) } },
      async resolve(_root, { input }: { input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const { location, problems } = await createLocation(ctx.db, await resolveInput(ctx, input));
        return { location, errors: withGivenIds(problems, input) };
      },
    },
    update: {
      type: LocationPayload,
      description: 'Changes the fields given of a location.',
      args: { locationId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(LocationUpdateInput) } },
      async resolve(_root, { locationId, input }: { locationId: string; input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('Location', locationId);
        if (id === undefined) return { location: null, errors: [fieldError('locationId', locationId, 'Location not found')] };
        const { location, problems } = await changeLocation(ctx.db, id, await resolveInput(ctx, input));
        if (location) ctx.forget('Location.byId');
        return { location, errors: withGivenIds(problems, { locationId, regionId: input.regionId }) };
      },
    },
  },
});
