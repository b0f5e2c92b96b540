import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import { fieldErrors, LifecycleStateEnum, payloadType } from '../../kit/graphql/common.js';
import { CustomFieldValueInput } from '../custom-fields/index.graphql.js';
import { Decimal, PriceObject } from '../pricing/index.graphql.js';
import { LocalDateTime } from './local-date-time.graphql.js';
import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { EventTypeEnum, EventObject } from './event-type.graphql.js';

/** The inputs and payloads of `event { ... }` mutations, as the clients send and read them. */

export const ClassroomEventCreateInput = new GraphQLInputObjectType({
  name: 'ClassroomEventCreateInput',
  fields: {
    courseTemplateId: { type: GraphQLID, description: 'The template the event inherits its title and custom field values from.' },
    localeId: {
      type: GraphQLID,
      description:
        "The delivery locale. Left out: the template's default delivery locale, else its own locale. Explicit null: none. A chosen locale must be one of the template's delivery locales (when it has any).",
    },
    eventType: { type: new GraphQLNonNull(EventTypeEnum) },
    locationId: { type: GraphQLID },
    venueId: { type: GraphQLID, description: 'A Venue id of this instance (venues): where it meets.' },
    taxTypeId: { type: GraphQLID },
    timeZoneName: { type: new GraphQLNonNull(GraphQLString), description: 'IANA zone name, e.g. Europe/London.' },
    classroomStartDateTime: { type: GraphQLString, description: 'Local date-time without a zone, e.g. 2027-03-10T09:00.' },
    classroomEndDateTime: { type: GraphQLString },
    title: {
      type: GraphQLString,
      description: "Left out: inherited from the template in the event's locale (and kept in step when the template is re-applied).",
    },
    code: { type: GraphQLString },
    maxPlaces: { type: GraphQLInt },
    minPlaces: { type: GraphQLInt },
    lifecycleState: { type: LifecycleStateEnum, description: 'Default published.' },
  },
});
export const EventPayload = payloadType('EventPayload', 'event', () => EventObject);

/** What createLMS and createBlended share: a classroom event's keys as those clients name them, and the online period. */
export const deliveredFields = () => ({
  courseTemplateId: { type: GraphQLID, description: 'The template the event inherits its title and custom field values from.' },
  localeId: { type: GraphQLID, description: 'The delivery locale, as in ClassroomEventCreateInput.' },
  eventType: { type: new GraphQLNonNull(EventTypeEnum) },
  title: { type: GraphQLString, description: "Left out: inherited from the template in the event's locale." },
  code: { type: GraphQLString },
  locationId: { type: GraphQLID },
  venueId: { type: GraphQLID, description: 'A Venue id of this instance (venues): where it meets; null: none.' },
  taxType: { type: GraphQLID, description: 'A TaxType id.' },
  timeZoneName: {
    type: GraphQLString,
    description: 'IANA zone name, e.g. Europe/London: the clock of the local date-times. Required (or timeZone).',
  },
  timeZone: {
    type: GraphQLString,
    description: 'The older name of timeZoneName: either may be given, or both naming the same zone.',
    deprecationReason: 'Use timeZoneName.',
  },
  lmsStartDateTime: {
    type: LocalDateTime,
    description: "When the online part starts, on the event's clock. Required (or timeZonedLmsStart).",
  },
  lmsEndDateTime: { type: LocalDateTime, description: 'When the online part ends: after lmsStartDateTime. Required (or timeZonedLmsEnd).' },
  timeZonedLmsStart: {
    type: GraphQLString,
    description:
      "The online start as older clients send it: ISO 8601 with an offset (2024-04-01T00:00:00Z), an instant kept as the event's clock reads it then; without one, on that clock. Instead of lmsStartDateTime.",
  },
  timeZonedLmsEnd: { type: GraphQLString, description: 'The online end as timeZonedLmsStart: instead of lmsEndDateTime.' },
  maxPlaces: { type: GraphQLInt },
  minPlaces: { type: GraphQLInt },
  lifecycleState: { type: LifecycleStateEnum, description: 'Default published.' },
  customFieldValues: {
    type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)),
    description:
      "Values of the event's own custom fields (those that apply to events; null values are left out), beside those inherited from the template.",
  },
});

export const LMSEventCreateInput = new GraphQLInputObjectType({
  name: 'LMSEventCreateInput',
  description: 'An online (LMS) event: an online period and no classroom part.',
  fields: deliveredFields(),
});

