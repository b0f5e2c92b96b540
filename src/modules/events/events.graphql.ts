import DataLoader from 'dataloader';
import { GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { fieldErrors, LifecycleState, payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { badInput, fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { hasPermission } from '../../platform/permissions.js';
import type { Problem } from '../../platform/problems.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf, toGlobalId } from '../../kit/graphql/ids.js';
import { listQuery, nestedList, type ListField } from '../../kit/graphql/lists.js';
import type { Knex } from '../../platform/db/knex.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { CourseTemplate, courseTemplateById, extendCourseTemplate, LearningModeEnum } from '../course-templates/index.graphql.js';
import type { CourseTemplateRow } from '../course-templates/index.js';
import { allDefinitions, CustomFieldValueInput, customFieldValuesField, customFieldValuesOf } from '../custom-fields/index.graphql.js';
import { type ValueInput, valuesOf as fieldValuesOf, type EventFieldValue, type FieldValueRow } from '../custom-fields/index.js';
import { Locale, localeById, supportedLocale } from '../locales/index.graphql.js';
import { Location, locationById } from '../locations/index.graphql.js';
import { TaxType, taxTypeById } from '../tax-types/index.graphql.js';
import { addPriceFor, Decimal, Price, pricesField, type PriceArgs, type PricesPayload } from '../pricing/index.graphql.js';
import { createClassroomEvent, createDeliveredEvent, deleteEvents, duplicateEvent, updateEvent, type ClassroomInput, type DeliveredInput, type EventRow, type EventUpdateInput as UpdateInput } from './events.service.js';
import { LocalDateTime } from './local-date-time.graphql.js';
import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { placesBooked } from './events.data.js';
import { Event as EventModel, EVENT_LIST_SQL, eventsByIds, eventTextConditions } from './events.data.js';
import {
  DAYS_OF_WEEK,
  dayOfWeekName,
  EVENT_STATUSES,
  EVENT_TYPES,
  eventCancelledAt,
  eventSoldOut,
  eventStatus,
  LEARNING_MODES,
  localPeriod,
  MAX_SEARCH_WORDS,
  placesLeft,
  searchWords,
} from './events.rules.js';
import { utcInstant, utcStamp } from '../../platform/util/local-time.js';

/**
 * Event in GraphQL (the REST API's public event): its locale and what it inherited from its
 * course template, the fields real integrations read (places, status, times as instants,
 * prices), the `events` list (also as `CourseTemplate.events`), and `event { createClassroom
 * createLMS createBlended duplicate update delete addPrices }`. EVENT_VIEW / EVENT_EDIT.
 */
const VIEW = 'EVENT_VIEW';
const EDIT = 'EVENT_EDIT';

export const EventType = new GraphQLEnumType({
  name: 'EventType',
  description: 'public: open to anyone; private: run for one customer.',
  values: Object.fromEntries(EVENT_TYPES.map((t) => [t, { value: t }])),
});

export const eventById = (ctx: GraphQLContext, id: number) => ctx.loader('Event.byId', (db) => byId((ids) => eventsByIds(db, ids))).load(id);
const valuesOf = (ctx: GraphQLContext) => ctx.loader('Event.values', (db) => byOwner<FieldValueRow>((ids) => fieldValuesOf(db, 'event', ids), (r) => (r as unknown as EventFieldValue).event_id));
/** Places taken on events, batched per request. */
export const bookedOf = (ctx: GraphQLContext) =>
  ctx.loader('Event.booked', (db) => new DataLoader<number, number>(async (ids) => {
    const booked = await placesBooked(db, [...ids]);
    return ids.map((id) => booked.get(id) ?? 0);
  }));

/** Prices are numeric in PostgreSQL (strings in JS): answered as numbers. */
const money = (v: string | null) => (v === null ? null : Number(v));

const INSTANT = 'ISO 8601 in UTC, to the second (2027-03-10T09:00:00Z): the local date-time in timeZoneName as an instant.';
/** A local date-time of the event (in its time zone) as an instant. */
const instant = (pick: (e: EventRow) => string | null, description: string) => ({ type: GraphQLString, description: `${description} ${INSTANT}`, resolve: (e: EventRow) => utcInstant(pick(e), e.time_zone_name) });
/** Whether the event takes no more bookings (eventSoldOut): closed by hand, or its places are taken. */
const soldOut = async (e: EventRow, ctx: GraphQLContext) => eventSoldOut(e, await bookedOf(ctx).load(e.id));
/** Places left (placesLeft); null when the event has no maximum. */
const left = async (e: EventRow, ctx: GraphQLContext) => (e.delegates_max === null ? null : placesLeft(e, await bookedOf(ctx).load(e.id)));

/** Lectern keeps no venue records: an event shows the venue the REST API recorded on it. */
const Venue = new GraphQLObjectType<{ id: number; name: string | null }, GraphQLContext>({
  name: 'Venue',
  description: "Lectern keeps no venues of its own: this is the venue the REST API recorded on an event (its venue_id and venue name). Its id cannot be looked up with node(id:).",
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (v) => toGlobalId('Venue', v.id) },
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (v) => v.id },
    name: { type: GraphQLString },
  },
});

