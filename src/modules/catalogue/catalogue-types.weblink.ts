import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  GraphQLUnionType,
  type GraphQLFieldConfig,
} from 'graphql';
import type { Knex } from '../../platform/db/knex.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { toGlobalId } from '../../kit/graphql/ids.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { MAX_PAGE, PageInfoObject } from '../../kit/graphql/lists.js';
import { categoriesByIds } from '../categories/index.js';
import { valuesOf, valueTableOf } from '../custom-fields/index.js';
import { customFieldValuesOf, type CustomFieldValueView } from '../custom-fields/index.graphql.js';
import { documentsByIds } from '../documents/index.js';
import { bookedOf } from '../events/index.graphql.js';
import { objectivesOf, type LearningPathObjectiveRow } from '../learning-paths/index.js';
import type { LocaleRow } from '../locales/index.js';
import { localeById } from '../locales/index.graphql.js';
import { locationRowsByIds, type LocationRow } from '../locations/index.js';
import { mostUsedCurrency, priceOwnerId, pricesOf, type PriceOwner, financialUnitOf, type FinancialUnit } from '../pricing/index.js';
import { taxTypesByIds, type TaxTypeRow } from '../tax-types/index.js';
import {
  categoriesInLocale,
  listedEventsByIds,
  publishedCoursesByIds,
  publishedCoursesInLocale,
  translationsOf,
  type CatalogueCourse,
  type CatalogueEvent,
  type WebLinkCatalogueItemUnion as CatalogueItemRow,
  type CataloguePath,
  type CatalogueCategory,
  type CatalogueText,
  type FieldValueOwner,
} from './catalogue.data.js';
import { instantOf, type Instant } from './catalogue.format.js';

/**
 * The WebLink catalogue's types, named and shaped as the production service's website plugins and
 * SDK read them (real-clients.md section 2): `Course` (a published course template), `LearningPath`
 * (an active one), `Event`, `Category`, `Location`, and the `CatalogueItem` union. Ids are
 * `<Type>:<id>` in base64: `Course:<template id>`, `Event:<event id>`, `LearningPath:<id>`.
 * What a node shows of other records is read in batches (one statement per kind per page).
 *
 * With `weblink-content-locale` (context.contentLocale), names, descriptions, category names and
 * custom field values overlay the authored ones per field, each falling back to the authored
 * value where the locale has none (null); an empty string is a deliberate blank. Without it, only
 * authored content.
 */

const id = (type: string) => ({ type: new GraphQLNonNull(GraphQLID), resolve: (r: { id: number }) => toGlobalId(type, r.id) });

/** This request's loader `key` of records by id. */
const loadById = <R extends { id: number }>(
  ctx: GraphQLContext,
  key: string,
  read: (db: Knex, ids: readonly number[]) => Promise<R[]>,
  rowId: number | null | undefined,
): Promise<R | null> =>
  rowId == null
    ? Promise.resolve(null)
    : ctx
        .loader(`weblink.${key}`, (db) => byId((ids) => read(db, ids)))
        .load(rowId)
        .then((r) => r ?? null);

/** This request's memo of one read. */
const once = <T>(ctx: GraphQLContext, key: string, read: (db: Knex) => Promise<T>): Promise<T> =>
  ctx.loader(`weblink.${key}`, (db) => ({ value: read(db) })).value;

/** A name, description or teaser in the content locale: its translation where there is one (null: none), else the authored value. */
function text(
  kind: FieldValueOwner,
  column: 'name' | 'description' | 'teaser_description',
  nonNull = false,
): GraphQLFieldConfig<CatalogueText, GraphQLContext> {
  return {
    type: nonNull ? new GraphQLNonNull(GraphQLString) : GraphQLString,
    resolve(row, _args, ctx) {
      const authored = row[column] ?? null;
      const locale = ctx.contentLocale;
      if (!locale || locale.id === row.locale_id) return authored;
      const joined = `tr_${column}` as const;
      if (joined in row) return row[joined] ?? authored;
      // A record reached from another (an event's course): its translations by loader.
      return ctx
        .loader(`weblink.translations.${kind}`, (db) =>
          byOwner(
            (ids) => translationsOf(db, kind, ids).then((m) => [...m.values()].flat()),
            (t) => Number(t.owner),
          ),
        )
        .load(row.id)
        .then((rows) => rows.find((t) => t.locale_id === locale.id)?.[column] ?? authored);
    },
  };
}

