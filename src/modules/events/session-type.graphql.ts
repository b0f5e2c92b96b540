import { GraphQLEnumType, GraphQLID, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { extensionFields } from '../../kit/graphql/extensions.js';
import { listQuery, nestedList, wholeConnection } from '../../kit/graphql/lists.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { refField } from '../../kit/graphql/permissions.js';
import { onZoneClock, utcStamp } from '../../platform/util/local-time.js';
import { customFieldValuesField, customFieldValuesOf } from '../custom-fields/index.graphql.js';
import type { FieldValueRow } from '../custom-fields/index.js';
import { LocationObject, locationById } from '../locations/index.graphql.js';
import { VenueObject, venueById } from '../venues/index.graphql.js';
import type { EventRow } from './events.data.js';
import { Session as SessionModel, sessionsByIds, sessionValuesOf, type SessionRow, type SessionValueRow } from './sessions.data.js';
import { SESSION_STATES } from './sessions.rules.js';

/**
 * Session in GraphQL: an event's meeting, a Node (webhooks' `node(id)`), and `Event.sessions`,
 * its list on an event (filters, order, cursor pages). EVENT_VIEW. Its `event` field is added by
 * event-type.graphql.ts (Event's file spreads this list: the two types refer to each other).
 * Other modules add theirs (a session's staff) through `extensionFields('Session')`.
 */
const VIEW = 'EVENT_VIEW';

export const SessionLifecycleStateEnum = new GraphQLEnumType({
  name: 'SessionLifecycleState',
  description: "A session's lifecycle state. A new event's sessions start draft (session.update publishes them).",
  values: Object.fromEntries(SESSION_STATES.map((v) => [v, { value: v }])),
});

export const sessionById = (ctx: GraphQLContext, id: number) =>
  ctx.loader('Session.byId', (db) => byId((ids) => sessionsByIds(db, ids))).load(id);

const valuesOf = (ctx: GraphQLContext) =>
  ctx.loader('Session.values', (db) =>
    byOwner<SessionValueRow>(
      (ids) => sessionValuesOf(db, ids),
      (r) => r.session_id,
    ),
  );

/** An instant as the Core API answers them: ISO 8601 in UTC, to the second. */
const iso = (d: Date | string) => new Date(d).toISOString().replace(/\.\d{3}Z$/, 'Z');

const INSTANT = 'ISO 8601 in UTC, to the second (2027-03-10T09:00:00Z), as Event.start.';
const ZONED = "a local date-time (no zone) on the session's clock (timeZoneName), as Event.classroomStartDateTime: 2027-03-10T09:00:00.";

/** Lectern keeps no resources (rooms, equipment to book): `Session.resourceBookings` is always empty. */
const ResourceObject = new GraphQLObjectType({
  name: 'Resource',
  description: 'Something a session books (a room, equipment). Lectern keeps no resources: none is ever answered.',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) }, name: { type: GraphQLString } },
});
const ResourceBookingObject = new GraphQLObjectType({
  name: 'ResourceBooking',
  description: 'A resource booked for a session. Lectern keeps no resources or bookings of them: none is ever answered.',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID) },
    start: { type: GraphQLString },
    end: { type: GraphQLString },
    resource: { type: ResourceObject },
  },
});
const resourceBookings = wholeConnection<never>('ResourceBooking', ResourceBookingObject);