const RemoteMeeting = new GraphQLObjectType<{ url: string }, GraphQLContext>({
  name: 'RemoteMeeting',
  description: 'Where an online event meets.',
  fields: { url: { type: new GraphQLNonNull(GraphQLString) } },
});

export const Event: GraphQLObjectType<EventRow, GraphQLContext> = new GraphQLObjectType<EventRow, GraphQLContext>({
  name: 'Event',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Event'),
    code: { type: GraphQLString },
    title: { type: new GraphQLNonNull(GraphQLString), description: "Inherited from the course template in the event's locale unless written for the event (see inheritsTitle)." },
    inheritsTitle: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (e) => e.title_cascades, description: 'The title follows the template (in the event\'s locale) when the template is re-applied.' },
    eventType: { type: new GraphQLNonNull(EventType), resolve: (e) => e.type },
    lifecycleState: { type: new GraphQLNonNull(LifecycleState), resolve: (e) => e.lifecycle_state },
    isCancelled: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (e) => e.is_cancelled },
    locale: { type: Locale, description: 'The language the event is delivered in.', resolve: (e, _a, ctx) => localeById(ctx, e.locale_id) },
    inheritsLocale: {
      type: new GraphQLNonNull(GraphQLBoolean),
      resolve: (e) => e.locale_cascades,
      description: "The locale follows the template's delivery chain (default delivery locale, else its own) when the template is re-applied; false when one was chosen, and for duplicated events.",
    },
    courseTemplate: refField<EventRow>(CourseTemplate, 'COURSE_TEMPLATE_VIEW', (e) => e.course_template_id, courseTemplateById),
    customFieldValues: { ...customFieldValuesField, resolve: async (e, _a, ctx) => customFieldValuesOf(ctx, await valuesOf(ctx).load(e.id), null) },
    timeZoneName: { type: GraphQLString, resolve: (e) => e.time_zone_name, description: 'IANA zone the local date-times are in.' },
    classroomStartDateTime: { type: GraphQLString, resolve: (e) => e.classroom_start, description: 'Local date-time (no zone) in timeZoneName.' },
    classroomEndDateTime: { type: GraphQLString, resolve: (e) => e.classroom_end },
    lmsStartDateTime: { type: GraphQLString, resolve: (e) => e.lms_start, description: 'When its online (LMS) part starts: a local date-time (no zone) in timeZoneName; null for a classroom event.' },
    lmsEndDateTime: { type: GraphQLString, resolve: (e) => e.lms_end, description: 'When its online (LMS) part ends, as lmsStartDateTime.' },
    startDate: { type: GraphQLString, resolve: (e) => e.start_date },
    endDate: { type: GraphQLString, resolve: (e) => e.end_date },
    location: refField<EventRow>(Location, 'LOCATION_VIEW', (e) => e.location_id, locationById),
    taxType: refField<EventRow>(TaxType, 'TAX_TYPE_VIEW', (e) => e.tax_type_id, taxTypeById),
    maxPlaces: { type: GraphQLInt, resolve: (e) => e.delegates_max },
    minPlaces: { type: GraphQLInt, resolve: (e) => e.min_places },
    placesBooked: { type: new GraphQLNonNull(GraphQLInt), resolve: (e, _a, ctx) => bookedOf(ctx).load(e.id) },
    placesLeft: { type: GraphQLInt, description: 'null when the event has no maximum.', resolve: (e, _a, ctx) => left(e, ctx) },
    price: { type: GraphQLFloat, resolve: (e) => money(e.price) },
    prices: pricesField('event', 'Its public prices (event.addPrices): every price level, currency and region.'),
    currencyCode: { type: GraphQLString, resolve: (e) => e.currency_code },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (e) => e.created_on },
    updatedOn: { type: new GraphQLNonNull(GraphQLString), resolve: (e) => e.updated_on },
    status: {
      type: new GraphQLNonNull(GraphQLString),
      description: `One of ${EVENT_STATUSES.join(', ')}: Cancelled when the event is cancelled (lifecycleState cancelled, or isCancelled), Draft while lifecycleState is draft, else Active.`,
      resolve: (e) => eventStatus(e),
    },
    isActive: { type: new GraphQLNonNull(GraphQLBoolean), description: 'status is Active: published and not cancelled.', resolve: (e) => eventStatus(e) === 'Active' },
    type: { type: new GraphQLNonNull(EventType), description: 'The same as eventType.', resolve: (e) => e.type },
    learningMode: { type: new GraphQLNonNull(LearningModeEnum), description: `How it is delivered: ${LEARNING_MODES.join(', ')} (as CourseTemplate.eventLearningMode).`, resolve: (e) => e.delivery_method },
    start: instant((e) => localPeriod(e).start, 'When it starts: the earlier of its classroom and online (LMS) starts, else its start date and time.'),
    end: instant((e) => localPeriod(e).end, 'When it ends: the later of its classroom and online (LMS) ends, else its end date and time.'),
    classroomStart: instant((e) => e.classroom_start, 'When its classroom part starts.'),
    classroomEnd: instant((e) => e.classroom_end, 'When its classroom part ends.'),
    lmsStart: instant((e) => e.lms_start, 'When its online (LMS) part starts.'),
    lmsEnd: instant((e) => e.lms_end, 'When its online (LMS) part ends.'),
    registrationDeadline: instant((e) => (e.registration_deadline ? `${e.registration_deadline}T23:59:59` : null), 'The end (23:59:59 local) of the last day to register.'),
    registrationOpensAt: instant((e) => e.registration_opens_at, 'When registration opens.'),
    bookedPlaces: { type: new GraphQLNonNull(GraphQLInt), description: 'Places taken (as placesBooked).', resolve: (e, _a, ctx) => bookedOf(ctx).load(e.id) },
    remainingPlaces: { type: GraphQLInt, description: 'Places left (as placesLeft); null when the event has no maximum.', resolve: (e, _a, ctx) => left(e, ctx) },
    reserved: { type: new GraphQLNonNull(GraphQLInt), description: 'Places held without a booking: Lectern takes bookings only, so always 0 (as the REST API\'s delegates_reserved).', resolve: () => 0 },
    isSoldOut: { type: new GraphQLNonNull(GraphQLBoolean), description: 'No more bookings: closed by hand (event.update isSoldOut), or every place is taken.', resolve: (e, _a, ctx) => soldOut(e, ctx) },
    hasPlacesRemaining: { type: new GraphQLNonNull(GraphQLBoolean), description: 'Not isSoldOut.', resolve: async (e, _a, ctx) => !(await soldOut(e, ctx)) },
    targetFillRate: { type: GraphQLInt, description: 'The percent of its places the organiser aims to fill (0 to 100).', resolve: (e) => e.target_fill_rate },
    internalNotes: { type: GraphQLString, description: 'Notes for staff.', resolve: (e) => e.internal_notes },
    externalNotes: { type: GraphQLString, description: 'Notes for learners.', resolve: (e) => e.external_notes },
    cancelledAt: {
      type: GraphQLString,
      description: 'When it was cancelled (ISO 8601 in UTC); null unless status is Cancelled. An event cancelled through the REST API before this was recorded shows its last change.',
      resolve: (e) => eventCancelledAt(e),
    },
    createdAt: { type: new GraphQLNonNull(GraphQLString), description: 'createdOn as an instant (ISO 8601 in UTC).', resolve: (e) => utcStamp(e.created_on) },
    updatedAt: { type: new GraphQLNonNull(GraphQLString), description: 'updatedOn as an instant (ISO 8601 in UTC).', resolve: (e) => utcStamp(e.updated_on) },
    venue: { type: Venue, description: 'The venue the REST API recorded (venue_id); null otherwise: Lectern keeps no venues.', resolve: (e) => (e.venue_id === null ? null : { id: e.venue_id, name: e.venue }) },
    remoteMeeting: { type: RemoteMeeting, description: 'null when the event has no meeting address.', resolve: (e) => (e.remote_meeting_url ? { url: e.remote_meeting_url } : null) },
  }),
});

