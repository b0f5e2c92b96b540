import { GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { Knex } from '../../platform/db/knex.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { badInput } from '../../kit/graphql/errors.js';
import { fromGlobalId } from '../../kit/graphql/ids.js';
import {
  FilterOperationEnum,
  listQuery,
  MAX_FILTER_VALUES,
  MAX_FILTERS,
  type FilterValue,
  type ListField,
  type ListSpec,
} from '../../kit/graphql/lists.js';
import type { LocationRow } from '../locations/index.js';
import { supportedLocales } from '../locales/index.js';
import {
  CATALOGUE_LISTS,
  courseNames,
  eventConditions,
  hasFieldValue,
  matchesSearch,
  viaEvents,
  withCategoryTranslation,
  withTranslation,
  type CatalogueCategory,
  type CatalogueCourse,
  type CatalogueEvent,
  type WebLinkCatalogueItemUnion as CatalogueItemRow,
  type CatalogueList,
  type CataloguePath,
} from './catalogue.data.js';
import {
  WebLinkCategoryObject,
  CatalogueItem,
  WebLinkCourseObject,
  WebLinkEventObject,
  WebLinkLearningPathObject,
  WebLinkLocaleObject,
  WebLinkLocationObject,
} from './catalogue-types.weblink.js';

/**
 * The WebLink catalogue's root fields, as the production service's website plugins and SDK call
 * them (real-clients.md section 2): `catalogue` (published courses and active learning paths as
 * one list), `courses`, `events`, `learningPaths`, `categories`, `locations`, and Lectern's own
 * `locales` (the values `weblink-content-locale` takes). Read-only and public: nothing else of
 * the instance is reachable from here (no node(id:), no contacts, no drafts). Filters are
 * `{field, operation, value}` or `{..., values}` with the list engine's limits; the reads are the
 * catalogue's read model (catalogue.data.ts).
 */

/**
 * A catalogue list's table (or rows) and scope, as the list engine takes them, with WebLink's ids:
 * here `Course:<n>` is a course (template) n, never the event the Core API takes it for.
 */
const source = (list: CatalogueList) => ({
  table: list.table,
  ...(list.from ? { from: list.from } : {}),
  ...(list.scope ? { scope: list.scope } : {}),
  ids: 'weblink' as const,
});

/** The page's rows get their translation in the content locale, when a request asks for one (joined once the page is cut). */
const translation =
  (list: 'catalogue' | 'courses' | 'learningPaths'): ListSpec<{ id: number }>['overlay'] =>
  (q, ctx) => {
    if (!ctx.contentLocale) return false;
    withTranslation(ctx.db, q, list, ctx.contentLocale.id);
    return true;
  };

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
const list = (v: FilterValue | FilterValue[]): FilterValue[] => (Array.isArray(v) ? v : [v]);
const ids = (v: FilterValue | FilterValue[]) => list(v).filter((x): x is number => typeof x === 'number');

/** Filters on one event: `a` is its alias (`ev` for a catalogue item's events, `t` in the events list). */
function eventFilters(via: string | undefined, a: string): Record<string, ListField> {
  const on = (apply: NonNullable<ListField['apply']>, field: Omit<ListField, 'column' | 'apply'>): ListField => ({
    column: 'id',
    ...field,
    apply,
    ...(via ? { via } : {}),
  });
  return {
    dayOfWeek: on(
      (w, _db, _op, v) =>
        eventConditions.onDays(
          w,
          list(v).map((d) => DAYS.indexOf(d as (typeof DAYS)[number]) + 1),
          a,
        ),
      {
        kind: 'enum',
        enumValues: DAYS,
        operations: ['in', 'eq'],
        description: 'The day (Mon ... Sun) an event starts on.',
      },
    ),
    locationId: on((w, _db, _op, v) => eventConditions.atLocations(w, ids(v), a), {
      kind: 'ref',
      refType: 'Location',
      operations: ['in', 'eq'],
    }),
    start: on((w, _db, op, v) => (op === 'ge' ? eventConditions.startsFrom : eventConditions.startsBy)(w, String(v), a), {
      kind: 'instant',
      operations: ['ge', 'le'],
      description: 'When an event starts: ISO 8601 with an offset (2027-05-04T00:00:00+01:00).',
    }),
    end: on((w, _db, op, v) => (op === 'le' ? eventConditions.endsBy : eventConditions.endsFrom)(w, String(v), a), {
      kind: 'instant',
      operations: ['le', 'ge'],
      description: 'When an event ends.',
    }),
    sessionStartTime: on((w, _db, _op, v) => eventConditions.sessionStartsFrom(w, String(v), a), {
      kind: 'time',
      operations: ['ge'],
      description: 'The time of day sessions start (HH:MM:SS).',
    }),
    sessionEndTime: on((w, _db, _op, v) => eventConditions.sessionEndsBy(w, String(v), a), {
      kind: 'time',
      operations: ['le'],
      description: 'The time of day sessions end (HH:MM:SS).',
    }),
    remainingPlaces: on((w, _db, _op, v) => eventConditions.placesAtLeast(w, Number(v), a), {
      kind: 'int',
      operations: ['ge'],
      description: 'Places left (an event without a maximum always has enough).',
    }),
  };
}

// --- catalogue ------------------------------------------------------------------------------------

export const CustomFieldFilterInput = new GraphQLInputObjectType({
  name: 'CustomFieldFilterInput',
  description:
    'A custom field value: `id` names the definition (its global id, or its key as `definitionKey` gives it); `eq` or `like` take `value`, `in` takes `values`.',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID) },
    operation: { type: FilterOperationEnum, defaultValue: 'eq' },
    value: { type: GraphQLString },
    values: { type: new GraphQLList(GraphQLString) },
  },
});

