import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
} from 'graphql';
import { fieldErrors } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { extensionFields } from '../../kit/graphql/extensions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery, nestedList, wholeConnection, type Page } from '../../kit/graphql/lists.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import { utcStamp } from '../../platform/util/local-time.js';
import { contactField } from '../crm/index.graphql.js';
import { EventStaff, eventStaffByIds, staffOfSessions, type EventStaffRow, type SessionStaffRow } from './staff.data.js';
import { MAX_NOTES, MAX_STAFF_PER_CALL, STAFF_TYPES } from './staff.rules.js';
import { addEventStaff, addSessionStaff, removeEventStaff, type EventStaffInput as StaffItem } from './staff.service.js';

/**
 * Staff in GraphQL: `Event.staff` (an event's instructors and administrators), the `Staff` node,
 * `event { addStaff addStaffBulk removeStaff }` and `session { addStaff }`. The staff module
 * knows events and sessions only as tables it books onto: their GraphQL types are the events
 * module's, which the app hands to {@link eventStaffMutations} and {@link sessionStaffMutations}
 * (the events module may use staff's rules, so staff imports nothing of it). EVENT_VIEW to read,
 * EVENT_EDIT to write, and CONTACT_VIEW to name contacts (their roles decide).
 */
const VIEW = 'EVENT_VIEW';
const EDIT = 'EVENT_EDIT';
const CONTACTS = 'CONTACT_VIEW';

export const StaffTypeEnum = new GraphQLEnumType({
  name: 'StaffType',
  description:
    'instructor: teaches (a contact with the instructor role, isInstructor); administrator: runs the event (a contact with a staff role, isStaff or isAdmin).',
  values: Object.fromEntries(STAFF_TYPES.map((t) => [t, { value: t }])),
});

/** This request's event staff by id (the list primes it with the rows of its page). */
const staffMembers = (ctx: GraphQLContext) => ctx.loader('Staff.byId', (db) => byId((ids) => eventStaffByIds(db, ids)));
const staffById = (ctx: GraphQLContext, id: number) => staffMembers(ctx).load(id);

export const StaffObject: GraphQLObjectType<EventStaffRow, GraphQLContext> = new GraphQLObjectType<EventStaffRow, GraphQLContext>({
  name: 'Staff',
  interfaces: [NodeInterface],
  description: "A contact on an event's staff, as an instructor or an administrator.",
  fields: () => ({
    ...nodeFields('Staff'),
    contact: contactField<EventStaffRow>((s) => s.contact_id, 'The staff member (CONTACT_VIEW).'),
    staffType: { type: new GraphQLNonNull(StaffTypeEnum), resolve: (s) => s.staff_type },
    isPrimary: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description:
        "The event's lead instructor: its first instructor, and when that one leaves, the instructor added next. Never an administrator.",
      resolve: (s) => s.is_primary,
    },
    notes: { type: GraphQLString },
    requiredSessionsOnly: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description:
        "An instructor who teaches only the sessions they are staff of (session.addStaff); otherwise every session of the event is theirs, and none of them may clash with the instructor's other sessions.",
      resolve: (s) => s.required_sessions_only,
    },
    createdAt: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'When they were added (ISO 8601 in UTC).',
      resolve: (s) => utcStamp(s.created_on),
    },
    ...extensionFields('Staff'),
  }),
});

registerNode('Staff', { permission: VIEW, load: staffById });

/** The staff list (never a root: an event's staff are read through the event). */
const staffList = listQuery<EventStaffRow>({
  typeName: 'Staff',
  table: EventStaff.tableName,
  permission: VIEW,
  node: () => StaffObject,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Staff', orderable: true },
    contactId: { column: 'contact_id', kind: 'ref', refType: 'Contact' },
    staffType: { column: 'staff_type', kind: 'enum', enumValues: STAFF_TYPES },
    isPrimary: { column: 'is_primary', kind: 'bool', orderable: true },
  },
  prime: (ctx, rows) => {
    const loader = staffMembers(ctx);
    for (const row of rows) loader.prime(row.id, row);
  },
});

/** `Event.staff(first)`: the event's staff, oldest first (one statement for a page of events). */
export const eventStaffField = nestedList<{ id: number }>(staffList, {
  parentColumn: 'event_id',
  parentId: (e) => e.id,
  description: "The event's instructors and administrators, in the order they were added (EVENT_VIEW).",
});

const SessionStaffObject = new GraphQLObjectType<SessionStaffRow, GraphQLContext>({
  name: 'SessionStaff',
  description: "A contact on a session's staff (session.addStaff).",
  fields: () => ({
    contact: contactField<SessionStaffRow>((s) => s.contact_id, 'The staff member (CONTACT_VIEW).'),
    staffType: { type: new GraphQLNonNull(StaffTypeEnum), resolve: (s) => s.staff_type },
    createdAt: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'When they were added (ISO 8601 in UTC).',
      resolve: (s) => utcStamp(s.created_on),
    },
  }),
});