registerNode('Event', { permission: VIEW, load: (ctx, id) => eventById(ctx, id) });

const capitalised = (v: string) => v.charAt(0).toUpperCase() + v.slice(1).toLowerCase();
const TEMPLATE_VIEW = 'COURSE_TEMPLATE_VIEW';
const LOCATION_VIEW = 'LOCATION_VIEW';

/**
 * The `textSearch` filters of one events list, as one condition: the different words of all
 * their values (at most MAX_SEARCH_WORDS, else the request is refused before anything is read),
 * looked for in the texts the caller may see: the event's own, its template's with
 * COURSE_TEMPLATE_VIEW, its location's with LOCATION_VIEW. Each word past the filters' values
 * counts as one more filter value of the request (the list counted the values already).
 */
function textSearchOf(args: Record<string, unknown>, ctx: GraphQLContext): (q: Knex.QueryBuilder) => void {
  type Given = { field?: unknown; value?: unknown; values?: unknown };
  const filters = ((args.filters as (Given | null)[] | null | undefined) ?? []).filter((f): f is Given => f?.field === 'textSearch');
  if (!filters.length) return () => undefined;
  const texts = filters.flatMap((f) => [f.value, ...(Array.isArray(f.values) ? f.values : [])]).filter((v): v is string => typeof v === 'string');
  const words = searchWords(texts);
  if (words.length > MAX_SEARCH_WORDS) throw badInput(`Filter on textSearch: at most ${MAX_SEARCH_WORDS} different words in one list's textSearch filters (${words.length} given)`);
  const counted = filters.reduce((n, f) => n + Math.max(1, Array.isArray(f.values) ? f.values.length : 0), 0);
  if (words.length > counted) ctx.spendFilterValues(words.length - counted);
  const scope = { templates: hasPermission(ctx.user.permissions, TEMPLATE_VIEW), locations: hasPermission(ctx.user.permissions, LOCATION_VIEW) };
  return (q) => eventTextConditions.search(q, words, scope);
}

const INSTANT_FILTER = 'ISO 8601 (2025-06-01T00:00:00Z, or with an offset; a date alone is its midnight UTC).';

