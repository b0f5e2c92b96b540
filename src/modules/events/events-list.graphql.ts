import type { GraphQLContext } from '../../kit/graphql/context.js';
import { badInput } from '../../kit/graphql/errors.js';
import { hasPermission } from '../../platform/permissions.js';
import { listQuery, nestedList, type ListField } from '../../kit/graphql/lists.js';
import type { Knex } from '../../platform/db/knex.js';
import { extendCourseTemplate } from '../course-templates/index.graphql.js';
import type { CourseTemplateRow } from '../course-templates/index.js';
import { type EventRow } from './events.service.js';
import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { Event as EventModel, EVENT_LIST_SQL, eventTextConditions } from './events.data.js';
import { DAYS_OF_WEEK, dayOfWeekName, EVENT_STATUSES, EVENT_TYPES, LEARNING_MODES, MAX_SEARCH_WORDS, searchWords } from './events.rules.js';
import { EventObject } from './event-type.graphql.js';

/**
 * The Core `events` list (also `CourseTemplate.events`): its filters, orders and text search. EVENT_VIEW.
 */
const VIEW = 'EVENT_VIEW';

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
  const texts = filters
    .flatMap((f) => [f.value, ...(Array.isArray(f.values) ? f.values : [])])
    .filter((v): v is string => typeof v === 'string');
  const words = searchWords(texts);
  if (words.length > MAX_SEARCH_WORDS)
    throw badInput(
      `Filter on textSearch: at most ${MAX_SEARCH_WORDS} different words in one list's textSearch filters (${words.length} given)`,
    );
  const counted = filters.reduce((n, f) => n + Math.max(1, Array.isArray(f.values) ? f.values.length : 0), 0);
  if (words.length > counted) ctx.spendFilterValues(words.length - counted);
  const scope = {
    templates: hasPermission(ctx.user.permissions, TEMPLATE_VIEW),
    locations: hasPermission(ctx.user.permissions, LOCATION_VIEW),
  };
  return (q) => eventTextConditions.search(q, words, scope);
}

const INSTANT_FILTER = 'ISO 8601 (2025-06-01T00:00:00Z, or with an offset; a date alone is its midnight UTC).';

