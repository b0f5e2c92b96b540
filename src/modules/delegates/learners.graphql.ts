import { GraphQLBoolean, GraphQLEnumType, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { listQuery, nestedList, wholeConnection } from '../../kit/graphql/lists.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { refField } from '../../kit/graphql/permissions.js';
import { utcStamp } from '../../platform/util/local-time.js';
import { contactField } from '../crm/index.graphql.js';
import { EventObject, eventById, SessionObject, sessionById } from '../events/index.graphql.js';
import { Delegate, learnersByIds, type DelegateRow } from './delegates.data.js';
import { attendancesOf, LEARNER_LIST_SQL, type LearnerAttendanceRow } from './learners.data.js';

/**
 * Learners in Core GraphQL: a contact's place on an event (a named delegate row: the rows REST v2
 * `event/delegates` and the order pipeline write; rows of places bought without names are not
 * learners), id `Learner:<delegate id>`. The `learners` list, `Contact.learners` and
 * `Event.learners`, the attendance of each, and `node(id)` (webhooks' Learner Created / Cancelled
 * stored queries). DELEGATE_VIEW, as REST's delegates.
 */
const VIEW = 'DELEGATE_VIEW';
const INSTANT = 'ISO 8601 in UTC, to the second (2027-03-10T09:00:00Z).';
const INSTANT_FILTER = 'ISO 8601 (2025-06-01T00:00:00Z, or with an offset; a date alone is its midnight UTC).';

/** This request's learner with this id (a named delegate row), or undefined; a page's learners in one statement. */
export const learnerById = (ctx: GraphQLContext, id: number): Promise<DelegateRow | undefined> =>
  ctx.loader('Learner.byId', (db) => byId((ids) => learnersByIds(db, ids))).load(id);

/** A page's learners' attendance in one statement. */
const attendanceOf = (ctx: GraphQLContext, learnerId: number): Promise<LearnerAttendanceRow[]> =>
  ctx
    .loader('Learner.attendance', (db) =>
      byOwner<LearnerAttendanceRow>(
        (ids) => attendancesOf(db, ids),
        (r) => r.delegate_id,
      ),
    )
    .load(learnerId);

/** Loaders a write of learners makes stale: the learners, their attendance, their events' places. */
export function forgetLearners(ctx: GraphQLContext): void {
  for (const key of ['Learner.byId', 'Learner.attendance', 'Event.booked', 'Event.byId']) ctx.forget(key);
}

/** Where a learner stands: `cancelled` once the place is cancelled (`cancelled_date` set), else `active`. */
export const LearnerLifecycleStateEnum = new GraphQLEnumType({
  name: 'LearnerLifecycleState',
  description: 'active, or cancelled once the place is cancelled.',
  values: { active: { value: 'active' }, cancelled: { value: 'cancelled' } },
});

/** Whether a learner attended one session of its event, as recorded (learner { recordAttendances }). */
const SessionAttendanceObject = new GraphQLObjectType<LearnerAttendanceRow, GraphQLContext>({
  name: 'SessionAttendance',
  description: "A learner's attendance of one session of its event, as recorded.",
  fields: () => ({
    session: refField<LearnerAttendanceRow>(SessionObject, 'EVENT_VIEW', (a) => a.session_id, sessionById, 'The session (EVENT_VIEW).'),
    attended: { type: new GraphQLNonNull(GraphQLBoolean) },
    recordedAt: {
      type: new GraphQLNonNull(GraphQLString),
      description: `When it was last recorded. ${INSTANT}`,
      resolve: (a) => utcStamp(a.recorded_on),
    },
  }),
});
const sessionAttendances = wholeConnection<LearnerAttendanceRow>('SessionAttendance', () => SessionAttendanceObject);

/** A learner's attendance: its sessions' records (`attendance { sessionDetail { edges { node { session { id } } } } }`, as clients read it). */
const LearnerAttendanceObject = new GraphQLObjectType<LearnerAttendanceRow[], GraphQLContext>({
  name: 'LearnerAttendance',
  description: "A learner's attendance of its event's sessions.",
  fields: () => ({
    sessionDetail: {
      type: new GraphQLNonNull(sessionAttendances.type),
      description: 'One record per session whose attendance was recorded, in the order of the sessions.',
      resolve: (rows, _a, ctx) => sessionAttendances.page(ctx, rows),
    },
  }),
});

/** A learner: a contact's place on an event. */
export const LearnerObject = new GraphQLObjectType<DelegateRow, GraphQLContext>({
  name: 'Learner',
  description: "A contact's place on an event (a named delegate: REST v2's event/delegates with a contact_id).",
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Learner'),
    lifecycleState: {
      type: new GraphQLNonNull(LearnerLifecycleStateEnum),
      resolve: (d) => (d.cancelled_date === null ? 'active' : 'cancelled'),
    },
    isActive: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'lifecycleState is active.',
      resolve: (d) => d.cancelled_date === null,
    },
    isCancelled: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'lifecycleState is cancelled.',
      resolve: (d) => d.cancelled_date !== null,
    },
    createdAt: {
      type: new GraphQLNonNull(GraphQLString),
      description: `When it was registered. ${INSTANT}`,
      resolve: (d) => utcStamp(d.created_on),
    },
    expiresAt: {
      type: GraphQLString,
      description: `When its access ends (online events); null: it does not. ${INSTANT}`,
      resolve: (d) => utcStamp(d.expires_at),
    },
    contact: contactField<DelegateRow>((d) => d.contact_id, 'The person who holds the place (CONTACT_VIEW).'),
    event: refField<DelegateRow>(EventObject, 'EVENT_VIEW', (d) => d.event_id, eventById, 'The event the place is on (EVENT_VIEW).'),
    attendance: {
      type: new GraphQLNonNull(LearnerAttendanceObject),
      description: "Its attendance of its event's sessions.",
      resolve: (d, _a, ctx) => attendanceOf(ctx, d.id),
    },
  }),
});

