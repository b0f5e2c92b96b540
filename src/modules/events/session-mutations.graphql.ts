import { GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { fieldErrors, payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { extensionFields } from '../../kit/graphql/extensions.js';
import { legacyIdOf, toGlobalId } from '../../kit/graphql/ids.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { hasPermission } from '../../platform/permissions.js';
import { allDefinitions, CustomFieldValueInput } from '../custom-fields/index.graphql.js';
import type { ValueInput } from '../custom-fields/index.js';
import { locationById } from '../locations/index.graphql.js';
import { venueById } from '../venues/index.graphql.js';
import { LocalDateTime } from './local-date-time.graphql.js';
import { SessionLifecycleStateEnum, SessionObject } from './session-type.graphql.js';
import { deleteSessions, MAX_DELETED_SESSIONS, updateSession, type SessionRow, type SessionUpdateInput } from './sessions.service.js';

/**
 * `session { update delete }` (and what other modules add: `addStaff`): ids to rows, then one
 * service call each. EVENT_EDIT (and LOCATION_VIEW for a location or venue named).
 */
const EDIT = 'EVENT_EDIT';

const SessionUpdateInputType = new GraphQLInputObjectType({
  name: 'SessionUpdateInput',
  description: 'Only the fields given change; null clears the venue or location. Anything refused: nothing changes.',
  fields: {
    lifecycleState: { type: SessionLifecycleStateEnum },
    title: { type: GraphQLString, description: 'One line, at most 255 characters; cannot be cleared.' },
    locationId: { type: GraphQLID, description: 'A Location id; null: none.' },
    venueId: { type: GraphQLID, description: 'A Venue id; null: none.' },
    timeZoneName: {
      type: GraphQLString,
      description:
        'IANA zone name (Europe/London): the clock of start and end. Given alone, the local times stay: the instants move with the zone.',
    },
    start: { type: LocalDateTime, description: "When it starts, on the session's clock (timeZoneName): 2026-09-01T09:00:00." },
    end: { type: LocalDateTime, description: 'When it ends, on the same clock: not before start.' },
    customFieldValues: {
      type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)),
      description: 'Values of the custom fields that apply to sessions; the others stay. null as a value removes it.',
    },
  },
});

const SessionPayload = payloadType('SessionPayload', 'session', () => SessionObject);

const SessionDeleteInput = new GraphQLInputObjectType({
  name: 'SessionDeleteInput',
  fields: {
    sessionIds: {
      type: new GraphQLNonNull(new GraphQLList(GraphQLID)),
      description: `Sessions to delete: at most ${MAX_DELETED_SESSIONS} at once.`,
    },
  },
});

const SessionDeletePayload = new GraphQLObjectType({
  name: 'SessionDeletePayload',
  fields: {
    sessionIds: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLID))),
      description: 'The sessions deleted; empty when refused.',
    },
    errors: fieldErrors,
  },
});

type RawUpdate = Omit<SessionUpdateInput, 'location' | 'venue' | 'customFieldValues'> & {
  locationId?: string | null;
  venueId?: string | null;
  customFieldValues?: ValueInput[] | null;
};

/** A location or venue id as the service takes it: undefined not given, null none, false naming nothing here. */
async function reference<T>(
  given: string | null | undefined,
  type: string,
  load: (id: number) => Promise<T | undefined>,
): Promise<T | null | false | undefined> {
  if (given === undefined) return undefined;
  if (given === null) return null;
  const id = legacyIdOf(type, given);
  return id === undefined ? false : ((await load(id)) ?? false);
}

export const SessionMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'SessionMutations',
  fields: () => ({
    update: {
      type: SessionPayload,
      description:
        'Changes a session: its lifecycle state, title, location, venue, times (local, on its clock) and custom field values. The end must not be before the start.',
      args: { sessionId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(SessionUpdateInputType) } },
      async resolve(
        _root,
        { sessionId, input }: { sessionId: string; input: RawUpdate },
        ctx,
      ): Promise<{ session: SessionRow | null; errors: FieldError[] }> {
        requirePermission(ctx, EDIT);
        // The records the input names are read: their VIEW permission too.
        if (input.locationId != null || input.venueId != null) requirePermission(ctx, 'LOCATION_VIEW');
        const id = legacyIdOf('Session', sessionId);
        if (id === undefined) return { session: null, errors: [fieldError('sessionId', sessionId, 'Session not found')] };
        const { locationId, venueId, ...rest } = input;
        const resolved: SessionUpdateInput = {
          ...rest,
          location: await reference(locationId, 'Location', (n) => locationById(ctx, n)),
          venue: await reference(venueId, 'Venue', (n) => venueById(ctx, n)),
        };
        // A clash names its instructor only to a caller who may read contacts.
        const { session, problems } = await updateSession(
          ctx.db,
          id,
          resolved,
          (await allDefinitions(ctx)).values(),
          hasPermission(ctx.user.permissions, 'CONTACT_VIEW'),
        );
        ctx.forget('Session.byId');
        ctx.forget('Session.values');
        const given: Record<string, unknown> = { sessionId, locationId, venueId };
        return { session, errors: toFieldErrors(problems.map((p) => (p.field in given ? { ...p, value: given[p.field] } : p))) };
      },
    },
    delete: {
      // Nullable, as every mutation of a group: a refused one (a permission) answers null beside what the others wrote.
      type: SessionDeletePayload,
      description:
        'Deletes sessions, all or none: an id that names no session refuses the whole call. Their staff and attendance go with them.',
      args: { input: { type: new GraphQLNonNull(SessionDeleteInput) } },
      async resolve(_root, { input }: { input: { sessionIds: (string | null)[] } }, ctx) {
        requirePermission(ctx, EDIT);
        const given = input.sessionIds;
        const { deleted, problems } = await deleteSessions(
          ctx.db,
          given.map((id) => (id === null ? null : (legacyIdOf('Session', id) ?? false))),
        );
        ctx.forget('Session.byId');
        // Problems name the sessions as the caller wrote them.
        const errors = toFieldErrors(
          problems.map((p) => {
            const i = /^sessionIds\[(\d+)\]$/.exec(p.field)?.[1];
            return i === undefined ? p : { ...p, value: given[Number(i)] };
          }),
        );
        return { sessionIds: deleted.map((id) => toGlobalId('Session', id)), errors };
      },
    },
    ...extensionFields('SessionMutations'),
  }),
});
