import type { GraphQLInputObjectType } from 'graphql';
import { GraphQLID, GraphQLNonNull, GraphQLObjectType } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { extensionFields } from '../../kit/graphql/extensions.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import type { Problem } from '../../platform/problems.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf, toGlobalId } from '../../kit/graphql/ids.js';
import { courseTemplateById } from '../course-templates/index.graphql.js';
import { allDefinitions } from '../custom-fields/index.graphql.js';
import { type ValueInput } from '../custom-fields/index.js';
import { supportedLocale } from '../locales/index.graphql.js';
import { locationById } from '../locations/index.graphql.js';
import { venueById } from '../venues/index.graphql.js';
import { taxTypeById } from '../tax-types/index.graphql.js';
import { addPriceFor, type PriceArgs, type PricesPayload } from '../pricing/index.graphql.js';
import {
  createClassroomEvent,
  createDeliveredEvent,
  deleteEvents,
  duplicateEvent,
  updateEvent,
  type ClassroomInput,
  type DeliveredInput,
  type EventRow,
  type EventUpdateInput as UpdateInput,
} from './events.service.js';
import { eventById } from './event-type.graphql.js';
import {
  ClassroomEventCreateInput,
  EventPayload,
  LMSEventCreateInput,
  BlendedEventCreateInput,
  EventAddPricesInput,
  EventPricesPayload,
  EventUpdateInput,
  EventDeleteInput,
  EventDeletePayload,
} from './event-inputs.graphql.js';

/**
 * `event { createClassroom createLMS createBlended duplicate update delete addPrices }`: ids to
 * rows, then one service call each. EVENT_EDIT (and the VIEW permissions of what they name).
 */
const EDIT = 'EVENT_EDIT';

type RawUpdate = Omit<UpdateInput, 'location' | 'courseTemplate' | 'customFieldValues'> & {
  locationId?: string | null;
  courseTemplateId?: string | null;
  customFieldValues?: ValueInput[] | null;
};

/** The update as the service takes it: ids resolved to rows (`false`: naming nothing usable). */
async function resolveUpdate(ctx: GraphQLContext, input: RawUpdate): Promise<UpdateInput> {
  const { locationId, courseTemplateId, ...rest } = input;
  const out: UpdateInput = { ...rest };
  if (locationId !== undefined)
    out.location = locationId === null ? null : ((await locationById(ctx, legacyIdOf('Location', locationId) ?? null)) ?? false);
  if (courseTemplateId !== undefined) {
    const templateId = courseTemplateId === null ? null : legacyIdOf('CourseTemplate', courseTemplateId);
    out.courseTemplate =
      templateId === null ? null : templateId === undefined ? false : ((await courseTemplateById(ctx, templateId)) ?? false);
  }
  return out;
}

type RawClassroom = Omit<ClassroomInput, 'courseTemplateId' | 'locale' | 'location' | 'taxType' | 'venue'> & {
  courseTemplateId?: string | null;
  localeId?: string | null;
  locationId?: string | null;
  taxTypeId?: string | null;
  venueId?: string | null;
};
type Payload = { event: EventRow | null; errors: FieldError[] };

/** The template, location, tax type and venue a new event names: left out when not given, false when naming nothing usable (of this instance). */
async function referencesOf(
  ctx: GraphQLContext,
  ids: { courseTemplateId?: string | null; locationId?: string | null; taxTypeId?: string | null; venueId?: string | null },
): Promise<Pick<ClassroomInput, 'courseTemplateId' | 'location' | 'taxType' | 'venue'>> {
  const out: Pick<ClassroomInput, 'courseTemplateId' | 'location' | 'taxType' | 'venue'> = {};
  if (ids.courseTemplateId != null) out.courseTemplateId = legacyIdOf('CourseTemplate', ids.courseTemplateId) ?? false;
  if (ids.locationId != null) out.location = (await locationById(ctx, legacyIdOf('Location', ids.locationId) ?? null)) ?? false;
  if (ids.taxTypeId != null) out.taxType = (await taxTypeById(ctx, legacyIdOf('TaxType', ids.taxTypeId) ?? null)) ?? false;
  if (ids.venueId != null) out.venue = (await venueById(ctx, legacyIdOf('Venue', ids.venueId) ?? null)) ?? false;
  return out;
}

/** Ids to rows: undefined when not given, null when given as null, false when naming nothing usable. */
async function resolveClassroom(ctx: GraphQLContext, input: RawClassroom): Promise<ClassroomInput> {
  const { courseTemplateId, localeId, locationId, taxTypeId, venueId, ...rest } = input;
  const out: ClassroomInput = { ...rest, ...(await referencesOf(ctx, { courseTemplateId, locationId, taxTypeId, venueId })) };
  if ('localeId' in input) out.locale = localeId === null ? null : ((await supportedLocale(ctx, localeId)) ?? false);
  return out;
}