const WebLinkCustomFieldValueObject = new GraphQLObjectType<CustomFieldValueView, GraphQLContext>({
  name: 'CustomFieldValue',
  fields: {
    definitionKey: { type: new GraphQLNonNull(GraphQLID), resolve: (v) => v.def.key },
    label: { type: new GraphQLNonNull(GraphQLString), resolve: (v) => v.def.label },
    value: { type: GraphQLString },
  },
});

function customFieldValues(kind: FieldValueOwner): GraphQLFieldConfig<{ id: number }, GraphQLContext> {
  return {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(WebLinkCustomFieldValueObject))),
    description: 'In the content locale where translated, else as authored.',
    resolve: async (row, _a, ctx) =>
      customFieldValuesOf(
        ctx,
        await ctx
          .loader(`weblink.fieldValues.${kind}`, (db) =>
            byOwner(
              (ids) => valuesOf(db, kind, ids),
              (v) => (v as unknown as Record<string, number>)[valueTableOf(kind).owner]!,
            ),
          )
          .load(row.id),
        ctx.contentLocale?.id ?? null,
      ),
  };
}

export const WebLinkLocaleObject = new GraphQLObjectType<LocaleRow, GraphQLContext>({
  name: 'Locale',
  fields: {
    id: id('Locale'),
    code: { type: new GraphQLNonNull(GraphQLString) },
    name: { type: new GraphQLNonNull(GraphQLString) },
    fullName: { type: new GraphQLNonNull(GraphQLString), resolve: (l) => l.full_name },
  },
});

const WebLinkFinancialUnitObject = new GraphQLObjectType<FinancialUnit>({
  name: 'FinancialUnit',
  description: 'A currency: its ISO 4217 code, English name and symbol.',
  fields: {
    code: { type: new GraphQLNonNull(GraphQLString) },
    name: { type: new GraphQLNonNull(GraphQLString) },
    symbol: { type: new GraphQLNonNull(GraphQLString) },
  },
});

interface Money {
  amount: number;
  currency: string | null;
}

const WebLinkPriceObject = new GraphQLObjectType<Money>({
  name: 'Price',
  fields: {
    amount: { type: new GraphQLNonNull(GraphQLFloat) },
    financialUnit: { type: WebLinkFinancialUnitObject, resolve: (m) => (m.currency ? financialUnitOf(m.currency) : null) },
  },
});

const WebLinkPriceRangeObject = new GraphQLObjectType<{ normalPrice: Money | null }>({
  name: 'PriceRange',
  fields: { normalPrice: { type: WebLinkPriceObject, description: 'The price at the "Normal" price level.' } },
});

/**
 * A record's price at the "Normal" level: the one for no region (else a regional one); when it
 * has Normal prices in several currencies, the one in the currency most of the instance's prices
 * are in, else the first currency by code.
 */
async function normalPrice(ctx: GraphQLContext, owner: PriceOwner, ownerId: number): Promise<Money | null> {
  const rows = await ctx
    .loader(`weblink.normalPrices-${owner}`, (db) =>
      byOwner(
        (ids) => pricesOf(db, owner, ids, 'Normal'),
        (p) => priceOwnerId(owner, p),
      ),
    )
    .load(ownerId);
  if (!rows.length) return null;
  const currencies = [...new Set(rows.map((p) => p.currency_code))].sort();
  let currency = currencies[0]!;
  if (currencies.length > 1) {
    const common = await once(ctx, 'mostUsedCurrency', (db) => mostUsedCurrency(db));
    if (common && currencies.includes(common)) currency = common;
  }
  const inCurrency = rows.filter((p) => p.currency_code === currency);
  const chosen = inCurrency.find((p) => p.region_id === null) ?? inCurrency[0]!;
  return { amount: Number(chosen.amount), currency: chosen.currency_code };
}

/**
 * This request's category with this id: with a content locale, with its translation there (one
 * statement per page either way, so the header costs no statement of its own).
 */
