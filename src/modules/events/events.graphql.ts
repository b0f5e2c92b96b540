import DataLoader from 'dataloader';
import { GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { LifecycleState, payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import type { Problem } from '../../platform/problems.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { CourseTemplate, courseTemplateById } from '../course-templates/course-template-type.graphql.js';
import { customFieldValuesField, customFieldValuesOf } from '../custom-fields/custom-fields.graphql.js';
import { valuesOf as fieldValuesOf, type EventFieldValue, type FieldValueRow } from '../custom-fields/custom-fields.data.js';
import { Locale, localeById, supportedLocale } from '../locales/locales.graphql.js';
import { Location, locationById } from '../locations/locations.graphql.js';
import { TaxType, taxTypeById } from '../tax-types/tax-types.graphql.js';
import { createClassroomEvent, duplicateEvent, type ClassroomInput, type EventRow } from './events.service.js';
import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { placesBooked } from '../delegates/delegates.data.js';
import { Event as EventModel, eventsByIds } from './events.data.js';
import { EVENT_TYPES } from './events.rules.js';

/**
 * Event in GraphQL (the REST API's public event): its locale and what it inherited from its
 * course template, the `events` list, and `event { createClassroom duplicate }`. EVENT_VIEW /
 * EVENT_EDIT.
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
    startDate: { type: GraphQLString, resolve: (e) => e.start_date },
    endDate: { type: GraphQLString, resolve: (e) => e.end_date },
    location: refField<EventRow>(Location, 'LOCATION_VIEW', (e) => e.location_id, locationById),
    taxType: refField<EventRow>(TaxType, 'TAX_TYPE_VIEW', (e) => e.tax_type_id, taxTypeById),
    maxPlaces: { type: GraphQLInt, resolve: (e) => e.delegates_max },
    minPlaces: { type: GraphQLInt, resolve: (e) => e.min_places },
    placesBooked: { type: new GraphQLNonNull(GraphQLInt), resolve: (e, _a, ctx) => bookedOf(ctx).load(e.id) },
    placesLeft: { type: GraphQLInt, description: 'null when the event has no maximum.', resolve: async (e, _a, ctx) => (e.delegates_max === null ? null : Math.max(0, e.delegates_max - (await bookedOf(ctx).load(e.id)))) },
    price: { type: GraphQLFloat, resolve: (e) => money(e.price) },
    currencyCode: { type: GraphQLString, resolve: (e) => e.currency_code },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (e) => e.created_on },
    updatedOn: { type: new GraphQLNonNull(GraphQLString), resolve: (e) => e.updated_on },
  }),
});

registerNode('Event', { permission: VIEW, load: (ctx, id) => eventById(ctx, id) });

export const eventListFields = {
  id: { column: 'id', kind: 'id', refType: 'Event', orderable: true },
  code: { column: 'code', kind: 'text', orderable: true },
  title: { column: 'title', kind: 'text', orderable: true },
  eventType: { column: 'type', kind: 'enum', enumValues: EVENT_TYPES },
  lifecycleState: { column: 'lifecycle_state', kind: 'enum', enumValues: LIFECYCLE_STATES, orderable: true },
  locale: { column: 'locale_id', kind: 'ref', refType: 'Locale' },
  courseTemplate: { column: 'course_template_id', kind: 'ref', refType: 'CourseTemplate' },
  location: { column: 'location_id', kind: 'ref', refType: 'Location' },
  classroomStartDateTime: { column: 'classroom_start', kind: 'datetime', orderable: true },
  startDate: { column: 'start_date', kind: 'date', orderable: true },
  createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
  updatedOn: { column: 'updated_on', kind: 'datetime', orderable: true },
} as const;

export const eventsQuery = listQuery<EventRow>({
  typeName: 'Event',
  table: EventModel.tableName,
  permission: VIEW,
  node: () => Event,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: eventListFields,
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

type RawClassroom = Omit<ClassroomInput, 'courseTemplateId' | 'locale' | 'location' | 'taxType'> & { courseTemplateId?: string | null; localeId?: string | null; locationId?: string | null; taxTypeId?: string | null };
type Payload = { event: EventRow | null; errors: FieldError[] };

/** Ids to rows: undefined when not given, null when given as null, false when naming nothing usable. */
async function resolveClassroom(ctx: GraphQLContext, input: RawClassroom): Promise<ClassroomInput> {
  const { courseTemplateId, localeId, locationId, taxTypeId, ...rest } = input;
  const out: ClassroomInput = { ...rest };
  if (courseTemplateId != null) {
    out.courseTemplateId = legacyIdOf('CourseTemplate', courseTemplateId) ?? false;
  }
  if ('localeId' in input) out.locale = localeId === null ? null : ((await supportedLocale(ctx, localeId)) ?? false);
  if (locationId != null) out.location = (await locationById(ctx, legacyIdOf('Location', locationId) ?? null)) ?? false;
  if (taxTypeId != null) out.taxType = (await taxTypeById(ctx, legacyIdOf('TaxType', taxTypeId) ?? null)) ?? false;
  return out;
}

/** The ids a problem names, shown as the caller wrote them (global ids): the domain knows only its own. */
const GIVEN_IDS = ['courseTemplateId', 'localeId', 'locationId', 'taxTypeId'] as const;
const withGivenIds = (problems: Problem[], input: RawClassroom): FieldError[] =>
  toFieldErrors(problems.map((p) => ((GIVEN_IDS as readonly string[]).includes(p.field) ? { ...p, value: input[p.field as (typeof GIVEN_IDS)[number]] } : p)));

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