export const BlendedEventCreateInput = new GraphQLInputObjectType({
  name: 'BlendedEventCreateInput',
  description: 'A blended event: a classroom part and an online (LMS) part, each with a start and an end.',
  fields: {
    ...deliveredFields(),
    classroomStartDateTime: { type: LocalDateTime, description: "When the classroom part starts, on the event's clock. Required." },
    classroomEndDateTime: { type: LocalDateTime, description: 'When the classroom part ends: after classroomStartDateTime. Required.' },
  },
});

export const EventAddPricesInput = new GraphQLInputObjectType({
  name: 'EventAddPricesInput',
  description: 'A public price of an event: one amount per price level, currency and region (adding one that exists sets its amount).',
  fields: {
    eventId: { type: new GraphQLNonNull(GraphQLID) },
    priceLevelId: { type: new GraphQLNonNull(GraphQLID), description: 'A PriceLevel id.' },
    amount: { type: new GraphQLNonNull(Decimal), description: 'From 0, at most 2 decimals: "495.00".' },
    financialUnitId: { type: new GraphQLNonNull(GraphQLID), description: 'A Currency id (`Currency:GBP` in base64) or an ISO 4217 code.' },
    regionId: { type: GraphQLID, description: 'A Region id; none: the price applies in every region.' },
  },
});

export const EventPricesPayload = new GraphQLObjectType({
  name: 'EventPricesPayload',
  fields: {
    prices: { type: new GraphQLList(new GraphQLNonNull(PriceObject)), description: 'The price written; null when refused.' },
    errors: fieldErrors,
  },
});

export const EventLifecycleStateEnum = new GraphQLEnumType({
  name: 'EventLifecycleState',
  description:
    "An event's lifecycle state as event.update sets it. cancelled also marks the event cancelled for the REST API (is_cancelled) and records when (cancelledAt, kept when it was cancelled already); draft or published takes a cancelled event back (no longer cancelled, no cancelledAt).",
  values: Object.fromEntries(LIFECYCLE_STATES.map((v) => [v, { value: v }])),
});

export const EventUpdateInput = new GraphQLInputObjectType({
  name: 'EventUpdateInput',
  description: 'Only the fields given change; null clears one that may be empty. Anything refused: nothing changes.',
  fields: {
    lifecycleState: { type: EventLifecycleStateEnum },
    isSoldOut: {
      type: GraphQLBoolean,
      description: 'Closes (true) or reopens (false) the event for booking by hand; an event whose places are all taken stays sold out.',
    },
    internalNotes: { type: GraphQLString, description: 'Notes for staff (at most 10,000 characters).' },
    externalNotes: { type: GraphQLString, description: 'Notes for learners (at most 10,000 characters).' },
    customFieldValues: {
      type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)),
      description: "Values of the event's own custom fields (those that apply to events); the others stay. null as a value removes it.",
    },
    title: { type: GraphQLString, description: 'A title of its own: it no longer follows the course template.' },
    code: { type: GraphQLString },
    locationId: { type: GraphQLID },
    courseTemplateId: {
      type: GraphQLID,
      description: 'The template it belongs to. What it inherited stays until the template is re-applied (courseTemplate.applyToEvents).',
    },
    timeZoneName: {
      type: GraphQLString,
      description: 'IANA zone name, e.g. Europe/London. The local times stay as they are: the instants move with the zone.',
    },
    minPlaces: { type: GraphQLInt },
    maxPlaces: { type: GraphQLInt },
    targetFillRate: { type: GraphQLInt, description: 'The percent of its places the organiser aims to fill (0 to 100).' },
    registrationDeadline: {
      type: GraphQLString,
      description: "The last day to register (2027-03-01; of a date-time, its date), in the event's time zone.",
    },
    registrationOpensAt: {
      type: GraphQLString,
      description: "When registration opens: a local date-time without a zone (2027-02-01T09:00), in the event's time zone.",
    },
    remoteMeetingUrl: { type: GraphQLString, description: 'Where an online event meets: an http or https address.' },
  },
});

export const EventDeleteInput = new GraphQLInputObjectType({
  name: 'EventDeleteInput',
  fields: { eventIds: { type: new GraphQLNonNull(new GraphQLList(GraphQLID)), description: 'At most 100 events.' } },
});

export const EventDeletePayload = new GraphQLObjectType({
  name: 'EventDeletePayload',
  fields: {
    eventIds: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLID))),
      description: 'The events deleted; empty when refused.',
    },
    errors: fieldErrors,
  },
});