registerNode('Learner', { permission: VIEW, load: (ctx, id) => learnerById(ctx, id) });

/** `learners(filters, order, first, offset, after)`: every learner of the instance (DELEGATE_VIEW). */
export const learnersQuery = listQuery<DelegateRow>({
  typeName: 'Learner',
  table: Delegate.tableName,
  permission: VIEW,
  node: () => LearnerObject,
  description: 'Learners: contacts registered on events (DELEGATE_VIEW).',
  defaultOrder: { field: 'id', direction: 'asc' },
  scope: (q) => q.whereNotNull('t.contact_id'),
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Learner', orderable: true },
    eventId: { column: 'event_id', kind: 'ref', refType: 'Event', description: 'An Event id (as event).' },
    contactId: { column: 'contact_id', kind: 'ref', refType: 'Contact', description: 'A Contact id (as contact).' },
    lifecycleState: {
      column: 'lifecycle_state',
      expression: LEARNER_LIST_SQL.lifecycleState,
      kind: 'enum',
      enumValues: ['active', 'cancelled'],
      normalize: (v) => v.toLowerCase(),
      description: 'active or cancelled (any case), as lifecycleState.',
    },
    isActive: {
      column: 'is_active',
      expression: LEARNER_LIST_SQL.isActive,
      kind: 'bool',
      description: "'true': lifecycleState is active.",
    },
    isCancelled: {
      column: 'is_cancelled',
      expression: LEARNER_LIST_SQL.isCancelled,
      kind: 'bool',
      description: "'true': lifecycleState is cancelled.",
    },
    contactEmailAddress: {
      column: 'contact_email_address',
      expression: LEARNER_LIST_SQL.contactEmailAddress,
      kind: 'text',
      normalize: (v) => v.toLowerCase(),
      orderable: true,
      permission: 'CONTACT_VIEW',
      description: "Its contact's e-mail address, whatever its case (CONTACT_VIEW): eq, in, like...",
    },
    createdAt: {
      column: 'created_on',
      expression: LEARNER_LIST_SQL.createdAt,
      kind: 'instant',
      orderable: true,
      description: INSTANT_FILTER,
    },
    expiresAt: {
      column: 'expires_at',
      expression: LEARNER_LIST_SQL.expiresAt,
      kind: 'instant',
      orderable: true,
      description: INSTANT_FILTER,
    },
  },
});

/** `Contact.learners(filters...)`: the contact's places (wp "my workshops": contact -> learners -> events). */
export const contactLearnersField = nestedList<{ id: number }>(learnersQuery, {
  parentColumn: 'contact_id',
  parentId: (c) => c.id,
  description: "The contact's places on events, as the learners list answers them (DELEGATE_VIEW).",
});

/** `Event.learners(filters...)`: the event's learners. */
export const eventLearnersField = nestedList<{ id: number }>(learnersQuery, {
  parentColumn: 'event_id',
  parentId: (e) => e.id,
  description: 'The contacts registered on the event, as the learners list answers them (DELEGATE_VIEW).',
});