export const eventListFields = {
  id: { column: 'id', kind: 'id', refType: 'Event', orderable: true },
  code: { column: 'code', kind: 'text', orderable: true },
  title: { column: 'title', kind: 'text', orderable: true },
  eventType: { column: 'type', kind: 'enum', enumValues: EVENT_TYPES },
  lifecycleState: { column: 'lifecycle_state', kind: 'enum', enumValues: LIFECYCLE_STATES, orderable: true, normalize: (v: string) => v.toLowerCase(), description: 'draft, published or cancelled (any case).' },
  locale: { column: 'locale_id', kind: 'ref', refType: 'Locale' },
  courseTemplate: { column: 'course_template_id', kind: 'ref', refType: 'CourseTemplate' },
  location: { column: 'location_id', kind: 'ref', refType: 'Location' },
  classroomStartDateTime: { column: 'classroom_start', kind: 'datetime', orderable: true },
  startDate: { column: 'start_date', kind: 'date', orderable: true },
  createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
  updatedOn: { column: 'updated_on', kind: 'datetime', orderable: true },
  start: { column: 'start', expression: EVENT_LIST_SQL.start, kind: 'instant', orderable: true, description: `When it starts (Event.start): ${INSTANT_FILTER}` },
  end: { column: 'end', expression: EVENT_LIST_SQL.end, kind: 'instant', orderable: true, description: `When it ends (Event.end): ${INSTANT_FILTER}` },
  timeZonedStart: { column: 'local_start', expression: EVENT_LIST_SQL.localStart, kind: 'datetime', orderable: true, description: "When it starts on its own time zone's clock: a local date-time (2025-06-01T09:00) or a date." },
  timeZonedEnd: { column: 'local_end', expression: EVENT_LIST_SQL.localEnd, kind: 'datetime', orderable: true, description: "When it ends on its own time zone's clock." },
  classroomStart: { column: 'classroom_start', expression: EVENT_LIST_SQL.classroomStart, kind: 'instant', orderable: true, description: INSTANT_FILTER },
  classroomEnd: { column: 'classroom_end', expression: EVENT_LIST_SQL.classroomEnd, kind: 'instant', orderable: true, description: INSTANT_FILTER },
  lmsStart: { column: 'lms_start', expression: EVENT_LIST_SQL.lmsStart, kind: 'instant', orderable: true, description: INSTANT_FILTER },
  lmsEnd: { column: 'lms_end', expression: EVENT_LIST_SQL.lmsEnd, kind: 'instant', orderable: true, description: INSTANT_FILTER },
  status: { column: 'status', expression: EVENT_LIST_SQL.status, kind: 'enum', enumValues: EVENT_STATUSES, normalize: capitalised, description: `${EVENT_STATUSES.join(', ')} (any case), as Event.status.` },
  isActive: { column: 'is_active', expression: EVENT_LIST_SQL.isActive, kind: 'bool', description: "'true': status is Active." },
  courseTemplateTitle: { column: 'course_template_title', expression: EVENT_LIST_SQL.courseTemplateTitle, kind: 'text', orderable: true, permission: TEMPLATE_VIEW, description: 'Its course template\'s title (COURSE_TEMPLATE_VIEW).' },
  courseTemplateCode: { column: 'course_template_code', expression: EVENT_LIST_SQL.courseTemplateCode, kind: 'text', orderable: true, permission: TEMPLATE_VIEW, description: 'Its course template\'s code (COURSE_TEMPLATE_VIEW).' },
  locationName: { column: 'location_name', expression: EVENT_LIST_SQL.locationName, kind: 'text', orderable: true, permission: LOCATION_VIEW, description: 'Its location\'s name (LOCATION_VIEW).' },
  locationId: { column: 'location_id', kind: 'ref', refType: 'Location', description: 'A Location id (as location).' },
  isSoldOut: { column: 'is_sold_out', expression: EVENT_LIST_SQL.isSoldOut, kind: 'bool', description: 'As Event.isSoldOut.' },
  hasPlacesRemaining: { column: 'has_places_remaining', expression: EVENT_LIST_SQL.hasPlacesRemaining, kind: 'bool', description: 'Not sold out.' },
  remainingPlaces: { column: 'remaining_places', expression: EVENT_LIST_SQL.remainingPlaces, kind: 'int', description: 'Places left; an event without a maximum has none counted (isnull finds them).' },
  bookedPlaces: { column: 'booked_places', expression: EVENT_LIST_SQL.bookedPlaces, kind: 'int', orderable: true },
  maxPlaces: { column: 'delegates_max', kind: 'int', orderable: true },
  minPlaces: { column: 'min_places', kind: 'int', orderable: true },
  learningMode: { column: 'delivery_method', expression: EVENT_LIST_SQL.learningMode, kind: 'enum', enumValues: LEARNING_MODES, normalize: (v: string) => v.toUpperCase(), description: `${LEARNING_MODES.join(', ')} (any case).` },
  textSearch: {
    column: 'title',
    kind: 'text',
    operations: ['eq', 'like', 'contains'],
    // The list's `where` searches for the words of all textSearch filters at once (textSearchOf).
    apply: () => undefined,
    description: `Every word of the value (or values; \`%\` separates words too) in its title or code, or its course template's title or code (with COURSE_TEMPLATE_VIEW), or its location's name (with LOCATION_VIEW), case-insensitive. At most ${MAX_SEARCH_WORDS} different words over a list's textSearch filters; each word counts as a filter value of the request.`,
  },
  eventOrCourseCodeOrTitle: {
    column: 'title',
    kind: 'text',
    operations: ['eq', 'like'],
    permission: TEMPLATE_VIEW,
    apply: (q, _db, op, v) => eventTextConditions.codeOrTitle(q, op as 'eq' | 'like', String(v)),
    description: 'Its code or title, or its course template\'s (COURSE_TEMPLATE_VIEW): eq (any case) or like (SQL wildcards).',
  },
  dayOfWeek: { column: 'day_of_week', expression: EVENT_LIST_SQL.dayOfWeek, kind: 'enum', enumValues: DAYS_OF_WEEK, normalize: dayOfWeekName, description: 'The day it starts on (its own clock): Mon ... Sun, Monday, or ISO 1 (Monday) to 7.' },
  createdAt: { column: 'created_on', expression: EVENT_LIST_SQL.createdAt, kind: 'instant', orderable: true, description: INSTANT_FILTER },
  updatedAt: { column: 'updated_on', expression: EVENT_LIST_SQL.updatedAt, kind: 'instant', orderable: true, description: INSTANT_FILTER },
  cancelledAt: { column: 'cancelled_at', expression: EVENT_LIST_SQL.cancelledAt, kind: 'instant', orderable: true, description: `As Event.cancelledAt: ${INSTANT_FILTER}` },
} satisfies Record<string, ListField>;

