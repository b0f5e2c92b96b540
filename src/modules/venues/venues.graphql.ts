import { GraphQLID, GraphQLInputObjectType, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { badInput, fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import type { Knex } from '../../platform/db/knex.js';
import type { Problem } from '../../platform/problems.js';
import { LocationObject, locationById } from '../locations/index.graphql.js';
import { Venue as VenueModel, venueListConditions, venueRowsByIds } from './venues.data.js';
import { MAX_NAME_WORDS, wordPatterns, type VenueInput } from './venues.rules.js';
import { changeVenue, createVenue, type VenueRow } from './venues.service.js';

/**
 * Venues: where in a location events and sessions meet (LOCATION_VIEW / LOCATION_EDIT, as
 * locations). `Event.venue` and `Session.venue` are these records; `venues` lists them.
 */
const VIEW = 'LOCATION_VIEW';
const EDIT = 'LOCATION_EDIT';

export const venueById = (ctx: GraphQLContext, id: number | null) =>
  id === null ? Promise.resolve(undefined) : ctx.loader('Venue.byId', (db) => byId((ids) => venueRowsByIds(db, ids))).load(id);

export const VenueObject = new GraphQLObjectType<VenueRow, GraphQLContext>({
  name: 'Venue',
  description: 'Where in a location events and sessions meet: a building, a room.',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Venue'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    description: { type: GraphQLString },
    location: refField<VenueRow>(LocationObject, VIEW, (v) => v.location_id, locationById, 'The location it is in; null: none.'),
  }),
});

registerNode('Venue', { permission: VIEW, load: (ctx, id) => venueById(ctx, id) });

/** A filter on the name: eq (as written), ne, like (SQL wildcards, any case), wordlike (every word of the value, each a whole word, any case). */
function nameFilter(q: Knex.QueryBuilder, _db: Knex, operation: string, value: unknown): void {
  const v = String(value);
  if (operation === 'eq') q.where('t.name', v);
  else if (operation === 'ne') q.whereNot('t.name', v);
  else if (operation === 'like') q.whereILike('t.name', v);
  else {
    const patterns = wordPatterns(v);
    if (patterns.length > MAX_NAME_WORDS) throw badInput(`Filter on name: wordlike takes at most ${MAX_NAME_WORDS} words`);
    venueListConditions.nameMatchesAll(q, patterns);
  }
}

export const venuesQuery = listQuery<VenueRow>({
  typeName: 'Venue',
  table: VenueModel.tableName,
  permission: VIEW,
  node: () => VenueObject,
  defaultOrder: { field: 'name', direction: 'asc' },
  description: 'Venues (LOCATION_VIEW).',
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Venue', orderable: true },
    name: {
      column: 'name',
      kind: 'text',
      orderable: true,
      operations: ['eq', 'ne', 'like', 'wordlike'],
      apply: nameFilter,
      description: `eq, ne, like (SQL wildcards, any case) or wordlike: every word of the value (at most ${MAX_NAME_WORDS}) appears in the name as a whole word, any case, in any order.`,
    },
    description: { column: 'description', kind: 'text' },
    locationId: { column: 'location_id', kind: 'ref', refType: 'Location', description: 'A Location id.' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
  },
});

const inputFields = (create: boolean) => ({
  name: {
    type: create ? new GraphQLNonNull(GraphQLString) : GraphQLString,
    description: `One line, at most 200 characters.${create ? '' : ' Cannot be cleared.'}`,
  },
  description: { type: GraphQLString, description: 'At most 10,000 characters; null clears it.' },
  locationId: { type: GraphQLID, description: 'The Location it is in; null: none.' },
});
const VenueCreateInput = new GraphQLInputObjectType({ name: 'VenueCreateInput', fields: inputFields(true) });
const VenueUpdateInput = new GraphQLInputObjectType({
  name: 'VenueUpdateInput',
  description: 'Only the fields given change; null clears one.',
  fields: inputFields(false),
});
const VenuePayload = payloadType('VenuePayload', 'venue', () => VenueObject);

type RawInput = Omit<VenueInput, 'location'> & { locationId?: string | null };
type Payload = { venue: VenueRow | null; errors: FieldError[] };

/** The write as the service takes it: the location id resolved (false: it names no location of this instance). */
async function resolveInput(ctx: GraphQLContext, input: RawInput): Promise<VenueInput> {
  const { locationId, ...rest } = input;
  const out: VenueInput = { ...rest };
  if (locationId !== undefined) {
    const id = locationId === null ? null : legacyIdOf('Location', locationId);
    out.location = id === null ? null : id === undefined ? false : ((await locationById(ctx, id)) ?? false);
  }
  return out;
}

/** Problems about the venue and its location carry their ids; the caller sees the ids it sent. */
const withGivenIds = (problems: Problem[], given: { venueId?: string; locationId?: string | null }) =>
  toFieldErrors(
    problems.map((p) =>
      p.field === 'venueId' ? { ...p, value: given.venueId } : p.field === 'locationId' ? { ...p, value: given.locationId } : p,
    ),
  );

export const VenueMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'VenueMutations',
  fields: {
    create: {
      type: VenuePayload,
      description: 'A venue, in a location or none.',
      args: { input: { type: new GraphQLNonNull(VenueCreateInput) } },
      async resolve(_root, { input }: { input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const { venue, problems } = await createVenue(ctx.db, await resolveInput(ctx, input));
        return { venue, errors: withGivenIds(problems, input) };
      },
    },
    update: {
      type: VenuePayload,
      description: 'Changes the fields given of a venue.',
      args: { venueId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(VenueUpdateInput) } },
      async resolve(_root, { venueId, input }: { venueId: string; input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('Venue', venueId);
        if (id === undefined) return { venue: null, errors: [fieldError('venueId', venueId, 'Venue not found')] };
        const { venue, problems } = await changeVenue(ctx.db, id, await resolveInput(ctx, input));
        if (venue) ctx.forget('Venue.byId');
        return { venue, errors: withGivenIds(problems, { venueId, locationId: input.locationId }) };
      },
    },
  },
});