const sessionStaff = wholeConnection<SessionStaffRow>('SessionStaff', SessionStaffObject);

/**
 * `Session.staff`: the contacts added to the session itself (not its event's staff, who are
 * `Event.staff`), in the order added; a page of sessions in one statement.
 */
export const sessionStaffField: GraphQLFieldConfig<{ id: number }, GraphQLContext> = {
  // Nullable: without EVENT_VIEW this field is refused, not the session.
  type: sessionStaff.type,
  description:
    "The contacts added to this session's staff (session.addStaff), in the order added; its event's staff are Event.staff (EVENT_VIEW).",
  async resolve(session, _a, ctx): Promise<Page<SessionStaffRow>> {
    requirePermission(ctx, VIEW);
    const rows = await ctx
      .loader('Session.staff', (db) =>
        byOwner(
          (ids) => staffOfSessions(db, ids),
          (r) => r.session_id,
        ),
      )
      .load(session.id);
    return sessionStaff.page(ctx, rows);
  },
};

/** What the staff module needs of the events module's GraphQL face: the type of an event and how to read one. */
export interface EventsFace {
  EventObject: GraphQLObjectType;
  eventById(ctx: GraphQLContext, id: number): Promise<unknown>;
}

/** What it needs of a session's: its type and how to read one. */
export interface SessionsFace {
  SessionObject: GraphQLObjectType;
  sessionById(ctx: GraphQLContext, id: number): Promise<unknown>;
}

const staffInputFields = {
  contactId: {
    type: new GraphQLNonNull(GraphQLID),
    description: 'A Contact id: an instructor (isInstructor) or, for administrator, staff (isStaff, isAdmin).',
  },
  eventId: { type: new GraphQLNonNull(GraphQLID) },
  staffRoleId: {
    type: GraphQLID,
    description: 'Not supported: Lectern keeps no staff roles beyond staffType; a value is refused with a field error.',
  },
  staffType: { type: StaffTypeEnum, description: 'Required (null is refused with a field error).' },
  notes: { type: GraphQLString, description: `At most ${MAX_NOTES} characters. Left out: unchanged on a staff member already there.` },
  requiredSessionsOnly: {
    type: GraphQLBoolean,
    description: 'Teaches only the sessions they are staff of (default false). Left out: unchanged on a staff member already there.',
  },
};

export const EventStaffInput = new GraphQLInputObjectType({ name: 'EventStaffInput', fields: staffInputFields });

export const EventRemoveStaffInput = new GraphQLInputObjectType({
  name: 'EventRemoveStaffInput',
  fields: {
    staffId: { type: new GraphQLNonNull(GraphQLID), description: 'A Staff id (Event.staff).' },
    notifyStaff: { type: GraphQLBoolean, description: 'Lectern sends staff no notifications: true is refused with a field error.' },
  },
});

export const SessionAddStaffInput = new GraphQLInputObjectType({
  name: 'SessionAddStaffInput',
  fields: {
    contactIds: { type: new GraphQLList(GraphQLID), description: `1 to ${MAX_STAFF_PER_CALL} Contact ids.` },
    sessionId: { type: GraphQLID, description: 'A Session id (required).' },
    staffType: { type: StaffTypeEnum, description: 'Required.' },
  },
});

type RawStaff = {
  contactId: string;
  eventId: string;
  staffRoleId?: string | null;
  staffType?: string | null;
  notes?: string | null;
  requiredSessionsOnly?: boolean | null;
};

/** An input item as the service takes it: ids to legacy ids (false: naming nothing usable). */
function itemOf(raw: RawStaff): StaffItem {
  const item: StaffItem = {
    contactId: legacyIdOf('Contact', raw.contactId) ?? false,
    eventId: legacyIdOf('Event', raw.eventId) ?? false,
    staffType: raw.staffType ?? null,
    staffRoleGiven: raw.staffRoleId != null,
    staffRoleId: raw.staffRoleId,
    given: { contactId: raw.contactId, eventId: raw.eventId },
  };
  if ('notes' in raw) item.notes = raw.notes ?? null;
  if (raw.requiredSessionsOnly != null) item.requiredSessionsOnly = raw.requiredSessionsOnly;
  return item;
}

/** Staff reads of this request are read again after a write. */
const forgetStaff = (ctx: GraphQLContext) => {
  ctx.forget('Staff.byId');
  ctx.forget('Session.staff');
};

/**
 * `event { addStaff addStaffBulk removeStaff }`, answering the events module's Event: the app
 * adds them to EventMutations (`extendObject('EventMutations', eventStaffMutations(...))`).
 */