export const eventsQuery = listQuery<EventRow>({
  typeName: 'Event',
  table: EventModel.tableName,
  permission: VIEW,
  node: () => Event,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: eventListFields,
  where: textSearchOf,
  orderBy: true,
  description: 'Events. `filters` are the fields of EventFilterField (the account and staff filters of the production service are not kept here: Lectern has no bookings by account or event staff); `order` or `orderBy` (a list) of EventOrderField.',
});

/** `CourseTemplate.events`: the template's events, as the events list has them (one statement for a page of templates). */
extendCourseTemplate({
  events: nestedList<CourseTemplateRow>(eventsQuery, {
    parentColumn: 'course_template_id',
    parentId: (t) => t.id,
    description: "The template's events, with the filters, orders and pages of `events` (EVENT_VIEW).",
  }),
});

const ClassroomEventCreateInput = new GraphQLInputObjectType({
  name: 'ClassroomEventCreateInput',
  fields: {
    courseTemplateId: { type: GraphQLID, description: 'The template the event inherits its title and custom field values from.' },
    localeId: {
      type: GraphQLID,
      description: "The delivery locale. Left out: the template's default delivery locale, else its own locale. Explicit null: none. A chosen locale must be one of the template's delivery locales (when it has any).",
    },
    eventType: { type: new GraphQLNonNull(EventType) },
    locationId: { type: GraphQLID },
    taxTypeId: { type: GraphQLID },
    timeZoneName: { type: new GraphQLNonNull(GraphQLString), description: 'IANA zone name, e.g. Europe/London.' },
    classroomStartDateTime: { type: GraphQLString, description: 'Local date-time without a zone, e.g. 2027-03-10T09:00.' },
    classroomEndDateTime: { type: GraphQLString },
    title: { type: GraphQLString, description: "Left out: inherited from the template in the event's locale (and kept in step when the template is re-applied)." },
    code: { type: GraphQLString },
    maxPlaces: { type: GraphQLInt },
    minPlaces: { type: GraphQLInt },
    lifecycleState: { type: LifecycleState, description: 'Default published.' },
  },
});
const EventPayload = payloadType('EventPayload', 'event', () => Event);

/** What createLMS and createBlended share: a classroom event's keys as those clients name them, and the online period. */
const deliveredFields = () => ({
  courseTemplateId: { type: GraphQLID, description: 'The template the event inherits its title and custom field values from.' },
  localeId: { type: GraphQLID, description: 'The delivery locale, as in ClassroomEventCreateInput.' },
  eventType: { type: new GraphQLNonNull(EventType) },
  title: { type: GraphQLString, description: "Left out: inherited from the template in the event's locale." },
  code: { type: GraphQLString },
  locationId: { type: GraphQLID },
  venueId: { type: GraphQLID, description: 'A Venue id: the venue recorded on the event (Lectern keeps no venues of its own: see Event.venue).' },
  taxType: { type: GraphQLID, description: 'A TaxType id.' },
  timeZoneName: { type: GraphQLString, description: 'IANA zone name, e.g. Europe/London: the clock of the local date-times. Required (or timeZone).' },
  timeZone: { type: GraphQLString, description: 'The older name of timeZoneName: either may be given, or both naming the same zone.', deprecationReason: 'Use timeZoneName.' },
  lmsStartDateTime: { type: LocalDateTime, description: "When the online part starts, on the event's clock. Required (or timeZonedLmsStart)." },
  lmsEndDateTime: { type: LocalDateTime, description: 'When the online part ends: after lmsStartDateTime. Required (or timeZonedLmsEnd).' },
  timeZonedLmsStart: {
    type: GraphQLString,
    description: "The online start as older clients send it: ISO 8601 with an offset (2024-04-01T00:00:00Z), an instant kept as the event's clock reads it then; without one, on that clock. Instead of lmsStartDateTime.",
  },
  timeZonedLmsEnd: { type: GraphQLString, description: 'The online end as timeZonedLmsStart: instead of lmsEndDateTime.' },
  maxPlaces: { type: GraphQLInt },
  minPlaces: { type: GraphQLInt },
  lifecycleState: { type: LifecycleState, description: 'Default published.' },
  customFieldValues: { type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)), description: "Values of the event's own custom fields (those that apply to events; null values are left out), beside those inherited from the template." },
});