/** The ids a problem names, shown as the caller wrote them (global ids): the domain knows only its own. */
const GIVEN_IDS = ['courseTemplateId', 'localeId', 'locationId', 'taxTypeId', 'taxType', 'venueId'] as const;
const withGivenIds = (problems: Problem[], input: Partial<Record<(typeof GIVEN_IDS)[number], unknown>>): FieldError[] =>
  toFieldErrors(
    problems.map((p) =>
      (GIVEN_IDS as readonly string[]).includes(p.field) ? { ...p, value: input[p.field as (typeof GIVEN_IDS)[number]] } : p,
    ),
  );

type RawDelivered = Omit<DeliveredInput, 'deliveryMethod' | 'courseTemplateId' | 'locale' | 'location' | 'taxType' | 'venue'> & {
  courseTemplateId?: string | null;
  localeId?: string | null;
  locationId?: string | null;
  taxType?: string | null;
  venueId?: string | null;
};

/** createLMS and createBlended: ids to rows as for a classroom event (the tax type's key is `taxType`). */
async function resolveDelivered(ctx: GraphQLContext, input: RawDelivered, deliveryMethod: 'lms' | 'blended'): Promise<DeliveredInput> {
  const { courseTemplateId, localeId, locationId, taxType, venueId, ...rest } = input;
  const out: DeliveredInput = {
    ...rest,
    deliveryMethod,
    ...(await referencesOf(ctx, { courseTemplateId, locationId, taxTypeId: taxType, venueId })),
  };
  if ('localeId' in input) out.locale = localeId === null ? null : ((await supportedLocale(ctx, localeId)) ?? false);
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
      if (raw.locationId != null || raw.venueId != null) requirePermission(ctx, 'LOCATION_VIEW');
      if (raw.taxType != null) requirePermission(ctx, 'TAX_TYPE_VIEW');
      const { event, problems } = await createDeliveredEvent(
        ctx.db,
        await resolveDelivered(ctx, raw, deliveryMethod),
        (await allDefinitions(ctx)).values(),
      );
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
      description:
        "A classroom event, in a delivery locale (contract rule 6), with its title and custom field values taken from the template's translation in that locale, per field falling back to the template's own (rule 7), and its sessions (one a day of its period unless its template's sessionLayout is single; draft).",
      args: { input: { type: new GraphQLNonNull(ClassroomEventCreateInput) } },
      async resolve(_root, { input }: { input: RawClassroom }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        // What the input names is read (and its title copied onto the event): its VIEW permission too.
        if (input.courseTemplateId != null) requirePermission(ctx, 'COURSE_TEMPLATE_VIEW');
        if (input.locationId != null || input.venueId != null) requirePermission(ctx, 'LOCATION_VIEW');
        if (input.taxTypeId != null) requirePermission(ctx, 'TAX_TYPE_VIEW');
        const { event, problems } = await createClassroomEvent(ctx.db, await resolveClassroom(ctx, input));
        return { event, errors: withGivenIds(problems, input) };
      },
    },
    createLMS: createDelivered(
      'lms',
      LMSEventCreateInput,
      'An online (LMS) event: its online period (required), no classroom part; its title and custom field values taken from the template in its delivery locale, as createClassroom does, beside its own custom field values.',
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
        if (id === undefined || !(await eventById(ctx, id)))
          return { prices: null, errors: [fieldError('eventId', input.eventId, 'Event not found')] };
        return addPriceFor(ctx, 'event', id, input);
      },
    },
    update: {
      type: EventPayload,
      description:
        'Changes an event: its lifecycle state, sold-out flag, notes, custom field values, title, code, location, time zone, places, template, registration times and meeting address.',
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
      // Nullable, as every mutation of a group: a refused one (a permission) answers null beside what the others wrote.
      type: EventDeletePayload,
      description:
        'Deletes events, all or none: an event that delegates or order lines still hold is refused (cancel it instead), as the REST API refuses it.',
      args: { input: { type: new GraphQLNonNull(EventDeleteInput) } },
      async resolve(_root, { input }: { input: { eventIds: (string | null)[] } }, ctx) {
        requirePermission(ctx, EDIT);
        const given = input.eventIds;
        const { deleted, problems } = await deleteEvents(
          ctx.db,
          given.map((id) => (id === null ? null : (legacyIdOf('Event', id) ?? false))),
        );
        ctx.forget('Event.byId');
        // Problems name the events as the caller wrote them.
        const errors = toFieldErrors(
          problems.map((p) => {
            const i = /^eventIds\[(\d+)\]$/.exec(p.field)?.[1];
            return i === undefined ? p : { ...p, value: given[Number(i)] };
          }),
        );
        return { eventIds: deleted.map((id) => toGlobalId('Event', id)), errors };
      },
    },
    duplicate: {
      type: EventPayload,
      description:
        'A copy of the event (not its delegates) with copies of its sessions, in the same locale, which it keeps when the template is re-applied.',
      args: { eventId: { type: new GraphQLNonNull(GraphQLID) } },
      async resolve(_root, { eventId }: { eventId: string }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('Event', eventId);
        const event = id === undefined ? undefined : await duplicateEvent(ctx.db, id);
        return event ? { event, errors: [] } : { event: null, errors: [fieldError('eventId', eventId, 'Event not found')] };
      },
    },
    ...extensionFields('EventMutations'),
  }),
});
