import DataLoader from 'dataloader';
import { GraphQLBoolean, GraphQLEnumType, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { LifecycleStateEnum } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { extendObject, extensionFields } from '../../kit/graphql/extensions.js';
import { refField } from '../../kit/graphql/permissions.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { CourseTemplateObject, courseTemplateById, LearningModeEnum } from '../course-templates/index.graphql.js';
import { customFieldValuesField, customFieldValuesOf } from '../custom-fields/index.graphql.js';
import { valuesOf as fieldValuesOf, type EventFieldValue, type FieldValueRow } from '../custom-fields/index.js';
import { LocaleObject, localeById } from '../locales/index.graphql.js';
import { LocationObject, locationById } from '../locations/index.graphql.js';
import { VenueObject, venueById } from '../venues/index.graphql.js';
import { TaxTypeObject, taxTypeById } from '../tax-types/index.graphql.js';
import { Decimal, pricesField } from '../pricing/index.graphql.js';
import { type EventRow } from './events.service.js';
import { placesBooked } from './events.data.js';
import { eventsByIds } from './events.data.js';
import {
  EVENT_STATUSES,
  EVENT_TYPES,
  eventCancelledAt,
  eventSoldOut,
  eventStatus,
  LEARNING_MODES,
  localPeriod,
  placesLeft,
} from './events.rules.js';
import { utcInstant, utcStamp } from '../../platform/util/local-time.js';
import { eventSessionsField } from './session-type.graphql.js';
import type { SessionRow } from './sessions.data.js';

/**
 * Event in GraphQL (the REST API's public event): its locale and what it inherited from its
 * course template, the fields real integrations read (places, status, times as instants,
 * prices). Its list: events-list.graphql.ts; its mutations: event-mutations.graphql.ts (inputs in
 * event-inputs.graphql.ts). EVENT_VIEW.
 */
const VIEW = 'EVENT_VIEW';

export const EventTypeEnum = new GraphQLEnumType({
  name: 'EventType',
  description: 'public: open to anyone; private: run for one customer.',
  values: Object.fromEntries(EVENT_TYPES.map((t) => [t, { value: t }])),
});

export const eventById = (ctx: GraphQLContext, id: number) =>
  ctx.loader('Event.byId', (db) => byId((ids) => eventsByIds(db, ids))).load(id);
const valuesOf = (ctx: GraphQLContext) =>
  ctx.loader('Event.values', (db) =>
    byOwner<FieldValueRow>(
      (ids) => fieldValuesOf(db, 'event', ids),
      (r) => (r as unknown as EventFieldValue).event_id,
    ),
  );
/** Places taken on events, batched per request. */
export const bookedOf = (ctx: GraphQLContext) =>
  ctx.loader(
    'Event.booked',
    (db) =>
      new DataLoader<number, number>(async (ids) => {
        const booked = await placesBooked(db, [...ids]);
        return ids.map((id) => booked.get(id) ?? 0);
      }),
  );

const INSTANT = 'ISO 8601 in UTC, to the second (2027-03-10T09:00:00Z): the local date-time in timeZoneName as an instant.';
/** A local date-time of the event (in its time zone) as an instant. */
const instant = (pick: (e: EventRow) => string | null, description: string) => ({
  type: GraphQLString,
  description: `${description} ${INSTANT}`,
  resolve: (e: EventRow) => utcInstant(pick(e), e.time_zone_name),
});
/** Whether the event takes no more bookings (eventSoldOut): closed by hand, or its places are taken. */
const soldOut = async (e: EventRow, ctx: GraphQLContext) => eventSoldOut(e, await bookedOf(ctx).load(e.id));
/** Places left (placesLeft); null when the event has no maximum. */
const left = async (e: EventRow, ctx: GraphQLContext) => (e.delegates_max === null ? null : placesLeft(e, await bookedOf(ctx).load(e.id)));

const RemoteMeetingObject = new GraphQLObjectType<{ url: string }, GraphQLContext>({
  name: 'RemoteMeeting',
  description: 'Where an online event meets.',
  fields: { url: { type: new GraphQLNonNull(GraphQLString) } },
});

export const EventObject: GraphQLObjectType<EventRow, GraphQLContext> = new GraphQLObjectType<EventRow, GraphQLContext>({
  name: 'Event',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Event'),
    code: { type: GraphQLString },
    title: {
      type: new GraphQLNonNull(GraphQLString),
      description: "Inherited from the course template in the event's locale unless written for the event (see inheritsTitle).",
    },
    inheritsTitle: {
      type: new GraphQLNonNull(GraphQLBoolean),
      resolve: (e) => e.title_cascades,
      description: "The title follows the template (in the event's locale) when the template is re-applied.",
    },
    eventType: { type: new GraphQLNonNull(EventTypeEnum), resolve: (e) => e.type },
    lifecycleState: { type: new GraphQLNonNull(LifecycleStateEnum), resolve: (e) => e.lifecycle_state },
    isCancelled: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (e) => e.is_cancelled },
    locale: {
      type: LocaleObject,
      description: 'The language the event is delivered in.',
      resolve: (e, _a, ctx) => localeById(ctx, e.locale_id),
    },
    inheritsLocale: {
      type: new GraphQLNonNull(GraphQLBoolean),
      resolve: (e) => e.locale_cascades,
      description:
        "The locale follows the template's delivery chain (default delivery locale, else its own) when the template is re-applied; false when one was chosen, and for duplicated events.",
    },
    courseTemplate: refField<EventRow>(CourseTemplateObject, 'COURSE_TEMPLATE_VIEW', (e) => e.course_template_id, courseTemplateById),
    customFieldValues: {
      ...customFieldValuesField,
      resolve: async (e, _a, ctx) => customFieldValuesOf(ctx, await valuesOf(ctx).load(e.id), null),
    },
    timeZoneName: { type: GraphQLString, resolve: (e) => e.time_zone_name, description: 'IANA zone the local date-times are in.' },
    classroomStartDateTime: {
      type: GraphQLString,
      resolve: (e) => e.classroom_start,
      description: 'Local date-time (no zone) in timeZoneName.',
    },
    classroomEndDateTime: { type: GraphQLString, resolve: (e) => e.classroom_end },
    lmsStartDateTime: {
      type: GraphQLString,
      resolve: (e) => e.lms_start,
      description: 'When its online (LMS) part starts: a local date-time (no zone) in timeZoneName; null for a classroom event.',
    },
    lmsEndDateTime: {
      type: GraphQLString,
      resolve: (e) => e.lms_end,
      description: 'When its online (LMS) part ends, as lmsStartDateTime.',
    },
    startDate: { type: GraphQLString, resolve: (e) => e.start_date },
    endDate: { type: GraphQLString, resolve: (e) => e.end_date },
    location: refField<EventRow>(LocationObject, 'LOCATION_VIEW', (e) => e.location_id, locationById),
    taxType: refField<EventRow>(TaxTypeObject, 'TAX_TYPE_VIEW', (e) => e.tax_type_id, taxTypeById),
    maxPlaces: { type: GraphQLInt, resolve: (e) => e.delegates_max },
    minPlaces: { type: GraphQLInt, resolve: (e) => e.min_places },
    placesBooked: { type: new GraphQLNonNull(GraphQLInt), resolve: (e, _a, ctx) => bookedOf(ctx).load(e.id) },
    placesLeft: { type: GraphQLInt, description: 'null when the event has no maximum.', resolve: (e, _a, ctx) => left(e, ctx) },
    price: {
      // A Decimal as every other Core amount (Price.amount), exact and with the digits stored: it
      // was a Float (395.5 for 395.50). Clients select it as a leaf and show it (real-clients.md
      // section 3), which a string serves as well; none does arithmetic on it.
      type: Decimal,
      description:
        'Its own price in currencyCode (the REST API\'s price), exact: "395.50". Its public prices per level, currency and region are `prices`.',
      resolve: (e) => e.price,
    },
    prices: pricesField('event', 'Its public prices (event.addPrices): every price level, currency and region.'),
    currencyCode: { type: GraphQLString, resolve: (e) => e.currency_code },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (e) => e.created_on },
    updatedOn: { type: new GraphQLNonNull(GraphQLString), resolve: (e) => e.updated_on },
    status: {
      type: new GraphQLNonNull(GraphQLString),
      description: `One of ${EVENT_STATUSES.join(', ')}: Cancelled when the event is cancelled (lifecycleState cancelled, or isCancelled), Draft while lifecycleState is draft, else Active.`,
      resolve: (e) => eventStatus(e),
    },
    isActive: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'status is Active: published and not cancelled.',
      resolve: (e) => eventStatus(e) === 'Active',
    },
    type: { type: new GraphQLNonNull(EventTypeEnum), description: 'The same as eventType.', resolve: (e) => e.type },
    learningMode: {
      type: new GraphQLNonNull(LearningModeEnum),
      description: `How it is delivered: ${LEARNING_MODES.join(', ')} (as CourseTemplate.eventLearningMode).`,
      resolve: (e) => e.delivery_method,
    },
    start: instant(
      (e) => localPeriod(e).start,
      'When it starts: the earlier of its classroom and online (LMS) starts, else its start date and time.',
    ),
    end: instant((e) => localPeriod(e).end, 'When it ends: the later of its classroom and online (LMS) ends, else its end date and time.'),
    classroomStart: instant((e) => e.classroom_start, 'When its classroom part starts.'),
    classroomEnd: instant((e) => e.classroom_end, 'When its classroom part ends.'),
    lmsStart: instant((e) => e.lms_start, 'When its online (LMS) part starts.'),
    lmsEnd: instant((e) => e.lms_end, 'When its online (LMS) part ends.'),
    registrationDeadline: instant(
      (e) => (e.registration_deadline ? `${e.registration_deadline}T23:59:59` : null),
      'The end (23:59:59 local) of the last day to register.',
    ),
    registrationOpensAt: instant((e) => e.registration_opens_at, 'When registration opens.'),
    bookedPlaces: {
      type: new GraphQLNonNull(GraphQLInt),
      description: 'Places taken (as placesBooked).',
      resolve: (e, _a, ctx) => bookedOf(ctx).load(e.id),
    },
    remainingPlaces: {
      type: GraphQLInt,
      description: 'Places left (as placesLeft); null when the event has no maximum.',
      resolve: (e, _a, ctx) => left(e, ctx),
    },
    reserved: {
      type: new GraphQLNonNull(GraphQLInt),
      description: "Places held without a booking: Lectern takes bookings only, so always 0 (as the REST API's delegates_reserved).",
      resolve: () => 0,
    },
    isSoldOut: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'No more bookings: closed by hand (event.update isSoldOut), or every place is taken.',
      resolve: (e, _a, ctx) => soldOut(e, ctx),
    },
    hasPlacesRemaining: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'Not isSoldOut.',
      resolve: async (e, _a, ctx) => !(await soldOut(e, ctx)),
    },
    targetFillRate: {
      type: GraphQLInt,
      description: 'The percent of its places the organiser aims to fill (0 to 100).',
      resolve: (e) => e.target_fill_rate,
    },
    internalNotes: { type: GraphQLString, description: 'Notes for staff.', resolve: (e) => e.internal_notes },
    externalNotes: { type: GraphQLString, description: 'Notes for learners.', resolve: (e) => e.external_notes },
    cancelledAt: {
      type: GraphQLString,
      description:
        'When it was cancelled (ISO 8601 in UTC); null unless status is Cancelled. An event cancelled through the REST API before this was recorded shows its last change.',
      resolve: (e) => eventCancelledAt(e),
    },
    createdAt: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'createdOn as an instant (ISO 8601 in UTC).',
      resolve: (e) => utcStamp(e.created_on),
    },
    updatedAt: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'updatedOn as an instant (ISO 8601 in UTC).',
      resolve: (e) => utcStamp(e.updated_on),
    },
    venue: refField<EventRow>(
      VenueObject,
      'LOCATION_VIEW',
      (e) => e.venue_id,
      venueById,
      'The venue it meets in (LOCATION_VIEW); null: none.',
    ),
    sessions: eventSessionsField,
    remoteMeeting: {
      type: RemoteMeetingObject,
      description: 'null when the event has no meeting address.',
      resolve: (e) => (e.remote_meeting_url ? { url: e.remote_meeting_url } : null),
    },
    ...extensionFields('Event'),
  }),
});

registerNode('Event', { permission: VIEW, load: (ctx, id) => eventById(ctx, id) });

// A session's event: Event spreads its sessions (session-type.graphql.ts), so that file cannot name Event back.
extendObject('Session', {
  event: {
    type: EventObject,
    description: 'The event it is a meeting of (null only for a deleted session whose event is gone too).',
    resolve: async (s: SessionRow, _a: unknown, ctx: GraphQLContext) => (await eventById(ctx, s.event_id)) ?? null,
  },
});