const LMSEventCreateInput = new GraphQLInputObjectType({
  name: 'LMSEventCreateInput',
  description: 'An online (LMS) event: an online period and no classroom part.',
  fields: deliveredFields(),
});

const BlendedEventCreateInput = new GraphQLInputObjectType({
  name: 'BlendedEventCreateInput',
  description: 'A blended event: a classroom part and an online (LMS) part, each with a start and an end.',
  fields: {
    ...deliveredFields(),
    classroomStartDateTime: { type: LocalDateTime, description: "When the classroom part starts, on the event's clock. Required." },
    classroomEndDateTime: { type: LocalDateTime, description: 'When the classroom part ends: after classroomStartDateTime. Required.' },
  },
});

const EventAddPricesInput = new GraphQLInputObjectType({
  name: 'EventAddPricesInput',
  description: "A public price of an event: one amount per price level, currency and region (adding one that exists sets its amount).",
  fields: {
    eventId: { type: new GraphQLNonNull(GraphQLID) },
    priceLevelId: { type: new GraphQLNonNull(GraphQLID), description: 'A PriceLevel id.' },
    amount: { type: new GraphQLNonNull(Decimal), description: 'From 0, at most 2 decimals: "495.00".' },
    financialUnitId: { type: new GraphQLNonNull(GraphQLID), description: 'A Currency id (`Currency:GBP` in base64) or an ISO 4217 code.' },
    regionId: { type: GraphQLID, description: 'A Region id; none: the price applies in every region.' },
  },
});

const EventPricesPayload = new GraphQLObjectType({
  name: 'EventPricesPayload',
  fields: { prices: { type: new GraphQLList(new GraphQLNonNull(Price)), description: 'The price written; null when refused.' }, errors: fieldErrors },
});

export const EventLifecycleState = new GraphQLEnumType({
  name: 'EventLifecycleState',
  description:
    "An event's lifecycle state as event.update sets it. cancelled also marks the event cancelled for the REST API (is_cancelled) and records when (cancelledAt, kept when it was cancelled already); draft or published takes a cancelled event back (no longer cancelled, no cancelledAt).",
  values: Object.fromEntries(LIFECYCLE_STATES.map((v) => [v, { value: v }])),
});

const EventUpdateInput = new GraphQLInputObjectType({
  name: 'EventUpdateInput',
  description: 'Only the fields given change; null clears one that may be empty. Anything refused: nothing changes.',
  fields: {
    lifecycleState: { type: EventLifecycleState },
    isSoldOut: { type: GraphQLBoolean, description: 'Closes (true) or reopens (false) the event for booking by hand; an event whose places are all taken stays sold out.' },
    internalNotes: { type: GraphQLString, description: 'Notes for staff (at most 10,000 characters).' },
    externalNotes: { type: GraphQLString, description: 'Notes for learners (at most 10,000 characters).' },
    customFieldValues: { type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)), description: "Values of the event's own custom fields (those that apply to events); the others stay. null as a value removes it." },
    title: { type: GraphQLString, description: 'A title of its own: it no longer follows the course template.' },
    code: { type: GraphQLString },
    locationId: { type: GraphQLID },
    courseTemplateId: { type: GraphQLID, description: "The template it belongs to. What it inherited stays until the template is re-applied (courseTemplate.applyToEvents)." },
    timeZoneName: { type: GraphQLString, description: 'IANA zone name, e.g. Europe/London. The local times stay as they are: the instants move with the zone.' },
    minPlaces: { type: GraphQLInt },
    maxPlaces: { type: GraphQLInt },
    targetFillRate: { type: GraphQLInt, description: 'The percent of its places the organiser aims to fill (0 to 100).' },
    registrationDeadline: { type: GraphQLString, description: "The last day to register (2027-03-01; of a date-time, its date), in the event's time zone." },
    registrationOpensAt: { type: GraphQLString, description: "When registration opens: a local date-time without a zone (2027-02-01T09:00), in the event's time zone." },
    remoteMeetingUrl: { type: GraphQLString, description: 'Where an online event meets: an http or https address.' },
  },
});

const EventDeleteInput = new GraphQLInputObjectType({
  name: 'EventDeleteInput',
  fields: { eventIds: { type: new GraphQLNonNull(new GraphQLList(GraphQLID)), description: 'At most 100 events.' } },
});

const EventDeletePayload = new GraphQLObjectType({
  name: 'EventDeletePayload',
  fields: {
    eventIds: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLID))), description: 'The events deleted; empty when refused.' },
    errors: fieldErrors,
  },
});

type RawUpdate = Omit<UpdateInput, 'location' | 'courseTemplate' | 'customFieldValues'> & { locationId?: string | null; courseTemplateId?: string | null; customFieldValues?: ValueInput[] | null };