export const SessionObject: GraphQLObjectType<SessionRow, GraphQLContext> = new GraphQLObjectType<SessionRow, GraphQLContext>({
  name: 'Session',
  description: "One of an event's meetings: when (start, end) and where (location, venue).",
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Session'),
    title: { type: new GraphQLNonNull(GraphQLString) },
    start: { type: new GraphQLNonNull(GraphQLString), description: `When it starts: ${INSTANT}`, resolve: (s) => iso(s.starts_at) },
    end: { type: new GraphQLNonNull(GraphQLString), description: `When it ends: ${INSTANT}`, resolve: (s) => iso(s.ends_at) },
    timeZoneName: {
      type: new GraphQLNonNull(GraphQLString),
      description: "IANA zone its local times are on (its event's when it was made).",
      resolve: (s) => s.time_zone_name,
    },
    timeZonedStart: {
      type: new GraphQLNonNull(GraphQLString),
      description: `When it starts: ${ZONED}`,
      resolve: (s) => onZoneClock(iso(s.starts_at), s.time_zone_name) ?? iso(s.starts_at),
    },
    timeZonedEnd: {
      type: new GraphQLNonNull(GraphQLString),
      description: `When it ends: ${ZONED}`,
      resolve: (s) => onZoneClock(iso(s.ends_at), s.time_zone_name) ?? iso(s.ends_at),
    },
    lifecycleState: { type: new GraphQLNonNull(SessionLifecycleStateEnum), resolve: (s) => s.lifecycle_state },
    location: refField<SessionRow>(LocationObject, 'LOCATION_VIEW', (s) => s.location_id, locationById, 'Where it meets; null: none.'),
    venue: refField<SessionRow>(VenueObject, 'LOCATION_VIEW', (s) => s.venue_id, venueById, 'The venue it meets in; null: none.'),
    customFieldValues: {
      ...customFieldValuesField,
      description: 'Values of the custom fields that apply to sessions.',
      resolve: async (s, _a, ctx) =>
        customFieldValuesOf(
          ctx,
          (await valuesOf(ctx).load(s.id)).map((v) => ({ ...v, locale_id: null }) as unknown as FieldValueRow),
          null,
        ),
    },
    resourceBookings: {
      type: new GraphQLNonNull(resourceBookings.type),
      description:
        'Resources (rooms, equipment) booked for it. Lectern keeps no resources or bookings of them: this connection is always empty.',
      resolve: (_s, _a, ctx) => resourceBookings.page(ctx, []),
    },
    createdAt: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'When it was made (ISO 8601 in UTC).',
      resolve: (s) => utcStamp(s.created_on),
    },
    updatedAt: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'When it last changed (ISO 8601 in UTC).',
      resolve: (s) => utcStamp(s.updated_on),
    },
    ...extensionFields('Session'),
  }),
});

registerNode('Session', { permission: VIEW, load: (ctx, id) => sessionById(ctx, id) });

const INSTANT_FILTER = 'ISO 8601 (2025-06-01T00:00:00Z, or with an offset; a date alone is its midnight UTC).';

/** An event's sessions as a list: the filters and orders of `Event.sessions`. */
const sessionsList = listQuery<SessionRow>({
  typeName: 'Session',
  table: SessionModel.tableName,
  permission: VIEW,
  node: () => SessionObject,
  defaultOrder: { field: 'start', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Session', orderable: true },
    title: { column: 'title', kind: 'text', orderable: true },
    lifecycleState: {
      column: 'lifecycle_state',
      kind: 'enum',
      enumValues: SESSION_STATES,
      orderable: true,
      normalize: (v: string) => v.toLowerCase(),
      description: 'draft, published or cancelled (any case).',
    },
    start: { column: 'starts_at', kind: 'instant', orderable: true, description: `When it starts: ${INSTANT_FILTER}` },
    end: { column: 'ends_at', kind: 'instant', orderable: true, description: `When it ends: ${INSTANT_FILTER}` },
    location: { column: 'location_id', kind: 'ref', refType: 'Location', description: 'A Location id.' },
    venue: { column: 'venue_id', kind: 'ref', refType: 'Venue', description: 'A Venue id.' },
  },
});

/** `Event.sessions`: the event's sessions, in start order unless `order` says otherwise (one statement for a page of events). */
export const eventSessionsField = nestedList<EventRow>(sessionsList, {
  parentColumn: 'event_id',
  parentId: (e) => e.id,
  description:
    "Its sessions (EVENT_VIEW), in start order unless `order` says otherwise, with filters and cursor pages (`first`, `after`: pageInfo.endCursor). A new event gets one a day of its classroom period, or one over it (its course template's sessionLayout); an online (LMS) event one over its online period.",
});