interface CustomFieldFilter {
  id: string;
  operation?: string | null;
  value?: string | null;
  values?: (string | null)[] | null;
}

/** `search` and `customFieldFilters`, checked once per page (their values count toward the request's budget); the Core catalogue takes them the same way. */
export function searchAndFieldFilters(args: Record<string, unknown>, ctx: GraphQLContext): (q: Knex.QueryBuilder) => void {
  const search = typeof args.search === 'string' ? args.search.trim() : '';
  if (search.length > 200) throw badInput('search: at most 200 characters');
  const filters = ((args.customFieldFilters as (CustomFieldFilter | null)[] | null | undefined) ?? []).filter(
    (f): f is CustomFieldFilter => f !== null,
  );
  if (filters.length > MAX_FILTERS) throw badInput(`customFieldFilters: at most ${MAX_FILTERS} filters (${filters.length} given)`);
  ctx.spendFilterValues(filters.reduce((n, f) => n + Math.max(1, f.values?.length ?? 0), 0));
  const checked = filters.map((f, i) => {
    const name = `customFieldFilters[${i}]`;
    const operation = f.operation ?? 'eq';
    const parsed = fromGlobalId(f.id);
    const definition = parsed?.type === 'CustomFieldDefinition' ? { id: parsed.legacyId, key: f.id } : { key: f.id };
    if (operation === 'in') {
      if (!Array.isArray(f.values) || !f.values.length || f.values.some((v) => typeof v !== 'string'))
        throw badInput(`${name}: in needs a non-empty \`values\` of strings`);
      if (f.values.length > MAX_FILTER_VALUES) throw badInput(`${name}: at most ${MAX_FILTER_VALUES} values`);
      return { definition, operation, value: f.values as string[] } as const;
    }
    if (operation !== 'eq' && operation !== 'like') throw badInput(`${name}: takes eq, like or in`);
    if (typeof f.value !== 'string') throw badInput(`${name}: needs \`value\``);
    return { definition, operation, value: f.value } as const;
  });
  return (q) => {
    if (search) matchesSearch(q, search);
    for (const f of checked) hasFieldValue(q, f.definition, f.operation, f.value);
  };
}

export const catalogueQuery = listQuery<CatalogueItemRow>({
  typeName: 'Catalogue',
  inputNames: { filter: 'CatalogueFieldFilter', order: 'CatalogueFieldOrder' },
  ...source(CATALOGUE_LISTS.catalogue),
  permission: null,
  node: () => CatalogueItem,
  description: 'Published courses and active learning paths, as one list.',
  overlay: translation('catalogue'),
  defaultOrder: { field: 'name', direction: 'asc' },
  args: {
    search: { type: GraphQLString, description: 'Words in the name or code (case-insensitive; % and _ are taken literally).' },
    customFieldFilters: { type: new GraphQLList(CustomFieldFilterInput), description: `All must hold; at most ${MAX_FILTERS}.` },
  },
  where: searchAndFieldFilters,
  via: { events: (q, _db, conditions) => viaEvents(q, conditions) },
  fields: {
    name: { column: 'name', kind: 'text', orderable: true, description: "The authored name (a course's title)." },
    code: { column: 'code', kind: 'text', orderable: true },
    categoryId: { column: 'category_id', kind: 'ref', refType: 'Category' },
    type: {
      column: 'kind',
      kind: 'enum',
      enumValues: ['CourseTemplate', 'LearningPath'],
      description: 'CourseTemplate (a Course) or LearningPath.',
    },
    isBundle: { column: 'is_bundle', kind: 'bool', description: 'A learning path sold as one (courses are not).' },
    ...eventFilters('events', 'ev'),
  },
});