/** The update as the service takes it: ids resolved to rows (`false`: naming nothing usable). */
async function resolveUpdate(ctx: GraphQLContext, input: RawUpdate): Promise<UpdateInput> {
  const { locationId, courseTemplateId, ...rest } = input;
  const out: UpdateInput = { ...rest };
  if (locationId !== undefined) out.location = locationId === null ? null : ((await locationById(ctx, legacyIdOf('Location', locationId) ?? null)) ?? false);
  if (courseTemplateId !== undefined) {
    const templateId = courseTemplateId === null ? null : legacyIdOf('CourseTemplate', courseTemplateId);
    out.courseTemplate = templateId === null ? null : templateId === undefined ? false : ((await courseTemplateById(ctx, templateId)) ?? false);
  }
  return out;
}

type RawClassroom = Omit<ClassroomInput, 'courseTemplateId' | 'locale' | 'location' | 'taxType'> & { courseTemplateId?: string | null; localeId?: string | null; locationId?: string | null; taxTypeId?: string | null };
type Payload = { event: EventRow | null; errors: FieldError[] };

/** The template, location and tax type a new event names: left out when not given, false when naming nothing usable. */
async function referencesOf(ctx: GraphQLContext, ids: { courseTemplateId?: string | null; locationId?: string | null; taxTypeId?: string | null }): Promise<Pick<ClassroomInput, 'courseTemplateId' | 'location' | 'taxType'>> {
  const out: Pick<ClassroomInput, 'courseTemplateId' | 'location' | 'taxType'> = {};
  if (ids.courseTemplateId != null) out.courseTemplateId = legacyIdOf('CourseTemplate', ids.courseTemplateId) ?? false;
  if (ids.locationId != null) out.location = (await locationById(ctx, legacyIdOf('Location', ids.locationId) ?? null)) ?? false;
  if (ids.taxTypeId != null) out.taxType = (await taxTypeById(ctx, legacyIdOf('TaxType', ids.taxTypeId) ?? null)) ?? false;
  return out;
}

/** Ids to rows: undefined when not given, null when given as null, false when naming nothing usable. */
async function resolveClassroom(ctx: GraphQLContext, input: RawClassroom): Promise<ClassroomInput> {
  const { courseTemplateId, localeId, locationId, taxTypeId, ...rest } = input;
  const out: ClassroomInput = { ...rest, ...(await referencesOf(ctx, { courseTemplateId, locationId, taxTypeId })) };
  if ('localeId' in input) out.locale = localeId === null ? null : ((await supportedLocale(ctx, localeId)) ?? false);
  return out;
}

/** The ids a problem names, shown as the caller wrote them (global ids): the domain knows only its own. */
const GIVEN_IDS = ['courseTemplateId', 'localeId', 'locationId', 'taxTypeId', 'taxType', 'venueId'] as const;
const withGivenIds = (problems: Problem[], input: Partial<Record<(typeof GIVEN_IDS)[number], unknown>>): FieldError[] =>
  toFieldErrors(problems.map((p) => ((GIVEN_IDS as readonly string[]).includes(p.field) ? { ...p, value: input[p.field as (typeof GIVEN_IDS)[number]] } : p)));

type RawDelivered = Omit<DeliveredInput, 'deliveryMethod' | 'courseTemplateId' | 'locale' | 'location' | 'taxType' | 'venue'> & {
  courseTemplateId?: string | null;
  localeId?: string | null;
  locationId?: string | null;
  taxType?: string | null;
  venueId?: string | null;
};

/** createLMS and createBlended: ids to rows as for a classroom event, and the venue (any Venue id: Lectern keeps no venues to look it up in). */
async function resolveDelivered(ctx: GraphQLContext, input: RawDelivered, deliveryMethod: 'lms' | 'blended'): Promise<DeliveredInput> {
  const { courseTemplateId, localeId, locationId, taxType, venueId, ...rest } = input;
  const out: DeliveredInput = { ...rest, deliveryMethod, ...(await referencesOf(ctx, { courseTemplateId, locationId, taxTypeId: taxType })) };
  if ('localeId' in input) out.locale = localeId === null ? null : ((await supportedLocale(ctx, localeId)) ?? false);
  if (venueId != null) {
    const venue = legacyIdOf('Venue', venueId);
    out.venue = venue === undefined ? false : { id: venue };
  }
  return out;
}

/** The mutation making an LMS or blended event: the permissions of what it names, then the service. */
function createDelivered(deliveryMethod: 'lms' | 'blended', input: GraphQLInputObjectType, description: string) {
  return {
    type: EventPayload,
    description,
    args: { input: { type: new GraphQLNonNull(input) } },
    async resolve(_root: unknown, { input: raw }: { input: RawDelivered }, ctx: GraphQLContext): Promise<Payload> {
      requirePermission(ctx, EDIT);
      // What the input names is read (and its title copied onto the event): its VIEW permission too.
      if (raw.courseTemplateId != null) requirePermission(ctx, 'COURSE_TEMPLATE_VIEW');
      if (raw.locationId != null) requirePermission(ctx, 'LOCATION_VIEW');
      if (raw.taxType != null) requirePermission(ctx, 'TAX_TYPE_VIEW');
      const { event, problems } = await createDeliveredEvent(ctx.db, await resolveDelivered(ctx, raw, deliveryMethod), (await allDefinitions(ctx)).values());
      return { event, errors: withGivenIds(problems, raw) };
    },
  };
}