const categoryById = (ctx: GraphQLContext, categoryId: number | null): Promise<CatalogueCategory | null> => {
  const locale = ctx.contentLocale;
  if (!locale) return loadById(ctx, 'categories', categoriesByIds, categoryId);
  return loadById(ctx, 'categoriesInLocale', (db, ids) => categoriesInLocale(db, ids, locale.id), categoryId);
};

/**
 * A category's name or introduction in the content locale: its translation where there is one
 * (null: none), else the authored value. Categories have no primary locale, so a translation in
 * any locale overlays. A row read without a content locale has no translation columns.
 */
function categoryText(c: CatalogueCategory, column: 'name' | 'introduction'): string | null {
  const translated = column === 'name' ? c.tr_name : c.tr_introduction;
  return translated ?? c[column];
}

const categoryName: GraphQLFieldConfig<{ category_id: number | null }, GraphQLContext> = {
  type: GraphQLString,
  description: "Its category's name (in the content locale where translated).",
  resolve: async (r, _a, ctx) => {
    const category = await categoryById(ctx, r.category_id);
    return category ? categoryText(category, 'name') : null;
  },
};

const imageUrl: GraphQLFieldConfig<{ image_document_id: number | null }, GraphQLContext> = {
  type: GraphQLString,
  description: 'The address of its image, if it has one.',
  resolve: async (r, _a, ctx) => (await loadById(ctx, 'documents', documentsByIds, r.image_document_id))?.url ?? null,
};

export const WebLinkCategoryObject: GraphQLObjectType<CatalogueCategory, GraphQLContext> = new GraphQLObjectType<
  CatalogueCategory,
  GraphQLContext
>({
  name: 'Category',
  fields: () => ({
    id: id('Category'),
    name: { type: new GraphQLNonNull(GraphQLString), resolve: (c) => categoryText(c, 'name') },
    shortDescription: { type: GraphQLString, resolve: (c) => categoryText(c, 'introduction') },
    parent: { type: WebLinkCategoryObject, resolve: (c, _a, ctx) => categoryById(ctx, c.parent_id) },
  }),
});

export const WebLinkLocationObject = new GraphQLObjectType<Pick<LocationRow, 'id' | 'name'>, GraphQLContext>({
  name: 'Location',
  fields: { id: id('Location'), name: { type: new GraphQLNonNull(GraphQLString) } },
});

