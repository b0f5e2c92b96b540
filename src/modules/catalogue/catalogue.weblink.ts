import DataLoader from 'dataloader';
import { GraphQLFloat, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import type { Knex } from '../../platform/db/knex.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { toGlobalId } from '../../kit/graphql/ids.js';
import { listQuery, MAX_PAGE, NESTED_FIRST_ARGS, nestedFirst, type ListSpec } from '../../kit/graphql/lists.js';
import { categoriesByIds, subCategoriesByName, type CategoryCard } from '../categories/categories.data.js';
import { customFieldValuesOf, type CustomFieldValueView } from '../custom-fields/custom-fields.graphql.js';
import { bookedOf } from '../events/events.graphql.js';
import { supportedLocales, type LocaleRow } from '../locales/locales.data.js';
import { localeById } from '../locales/locales.graphql.js';
import {
  CATALOGUE_LISTS,
  fieldValuesOf,
  listedEventsOf,
  locationsByIds,
  PATH_TRANSLATIONS,
  TEMPLATE_TRANSLATIONS,
  templatesByIds,
  translationsOf,
  withTranslation,
  type CatalogueEvent,
  type CatalogueLearningPath,
  type CatalogueList,
  type CatalogueLocation,
  type CatalogueTemplate,
  type FieldValueOwner,
  type Overlay,
  type Translatable,
} from './catalogue.data.js';

/**
 * The WebLink catalogue: what a training company's own website shows, read-only and public.
 * Published course templates, learning paths, published public events that are not cancelled,
 * categories, and the locales content can be asked in. Nothing else of the instance is
 * reachable from here (no node(id:), no contacts, no drafts). The reads are the catalogue's
 * read model (catalogue.data.ts); this file shapes them.
 *
 * With `weblink-content-locale` (context.contentLocale), translated fields overlay the
 * authored ones, each falling back to the authored value where the locale has none (null);
 * an empty string is a deliberate blank. Without it nothing is read but the authored content.
 */

const id = (type: string) => ({ type: new GraphQLNonNull(GraphQLID), resolve: (r: { id: number }) => toGlobalId(type, r.id) });

/** Rows by id, one statement per batch. */
const rowsById = <R extends { id: number }>(fetch: (ids: readonly number[]) => Promise<R[]>) =>
  new DataLoader<number, R | undefined>(async (ids) => {
    const map = new Map((await fetch(ids)).map((r) => [r.id, r]));
    return ids.map((i) => map.get(i));
  });

/** Each record's rows, one statement per batch. */
const rowsByOwner = <R,>(fetch: (ids: readonly number[]) => Promise<Map<number, R[]>>) =>
  new DataLoader<number, R[]>(async (ids) => {
    const groups = await fetch(ids);
    return ids.map((i) => groups.get(i) ?? []);
  });

/** The record with id `rowId` through this request's loader `key`, or null. */
const byIdIn = async <R extends { id: number }>(ctx: GraphQLContext, key: string, fetch: (db: Knex, ids: readonly number[]) => Promise<R[]>, rowId: number | null): Promise<R | null> =>
  rowId == null ? null : ((await ctx.loader(`weblink.${key}.byId`, (db) => rowsById((ids) => fetch(db, ids))).load(rowId)) ?? null);

/** A text field in the content locale: its translation where there is one (null: none), else the authored value. */
function translated<C extends string>(o: Overlay<C>, column: C, nonNull = false): GraphQLFieldConfig<Translatable<C>, GraphQLContext> {
  return {
    type: nonNull ? new GraphQLNonNull(GraphQLString) : GraphQLString,
    resolve(row, _args, ctx) {
      const authored = (row as Record<C, string | null>)[column];
      const locale = ctx.contentLocale;
      if (!locale || locale.id === row.locale_id) return authored;
      const joined = `tr_${column}` as const;
      if (joined in row) return (row as Partial<Record<`tr_${C}`, string | null>>)[joined] ?? authored;
      // A record reached from another (an event's course template): its translations by loader.
      return ctx
        .loader(`weblink.${o.table}`, (db) => rowsByOwner((ids) => translationsOf(db, o, ids)))
        .load(row.id)
        .then((rows) => rows.find((t) => t.locale_id === locale.id)?.[column] ?? authored);
    },
  };
}

/** The page's query gets the translation in the content locale, when a request asks for one. */
const translation =
  (o: Overlay): ListSpec<{ id: number }>['select'] =>
  (q, ctx) => {
    if (ctx.contentLocale) withTranslation(ctx.db, q, o, ctx.contentLocale.id);
  };

const CustomFieldValue = new GraphQLObjectType<CustomFieldValueView, GraphQLContext>({
  name: 'CustomFieldValue',
  fields: {
    definitionKey: { type: new GraphQLNonNull(GraphQLID), resolve: (v) => v.def.key },
    label: { type: new GraphQLNonNull(GraphQLString), resolve: (v) => v.def.label },
    value: { type: GraphQLString },
  },
});

function customFieldValues(kind: FieldValueOwner): GraphQLFieldConfig<{ id: number }, GraphQLContext> {
  return {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(CustomFieldValue))),
    description: 'In the content locale where translated, else as authored.',
    resolve: async (row, _a, ctx) =>
      customFieldValuesOf(ctx, await ctx.loader(`weblink.${kind}_field_values`, (db) => rowsByOwner((ids) => fieldValuesOf(db, kind, ids))).load(row.id), ctx.contentLocale?.id ?? null),
  };
}