// --- courses, learning paths, events, categories, locations ---------------------------------------

export const coursesQuery = listQuery<CatalogueCourse>({
  typeName: 'Course',
  inputNames: { filter: 'CourseFieldFilter', order: 'CourseFieldOrder' },
  ...source(CATALOGUE_LISTS.courses),
  permission: null,
  node: () => WebLinkCourseObject,
  description: 'Published courses (course templates).',
  select: courseNames,
  overlay: translation('courses'),
  defaultOrder: { field: 'name', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Course', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    name: { column: 'title', kind: 'text', orderable: true, description: 'The authored name.' },
    learningCategoryId: { column: 'category_id', kind: 'ref', refType: 'Category' },
  },
});

export const learningPathsQuery = listQuery<CataloguePath>({
  typeName: 'LearningPath',
  inputNames: { filter: 'LearningPathFieldFilter', order: 'LearningPathFieldOrder' },
  ...source(CATALOGUE_LISTS.learningPaths),
  permission: null,
  node: () => WebLinkLearningPathObject,
  description: 'Active learning paths.',
  overlay: translation('learningPaths'),
  defaultOrder: { field: 'name', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'LearningPath', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    isBundle: { column: 'is_bundle', kind: 'bool' },
    categoryId: { column: 'category_id', kind: 'ref', refType: 'Category' },
  },
});

export const eventsQuery = listQuery<CatalogueEvent>({
  typeName: 'Event',
  inputNames: { filter: 'EventFieldFilter', order: 'EventFieldOrder' },
  ...source(CATALOGUE_LISTS.events),
  permission: null,
  node: () => WebLinkEventObject,
  description: 'Published public events that are not cancelled, of published courses or none.',
  defaultOrder: { field: 'start', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Event', orderable: true },
    name: { column: 'title', kind: 'text', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    courseId: { column: 'course_template_id', kind: 'ref', refType: 'Course' },
    courseCode: {
      column: 'id',
      kind: 'text',
      operations: ['eq', 'in'],
      apply: (w, _db, _op, v) => eventConditions.ofCourseCodes(w, list(v).map(String), 't'),
      description: "Its course's code.",
    },
    ...eventFilters(undefined, 't'),
    // Ordered by their dates (filtered as instants above).
    start: { ...eventFilters(undefined, 't').start!, column: 'start_date', orderable: true },
    end: { ...eventFilters(undefined, 't').end!, column: 'end_date', orderable: true },
  },
});

export const categoriesQuery = listQuery<CatalogueCategory>({
  typeName: 'Category',
  inputNames: { filter: 'CategoryFieldFilter', order: 'CategoryFieldOrder' },
  ...source(CATALOGUE_LISTS.categories),
  permission: null,
  // Websites ask for every category at once (the WordPress plugin: `categories(first: 1000)`); they are few and small.
  maxPage: 1000,
  node: () => WebLinkCategoryObject,
  // With a content locale, each category of the page comes with its translation there (one join on the cut page).
  overlay: (q, ctx) => {
    if (!ctx.contentLocale) return false;
    withCategoryTranslation(ctx.db, q, ctx.contentLocale.id);
    return true;
  },
  defaultOrder: { field: 'name', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Category', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true, description: 'The authored name.' },
    parentId: { column: 'parent_id', kind: 'ref', refType: 'Category' },
  },
});

export const locationsQuery = listQuery<Pick<LocationRow, 'id' | 'name'>>({
  typeName: 'Location',
  inputNames: { filter: 'LocationFieldFilter', order: 'LocationFieldOrder' },
  ...source(CATALOGUE_LISTS.locations),
  permission: null,
  node: () => WebLinkLocationObject,
  defaultOrder: { field: 'name', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Location', orderable: true },
    name: { column: 'name', kind: 'text', orderable: true },
  },
});

export const localesQuery: GraphQLFieldConfig<unknown, GraphQLContext> = {
  type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(WebLinkLocaleObject))),
  description: 'The locales this instance has content in: the values weblink-content-locale takes.',
  resolve: (_r, _a, ctx) => supportedLocales(ctx.db),
};