const WebLinkTaxObject = new GraphQLObjectType<TaxTypeRow, GraphQLContext>({
  name: 'Tax',
  fields: {
    id: id('TaxType'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    effectiveRate: { type: new GraphQLNonNull(GraphQLFloat), description: 'Percent, e.g. 20 for 20 %.', resolve: (t) => Number(t.rate) },
  },
});

export const WebLinkCourseObject: GraphQLObjectType<CatalogueCourse, GraphQLContext> = new GraphQLObjectType<
  CatalogueCourse,
  GraphQLContext
>({
  name: 'Course',
  description: 'A published course template.',
  fields: () => ({
    id: id('Course'),
    code: { type: GraphQLString },
    name: text('course_template', 'name', true),
    description: text('course_template', 'description'),
    teaserDescription: text('course_template', 'teaser_description'),
    category: categoryName,
    imageUrl,
    locale: { type: WebLinkLocaleObject, resolve: (c, _a, ctx) => localeById(ctx, c.locale_id) },
    priceRange: {
      type: new GraphQLNonNull(WebLinkPriceRangeObject),
      resolve: async (c, _a, ctx) => ({ normalPrice: await normalPrice(ctx, 'course_template', c.id) }),
    },
    customFieldValues: customFieldValues('course_template'),
  }),
});

/** A published course by id; with a content locale, with its translation there (the header costs no statement of its own). */
const publishedCourse = (ctx: GraphQLContext, templateId: number | null) => {
  const locale = ctx.contentLocale;
  if (!locale) return loadById(ctx, 'courses', publishedCoursesByIds, templateId);
  return loadById(ctx, 'coursesInLocale', (db, ids) => publishedCoursesInLocale(db, ids, locale.id), templateId);
};
const listedEvent = (ctx: GraphQLContext, eventId: number | null) => loadById(ctx, 'events', listedEventsByIds, eventId);

/** An event's start and end: its classroom period, else its online one, else its dates. */
const eventStart = (e: CatalogueEvent) => instantOf(e.classroom_start ?? e.lms_start ?? e.start_date, e.time_zone_name);
const eventEnd = (e: CatalogueEvent) => instantOf(e.classroom_end ?? e.lms_end ?? e.end_date, e.time_zone_name);
const at = (pick: (e: CatalogueEvent) => Instant | null) => ({
  type: GraphQLString,
  description: "ISO 8601 with the offset of the event's time zone.",
  resolve: (e: CatalogueEvent) => pick(e)?.iso ?? null,
});

export const WebLinkEventObject: GraphQLObjectType<CatalogueEvent, GraphQLContext> = new GraphQLObjectType<CatalogueEvent, GraphQLContext>({
  name: 'Event',
  description: 'A published public event that is not cancelled, as it is delivered (in its own locale).',
  fields: () => ({
    id: id('Event'),
    name: { type: new GraphQLNonNull(GraphQLString), resolve: (e) => e.title },
    code: { type: GraphQLString },
    price: {
      type: WebLinkPriceObject,
      description: 'Its price at the "Normal" level, else the price set on the event.',
      resolve: async (e, _a, ctx) =>
        (await normalPrice(ctx, 'event', e.id)) ?? (e.price === null ? null : { amount: Number(e.price), currency: e.currency_code }),
    },
    classroomStart: at((e) => instantOf(e.classroom_start, e.time_zone_name)),
    classroomEnd: at((e) => instantOf(e.classroom_end, e.time_zone_name)),
    lmsStart: at((e) => instantOf(e.lms_start, e.time_zone_name)),
    lmsEnd: at((e) => instantOf(e.lms_end, e.time_zone_name)),
    start: at(eventStart),
    end: at(eventEnd),
    timeZoneName: { type: GraphQLString, resolve: (e) => e.time_zone_name },
    deliveryMethod: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'classroom, lms or blended.',
      resolve: (e) => e.delivery_method,
    },
    remainingPlaces: {
      type: GraphQLInt,
      description: 'Places left; null when the event has no maximum.',
      resolve: async (e, _a, ctx) => (e.delegates_max === null ? null : Math.max(0, e.delegates_max - (await bookedOf(ctx).load(e.id)))),
    },
    location: { type: WebLinkLocationObject, resolve: (e, _a, ctx) => loadById(ctx, 'locations', locationRowsByIds, e.location_id) },
    tax: { type: WebLinkTaxObject, resolve: (e, _a, ctx) => loadById(ctx, 'taxTypes', taxTypesByIds, e.tax_type_id) },
    locale: {
      type: WebLinkLocaleObject,
      description: 'The language it is delivered in.',
      resolve: (e, _a, ctx) => localeById(ctx, e.locale_id),
    },
    course: { type: WebLinkCourseObject, resolve: (e, _a, ctx) => publishedCourse(ctx, e.course_template_id) },
  }),
});

const objectiveId = {
  type: new GraphQLNonNull(GraphQLID),
  resolve: (o: LearningPathObjectiveRow) => toGlobalId('LearningObjective', o.id),
};

export const WebLinkLearningObjectiveInterface = new GraphQLInterfaceType({
  name: 'LearningObjective',
  description: 'A step of a learning path: an event, or a course (any of its events).',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) } },
  resolveType: (o: LearningPathObjectiveRow) => (o.event_id !== null ? 'EventObjective' : 'CourseObjective'),
});

const WebLinkEventObjectiveObject = new GraphQLObjectType<LearningPathObjectiveRow, GraphQLContext>({
  name: 'EventObjective',
  interfaces: [WebLinkLearningObjectiveInterface],
  fields: () => ({
    id: objectiveId,
    event: {
      type: WebLinkEventObject,
      description: 'null when the event is not listed (any more).',
      resolve: (o, _a, ctx) => listedEvent(ctx, o.event_id),
    },
  }),
});

const WebLinkCourseObjectiveObject = new GraphQLObjectType<LearningPathObjectiveRow, GraphQLContext>({
  name: 'CourseObjective',
  interfaces: [WebLinkLearningObjectiveInterface],
  fields: () => ({
    id: objectiveId,
    course: {
      type: WebLinkCourseObject,
      description: 'null when the course is not published.',
      resolve: (o, _a, ctx) => publishedCourse(ctx, o.course_template_id),
    },
  }),
});