const Locale = new GraphQLObjectType<LocaleRow, GraphQLContext>({
  name: 'Locale',
  fields: { id: id('Locale'), code: { type: new GraphQLNonNull(GraphQLString) }, name: { type: new GraphQLNonNull(GraphQLString) }, fullName: { type: new GraphQLNonNull(GraphQLString), resolve: (l) => l.full_name } },
});
const localeField: GraphQLFieldConfig<{ locale_id: number | null }, GraphQLContext> = {
  type: Locale,
  description: 'The language the content was written in.',
  resolve: (r, _a, ctx) => localeById(ctx, r.locale_id ?? null),
};

const Category: GraphQLObjectType<CategoryCard, GraphQLContext> = new GraphQLObjectType<CategoryCard, GraphQLContext>({
  name: 'Category',
  fields: () => ({
    id: id('Category'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    introduction: { type: GraphQLString },
    parent: { type: Category, resolve: (c, _a, ctx) => byIdIn(ctx, 'categories', categoriesByIds, c.parent_id) },
    subCategories: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Category))),
      description: 'By name.',
      args: NESTED_FIRST_ARGS,
      resolve: async (c, args: { first?: number | null }, ctx) =>
        (await ctx.loader('weblink.subCategories', (db) => rowsByOwner((ids) => subCategoriesByName(db, ids))).load(c.id)).slice(0, nestedFirst(args)),
    },
  }),
});

/** Published course templates only: a template reached from an event is hidden when it is not. */
const publishedTemplate = async (ctx: GraphQLContext, templateId: number | null) => {
  const t = await byIdIn(ctx, 'course_templates', templatesByIds, templateId);
  return t?.lifecycle_state === 'published' ? t : null;
};

const CourseTemplate: GraphQLObjectType<CatalogueTemplate, GraphQLContext> = new GraphQLObjectType<CatalogueTemplate, GraphQLContext>({
  name: 'CourseTemplate',
  fields: () => ({
    id: id('CourseTemplate'),
    code: { type: GraphQLString },
    title: translated(TEMPLATE_TRANSLATIONS, 'title', true),
    courseText1: translated(TEMPLATE_TRANSLATIONS, 'course_text1'),
    courseText2: translated(TEMPLATE_TRANSLATIONS, 'course_text2'),
    relatedCoursesText: translated(TEMPLATE_TRANSLATIONS, 'related_courses_text'),
    lmsSummary: translated(TEMPLATE_TRANSLATIONS, 'lms_summary'),
    locale: localeField,
    category: { type: Category, resolve: (t, _a, ctx) => byIdIn(ctx, 'categories', categoriesByIds, t.category_id) },
    customFieldValues: customFieldValues('course_template'),
    events: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Event))),
      description: 'Its published public events that are not cancelled, soonest first.',
      args: NESTED_FIRST_ARGS,
      resolve: async (t, args: { first?: number | null }, ctx) =>
        // At most a page's worth each: `first` is bounded by MAX_PAGE.
        (await ctx.loader('weblink.templateEvents', (db) => rowsByOwner((ids) => listedEventsOf(db, ids, MAX_PAGE))).load(t.id)).slice(0, nestedFirst(args)),
    },
  }),
});

const LearningPath = new GraphQLObjectType<CatalogueLearningPath, GraphQLContext>({
  name: 'LearningPath',
  fields: () => ({
    id: id('LearningPath'),
    name: translated(PATH_TRANSLATIONS, 'name', true),
    description: translated(PATH_TRANSLATIONS, 'description'),
    locale: localeField,
    customFieldValues: customFieldValues('learning_path'),
  }),
});