export function eventStaffMutations(events: EventsFace): GraphQLFieldConfigMap<unknown, GraphQLContext> {
  const EventStaffPayload = new GraphQLObjectType({
    name: 'EventStaffPayload',
    fields: () => ({ event: { type: events.EventObject }, errors: fieldErrors }),
  });
  const EventStaffBulkPayload = new GraphQLObjectType({
    name: 'EventStaffBulkPayload',
    fields: () => ({
      events: {
        type: new GraphQLList(new GraphQLNonNull(events.EventObject)),
        description: 'The events staffed, each once (null when refused).',
      },
      errors: fieldErrors,
    }),
  });
  // Payloads hold rows, not promises: the compiled execution (graphql-jit) reads a default-resolved field as it is.
  type Payload = { event: unknown; errors: FieldError[] };
  const eventOf = async (ctx: GraphQLContext, id: number | null | undefined) =>
    id == null ? null : ((await events.eventById(ctx, id)) ?? null);
  return {
    addStaff: {
      type: EventStaffPayload,
      description:
        "Adds a contact to an event's staff (EVENT_EDIT, CONTACT_VIEW). Again with the same contact and type: the one staff member stays, with the notes and requiredSessionsOnly given. The event's first instructor is its primary one. An instructor whose sessions would clash with their other sessions is refused, naming the session and event they clash with.",
      args: { input: { type: new GraphQLNonNull(EventStaffInput) } },
      async resolve(_root, { input }: { input: RawStaff }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        requirePermission(ctx, CONTACTS);
        const { eventIds, problems } = await addEventStaff(ctx.db, [itemOf(input)], false);
        forgetStaff(ctx);
        return { event: await eventOf(ctx, eventIds?.[0]), errors: toFieldErrors(problems) };
      },
    },
    addStaffBulk: {
      type: EventStaffBulkPayload,
      description: `addStaff for several staff members at once (at most ${MAX_STAFF_PER_CALL}), all or none: a single object is a list of one. Problems name \`input[<i>].<field>\`.`,
      args: { input: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(EventStaffInput))) } },
      async resolve(_root, { input }: { input: RawStaff[] }, ctx) {
        requirePermission(ctx, EDIT);
        requirePermission(ctx, CONTACTS);
        const { eventIds, problems } = await addEventStaff(ctx.db, input.map(itemOf), true);
        forgetStaff(ctx);
        return { events: eventIds && (await Promise.all(eventIds.map((id) => eventOf(ctx, id)))), errors: toFieldErrors(problems) };
      },
    },
    removeStaff: {
      type: EventStaffPayload,
      description:
        "Removes a staff member from its event (EVENT_EDIT); the staff member's session staffing stays. A primary instructor's place goes to the instructor added next.",
      args: { input: { type: new GraphQLNonNull(EventRemoveStaffInput) } },
      async resolve(_root, { input }: { input: { staffId: string; notifyStaff?: boolean | null } }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const { eventId, problems } = await removeEventStaff(
          ctx.db,
          legacyIdOf('Staff', input.staffId) ?? false,
          input.notifyStaff,
          input.staffId,
        );
        forgetStaff(ctx);
        return { event: await eventOf(ctx, eventId), errors: toFieldErrors(problems) };
      },
    },
  };
}

/** `Staff.event`, the events module's Event (EVENT_VIEW). */
export function staffEventField(events: EventsFace): GraphQLFieldConfig<EventStaffRow, GraphQLContext> {
  return refField<EventStaffRow>(events.EventObject, VIEW, (s) => s.event_id, events.eventById, 'The event they are staff of.');
}

/** `session { addStaff }`, answering the events module's Session: the app adds it to SessionMutations. */
export function sessionStaffMutations(sessions: SessionsFace): GraphQLFieldConfigMap<unknown, GraphQLContext> {
  const SessionStaffPayload = new GraphQLObjectType({
    name: 'SessionStaffPayload',
    fields: () => ({ session: { type: sessions.SessionObject }, errors: fieldErrors }),
  });
  type Raw = { contactIds?: (string | null)[] | null; sessionId?: string | null; staffType?: string | null };
  return {
    addStaff: {
      type: SessionStaffPayload,
      description:
        "Adds contacts to a session's staff, all or none (EVENT_EDIT, CONTACT_VIEW); one already there with that type stays. An instructor booked at the same time on another session is refused, naming that session and its event.",
      args: { input: { type: new GraphQLNonNull(SessionAddStaffInput) } },
      async resolve(_root, { input }: { input: Raw }, ctx) {
        requirePermission(ctx, EDIT);
        requirePermission(ctx, CONTACTS);
        const contactIds = input.contactIds?.map((id) => (id == null ? null : (legacyIdOf('Contact', id) ?? false)));
        const { sessionId, problems } = await addSessionStaff(ctx.db, {
          sessionId: input.sessionId == null ? null : (legacyIdOf('Session', input.sessionId) ?? false),
          contactIds: contactIds ?? null,
          staffType: input.staffType ?? null,
          given: { sessionId: input.sessionId, contactIds: input.contactIds ?? [] },
        });
        forgetStaff(ctx);
        return {
          session: sessionId == null ? null : ((await sessions.sessionById(ctx, sessionId)) ?? null),
          errors: toFieldErrors(problems),
        };
      },
    },
  };
}