export const OBJECTIVE_TYPES = [WebLinkEventObjectiveObject, WebLinkCourseObjectiveObject];

const WebLinkLearningObjectiveConnection = new GraphQLObjectType({
  name: 'LearningObjectiveConnection',
  fields: {
    edges: {
      type: new GraphQLNonNull(
        new GraphQLList(
          new GraphQLNonNull(
            new GraphQLObjectType({
              name: 'LearningObjectiveEdge',
              fields: { node: { type: new GraphQLNonNull(WebLinkLearningObjectiveInterface) } },
            }),
          ),
        ),
      ),
    },
    pageInfo: { type: new GraphQLNonNull(PageInfoObject) },
  },
});

const objectivesLoader = (ctx: GraphQLContext) =>
  ctx.loader('weblink.objectives', (db) =>
    byOwner(
      (ids) => objectivesOf(db, ids),
      (o: LearningPathObjectiveRow) => o.learning_path_id,
    ),
  );

/** The listed events of a path's event objectives. */
async function pathEvents(ctx: GraphQLContext, pathId: number): Promise<CatalogueEvent[]> {
  const objectives = await objectivesLoader(ctx).load(pathId);
  const events = await Promise.all(objectives.filter((o) => o.event_id !== null).map((o) => listedEvent(ctx, o.event_id)));
  return events.filter((e): e is CatalogueEvent => e !== null);
}

/** The earliest start or latest end of a path's objective events. */
const pathBound = (which: 'start' | 'end'): GraphQLFieldConfig<CataloguePath, GraphQLContext> => ({
  type: GraphQLString,
  description: which === 'start' ? 'When its first objective event starts.' : 'When its last objective event ends.',
  resolve: async (p, _a, ctx) => {
    const instants = (await pathEvents(ctx, p.id)).map(which === 'start' ? eventStart : eventEnd).filter((i): i is Instant => i !== null);
    if (!instants.length) return null;
    return instants.reduce((best, i) => ((which === 'start' ? i.ms < best.ms : i.ms > best.ms) ? i : best)).iso;
  },
});

export const WebLinkLearningPathObject = new GraphQLObjectType<CataloguePath, GraphQLContext>({
  name: 'LearningPath',
  description: 'An active learning path.',
  fields: () => ({
    id: id('LearningPath'),
    code: { type: GraphQLString },
    name: text('learning_path', 'name', true),
    description: text('learning_path', 'description'),
    lifecycleState: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => p.lifecycle_state },
    isBundle: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (p) => p.is_bundle },
    category: categoryName,
    imageUrl,
    price: {
      type: WebLinkPriceObject,
      description: 'Its price at the "Normal" level.',
      resolve: (p, _a, ctx) => normalPrice(ctx, 'learning_path', p.id),
    },
    start: pathBound('start'),
    end: pathBound('end'),
    locale: { type: WebLinkLocaleObject, resolve: (p, _a, ctx) => localeById(ctx, p.locale_id) },
    customFieldValues: customFieldValues('learning_path'),
    learningObjectives: {
      type: new GraphQLNonNull(WebLinkLearningObjectiveConnection),
      // No `first` (the plugins send none): what a path's objectives lead to has no lists, so they
      // cannot multiply an answer; at most a page of them is shown.
      description: `Its objectives, in order (at most ${MAX_PAGE}).`,
      resolve: async (p, _args, ctx) => {
        const all = await objectivesLoader(ctx).load(p.id);
        const shown = all.slice(0, MAX_PAGE);
        return {
          edges: shown.map((node) => ({ node })),
          pageInfo: {
            startCursor: null,
            endCursor: null,
            totalRecords: all.length,
            hasNextPage: shown.length < all.length,
            hasPreviousPage: false,
          },
        };
      },
    },
  }),
});

export const CatalogueItem = new GraphQLUnionType({
  name: 'CatalogueItem',
  description: 'A published course or an active learning path.',
  types: () => [WebLinkCourseObject, WebLinkLearningPathObject],
  resolveType: (item: CatalogueItemRow) => (item.kind === 'CourseTemplate' ? 'Course' : 'LearningPath'),
});