const Location = new GraphQLObjectType<CatalogueLocation, GraphQLContext>({
  name: 'Location',
  fields: { name: { type: new GraphQLNonNull(GraphQLString) }, addressTown: { type: GraphQLString, resolve: (l) => l.address_town }, addressCountryId: { type: GraphQLString, resolve: (l) => l.address_country_id } },
});

const Event: GraphQLObjectType<CatalogueEvent, GraphQLContext> = new GraphQLObjectType<CatalogueEvent, GraphQLContext>({
  name: 'Event',
  description: 'An event as it is delivered: in its own locale (the course template it belongs to follows the content locale).',
  fields: () => ({
    id: id('Event'),
    code: { type: GraphQLString },
    title: { type: new GraphQLNonNull(GraphQLString) },
    locale: { ...localeField, description: 'The language the event is delivered in.' },
    courseTemplate: { type: CourseTemplate, resolve: (e, _a, ctx) => publishedTemplate(ctx, e.course_template_id) },
    startDate: { type: GraphQLString, resolve: (e) => e.start_date },
    endDate: { type: GraphQLString, resolve: (e) => e.end_date },
    classroomStartDateTime: { type: GraphQLString, resolve: (e) => e.classroom_start },
    classroomEndDateTime: { type: GraphQLString, resolve: (e) => e.classroom_end },
    timeZoneName: { type: GraphQLString, resolve: (e) => e.time_zone_name },
    location: { type: Location, resolve: (e, _a, ctx) => byIdIn(ctx, 'locations', locationsByIds, e.location_id) },
    price: { type: GraphQLFloat, resolve: (e) => (e.price === null ? null : Number(e.price)) },
    currencyCode: { type: GraphQLString, resolve: (e) => e.currency_code },
    placesLeft: { type: GraphQLInt, description: 'null when the event has no maximum.', resolve: async (e, _a, ctx) => (e.delegates_max === null ? null : Math.max(0, e.delegates_max - (await bookedOf(ctx).load(e.id)))) },
  }),
});

/** A catalogue list's table and scope, as the list engine takes them. */
const source = (list: CatalogueList) => ({ table: list.table, ...(list.scope ? { scope: list.scope } : {}) });

export const catalogueCourseTemplatesQuery = listQuery<CatalogueTemplate>({
  typeName: 'CourseTemplate',
  ...source(CATALOGUE_LISTS.courseTemplates),
  permission: null,
  node: () => CourseTemplate,
  description: 'Published course templates.',
  select: translation(TEMPLATE_TRANSLATIONS),
  defaultOrder: { field: 'title', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'CourseTemplate', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    title: { column: 'title', kind: 'text', orderable: true, description: 'The authored title.' },
    category: { column: 'category_id', kind: 'ref', refType: 'Category' },
    locale: { column: 'locale_id', kind: 'ref', refType: 'Locale' },
  },
});

export const catalogueLearningPathsQuery = listQuery<CatalogueLearningPath>({
  typeName: 'LearningPath',
  ...source(CATALOGUE_LISTS.learningPaths),
  permission: null,
  node: () => LearningPath,
  select: translation(PATH_TRANSLATIONS),
  defaultOrder: { field: 'name', direction: 'asc' },
  fields: { id: { column: 'id', kind: 'id', refType: 'LearningPath', orderable: true }, name: { column: 'name', kind: 'text', orderable: true } },
});

export const catalogueEventsQuery = listQuery<CatalogueEvent>({
  typeName: 'Event',
  ...source(CATALOGUE_LISTS.events),
  permission: null,
  node: () => Event,
  description: 'Published public events that are not cancelled, of published course templates or none.',
  defaultOrder: { field: 'startDate', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Event', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    title: { column: 'title', kind: 'text', orderable: true },
    courseTemplate: { column: 'course_template_id', kind: 'ref', refType: 'CourseTemplate' },
    locale: { column: 'locale_id', kind: 'ref', refType: 'Locale' },
    startDate: { column: 'start_date', kind: 'date', orderable: true },
  },
});

export const catalogueCategoriesQuery = listQuery<CategoryCard>({
  typeName: 'Category',
  ...source(CATALOGUE_LISTS.categories),
  permission: null,
  node: () => Category,
  defaultOrder: { field: 'name', direction: 'asc' },
  fields: { id: { column: 'id', kind: 'id', refType: 'Category', orderable: true }, name: { column: 'name', kind: 'text', orderable: true }, parent: { column: 'parent_id', kind: 'ref', refType: 'Category' } },
});

export const catalogueLocalesQuery: GraphQLFieldConfig<unknown, GraphQLContext> = {
  type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Locale))),
  description: 'The locales this instance has content in: the values weblink-content-locale takes.',
  resolve: (_r, _a, ctx) => supportedLocales(ctx.db),
};