type AddPriceArgs = PriceArgs & { eventId: string };

export const EventMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'EventMutations',
  fields: () => ({
    createClassroom: {
      type: EventPayload,
      description: "A classroom event, in a delivery locale (contract rule 6), with its title and custom field values taken from the template's translation in that locale, per field falling back to the template's own (rule 7).",
      args: { input: { type: new GraphQLNonNull(ClassroomEventCreateInput) } },
      async resolve(_root, { input }: { input: RawClassroom }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        // What the input names is read (and its title copied onto the event): its VIEW permission too.
        if (input.courseTemplateId != null) requirePermission(ctx, 'COURSE_TEMPLATE_VIEW');
        if (input.locationId != null) requirePermission(ctx, 'LOCATION_VIEW');
        if (input.taxTypeId != null) requirePermission(ctx, 'TAX_TYPE_VIEW');
        const { event, problems } = await createClassroomEvent(ctx.db, await resolveClassroom(ctx, input));
        return { event, errors: withGivenIds(problems, input) };
      },
    },
    createLMS: createDelivered(
      'lms',
      LMSEventCreateInput,
      "An online (LMS) event: its online period (required), no classroom part; its title and custom field values taken from the template in its delivery locale, as createClassroom does, beside its own custom field values.",
    ),
    createBlended: createDelivered(
      'blended',
      BlendedEventCreateInput,
      'A blended event: a classroom part and an online (LMS) part (both required); its title and custom field values taken from the template in its delivery locale, as createClassroom does, beside its own custom field values.',
    ),
    addPrices: {
      type: EventPricesPayload,
      description: 'Adds a public price to an event (EVENT_EDIT); one that exists for the level, currency and region takes the new amount.',
      args: { input: { type: new GraphQLNonNull(EventAddPricesInput) } },
      async resolve(_root, { input }: { input: AddPriceArgs }, ctx): Promise<PricesPayload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('Event', input.eventId);
        if (id === undefined || !(await eventById(ctx, id))) return { prices: null, errors: [fieldError('eventId', input.eventId, 'Event not found')] };
        return addPriceFor(ctx, 'event', id, input);
      },
    },
    update: {
      type: EventPayload,
      description: 'Changes an event: its lifecycle state, sold-out flag, notes, custom field values, title, code, location, time zone, places, template, registration times and meeting address.',
      args: { eventId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(EventUpdateInput) } },
      async resolve(_root, { eventId, input }: { eventId: string; input: RawUpdate }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        // The records the input names are read: their VIEW permission too.
        if (input.courseTemplateId != null) requirePermission(ctx, 'COURSE_TEMPLATE_VIEW');
        if (input.locationId != null) requirePermission(ctx, 'LOCATION_VIEW');
        const id = legacyIdOf('Event', eventId);
        if (id === undefined) return { event: null, errors: [fieldError('eventId', eventId, 'Event not found')] };
        const { event, problems } = await updateEvent(ctx.db, id, await resolveUpdate(ctx, input), (await allDefinitions(ctx)).values());
        ctx.forget('Event.byId');
        ctx.forget('Event.values');
        const given: Record<string, unknown> = { eventId, locationId: input.locationId, courseTemplateId: input.courseTemplateId };
        return { event, errors: toFieldErrors(problems.map((p) => (p.field in given ? { ...p, value: given[p.field] } : p))) };
      },
    },
    delete: {
      type: new GraphQLNonNull(EventDeletePayload),
      description: 'Deletes events, all or none: an event that delegates or order lines still hold is refused (cancel it instead), as the REST API refuses it.',
      args: { input: { type: new GraphQLNonNull(EventDeleteInput) } },
      async resolve(_root, { input }: { input: { eventIds: (string | null)[] } }, ctx) {
        requirePermission(ctx, EDIT);
        const given = input.eventIds;
        const { deleted, problems } = await deleteEvents(ctx.db, given.map((id) => (id === null ? null : (legacyIdOf('Event', id) ?? false))));
        ctx.forget('Event.byId');
        // Problems name the events as the caller wrote them.
        const errors = toFieldErrors(problems.map((p) => {
          const i = /^eventIds\[(\d+)\]$/.exec(p.field)?.[1];
          return i === undefined ? p : { ...p, value: given[Number(i)] };
        }));
        return { eventIds: deleted.map((id) => toGlobalId('Event', id)), errors };
      },
    },
    duplicate: {
      type: EventPayload,
      description: 'A copy of the event (not its delegates), in the same locale, which it keeps when the template is re-applied.',
      args: { eventId: { type: new GraphQLNonNull(GraphQLID) } },
      async resolve(_root, { eventId }: { eventId: string }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('Event', eventId);
        const event = id === undefined ? undefined : await duplicateEvent(ctx.db, id);
        return event ? { event, errors: [] } : { event: null, errors: [fieldError('eventId', eventId, 'Event not found')] };
      },
    },
  }),
});