export const eventListFields = {
  id: { column: 'id', kind: 'id', refType: 'Event', orderable: true },
  code: { column: 'code', kind: 'text', orderable: true },
  title: { column: 'title', kind: 'text', orderable: true },
  eventType: { column: 'type', kind: 'enum', enumValues: EVENT_TYPES },
  lifecycleState: {
    column: 'lifecycle_state',
    kind: 'enum',
    enumValues: LIFECYCLE_STATES,
    orderable: true,
    normalize: (v: string) => v.toLowerCase(),
    description: 'draft, published or cancelled (any case).',
  },
  locale: { column: 'locale_id', kind: 'ref', refType: 'Locale' },
  courseTemplate: { column: 'course_template_id', kind: 'ref', refType: 'CourseTemplate' },
  location: { column: 'location_id', kind: 'ref', refType: 'Location' },
  classroomStartDateTime: { column: 'classroom_start', kind: 'datetime', orderable: true },
  startDate: { column: 'start_date', kind: 'date', orderable: true },
  createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
  updatedOn: { column: 'updated_on', kind: 'datetime', orderable: true },
  start: {
    column: 'start',
    expression: EVENT_LIST_SQL.start,
    kind: 'instant',
    orderable: true,
    description: `When it starts (Event.start): ${INSTANT_FILTER}`,
  },
  end: {
    column: 'end',
    expression: EVENT_LIST_SQL.end,
    kind: 'instant',
    orderable: true,
    description: `When it ends (Event.end): ${INSTANT_FILTER}`,
  },
  timeZonedStart: {
    column: 'local_start',
    expression: EVENT_LIST_SQL.localStart,
    kind: 'datetime',
    orderable: true,
    description: "When it starts on its own time zone's clock: a local date-time (2025-06-01T09:00) or a date.",
  },
  timeZonedEnd: {
    column: 'local_end',
    expression: EVENT_LIST_SQL.localEnd,
    kind: 'datetime',
    orderable: true,
    description: "When it ends on its own time zone's clock.",
  },
  classroomStart: {
    column: 'classroom_start',
    expression: EVENT_LIST_SQL.classroomStart,
    kind: 'instant',
    orderable: true,
    description: INSTANT_FILTER,
  },
  classroomEnd: {
    column: 'classroom_end',
    expression: EVENT_LIST_SQL.classroomEnd,
    kind: 'instant',
    orderable: true,
    description: INSTANT_FILTER,
  },
  lmsStart: { column: 'lms_start', expression: EVENT_LIST_SQL.lmsStart, kind: 'instant', orderable: true, description: INSTANT_FILTER },
  lmsEnd: { column: 'lms_end', expression: EVENT_LIST_SQL.lmsEnd, kind: 'instant', orderable: true, description: INSTANT_FILTER },
  status: {
    column: 'status',
    expression: EVENT_LIST_SQL.status,
    kind: 'enum',
    enumValues: EVENT_STATUSES,
    normalize: capitalised,
    description: `${EVENT_STATUSES.join(', ')} (any case), as Event.status.`,
  },
  isActive: { column: 'is_active', expression: EVENT_LIST_SQL.isActive, kind: 'bool', description: "'true': status is Active." },
  courseTemplateTitle: {
    column: 'course_template_title',
    expression: EVENT_LIST_SQL.courseTemplateTitle,
    kind: 'text',
    orderable: true,
    permission: TEMPLATE_VIEW,
    description: "Its course template's title (COURSE_TEMPLATE_VIEW).",
  },
  courseTemplateCode: {
    column: 'course_template_code',
    expression: EVENT_LIST_SQL.courseTemplateCode,
    kind: 'text',
    orderable: true,
    permission: TEMPLATE_VIEW,
    description: "Its course template's code (COURSE_TEMPLATE_VIEW).",
  },
  locationName: {
    column: 'location_name',
    expression: EVENT_LIST_SQL.locationName,
    kind: 'text',
    orderable: true,
    permission: LOCATION_VIEW,
    description: "Its location's name (LOCATION_VIEW).",
  },
  locationId: { column: 'location_id', kind: 'ref', refType: 'Location', description: 'A Location id (as location).' },
  isSoldOut: { column: 'is_sold_out', expression: EVENT_LIST_SQL.isSoldOut, kind: 'bool', description: 'As Event.isSoldOut.' },
  hasPlacesRemaining: {
    column: 'has_places_remaining',
    expression: EVENT_LIST_SQL.hasPlacesRemaining,
    kind: 'bool',
    description: 'Not sold out.',
  },
  remainingPlaces: {
    column: 'remaining_places',
    expression: EVENT_LIST_SQL.remainingPlaces,
    kind: 'int',
    description: 'Places left; an event without a maximum has none counted (isnull finds them).',
  },
  bookedPlaces: { column: 'booked_places', expression: EVENT_LIST_SQL.bookedPlaces, kind: 'int', orderable: true },
  maxPlaces: { column: 'delegates_max', kind: 'int', orderable: true },
  minPlaces: { column: 'min_places', kind: 'int', orderable: true },
  learningMode: {
    column: 'delivery_method',
    expression: EVENT_LIST_SQL.learningMode,
    kind: 'enum',
    enumValues: LEARNING_MODES,
    normalize: (v: string) => v.toUpperCase(),
    description: `${LEARNING_MODES.join(', ')} (any case).`,
  },
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
    description: "Its code or title, or its course template's (COURSE_TEMPLATE_VIEW): eq (any case) or like (SQL wildcards).",
  },
  dayOfWeek: {
    column: 'day_of_week',
    expression: EVENT_LIST_SQL.dayOfWeek,
    kind: 'enum',
    enumValues: DAYS_OF_WEEK,
    normalize: dayOfWeekName,
    description: 'The day it starts on (its own clock): Mon ... Sun, Monday, or ISO 1 (Monday) to 7.',
  },
  createdAt: { column: 'created_on', expression: EVENT_LIST_SQL.createdAt, kind: 'instant', orderable: true, description: INSTANT_FILTER },
  updatedAt: { column: 'updated_on', expression: EVENT_LIST_SQL.updatedAt, kind: 'instant', orderable: true, description: INSTANT_FILTER },
  cancelledAt: {
    column: 'cancelled_at',
    expression: EVENT_LIST_SQL.cancelledAt,
    kind: 'instant',
    orderable: true,
    description: `As Event.cancelledAt: ${INSTANT_FILTER}`,
  },
} satisfies Record<string, ListField>;

export const eventsQuery = listQuery<EventRow>({
  typeName: 'Event',
  table: EventModel.tableName,
  permission: VIEW,
  node: () => EventObject,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: eventListFields,
  where: textSearchOf,
  orderBy: true,
  description:
    'Events. `filters` are the fields of EventFilterField (the account and staff filters of the production service are not kept here: Lectern has no bookings by account or event staff); `order` or `orderBy` (a list) of EventOrderField.',
});

/** `CourseTemplate.events`: the template's events, as the events list has them (one statement for a page of templates). */
extendCourseTemplate({
  events: nestedList<CourseTemplateRow>(eventsQuery, {
    parentColumn: 'course_template_id',
    parentId: (t) => t.id,
    description: "The template's events, with the filters, orders and pages of `events` (EVENT_VIEW).",
  }),
});
