import { GraphQLFloat, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import DataLoader from 'dataloader';
import type { Knex } from '../platform/db/knex.js';
import type { GraphQLContext } from '../kit/graphql/context.js';
import { toGlobalId } from '../kit/graphql/ids.js';
import { listQuery, MAX_PAGE, NESTED_FIRST_ARGS, nestedFirst } from '../kit/graphql/lists.js';
import { byId, byOwner } from '../kit/graphql/loaders.js';
import { customFieldValuesOf, type CustomFieldValueView } from '../modules/custom-fields/custom-fields.graphql.js';
import type { FieldValueRow } from '../modules/custom-fields/custom-fields.service.js';
import { localeById } from '../modules/locales/locales.graphql.js';
import type { LocaleRow } from '../modules/locales/locales.service.js';
import { bookedOf } from '../modules/events/events.graphql.js';

/**
 * The WebLink catalogue: what a training company's own website shows, read-only and public.
 * Published course templates, learning paths, published public events that are not cancelled,
 * categories, and the locales content can be asked in. Nothing else of the instance is
 * reachable from here (no node(id:), no contacts, no drafts).
 *
 * With `weblink-content-locale` (context.contentLocale), translated fields overlay the
 * authored ones, each falling back to the authored value where the locale has none (null);
 * an empty string is a deliberate blank. Without it nothing is read but the authored content.
 */
type Row = Record<string, unknown> & { id: number; locale_id?: number | null };

const id = (type: string) => ({ type: new GraphQLNonNull(GraphQLID), resolve: (r: Row) => toGlobalId(type, r.id) });

/** Where a kind of record keeps its translations, and which of its columns they overlay. */
interface Overlay {
  table: string;
  owner: string;
  columns: string[];
}
const TEMPLATE_TRANSLATIONS: Overlay = { table: 'course_template_translations', owner: 'course_template_id', columns: ['title', 'course_text1', 'course_text2', 'related_courses_text', 'lms_summary'] };
const PATH_TRANSLATIONS: Overlay = { table: 'learning_path_translations', owner: 'learning_path_id', columns: ['name', 'description'] };

/**
 * A list's rows come with their translation in the content locale (`tr_<column>`), joined in
 * the page's one query, so overlaying costs no more statements and no more awaits. Without a
 * content locale the query is the one it always was.
 */
const withTranslation = (o: Overlay) => (q: Knex.QueryBuilder, ctx: GraphQLContext) => {
  if (!ctx.contentLocale) return;
  q.leftJoin(`${o.table} as tr`, (j) => j.on('tr.' + o.owner, 't.id').andOn('tr.locale_id', ctx.db.raw('?', [ctx.contentLocale!.id])));
  q.select(o.columns.map((c) => `tr.${c} as tr_${c}`));
};

/** A text field in the content locale: its translation where there is one (null: none), else the authored value. */
function translated(o: Overlay, column: string, nonNull = false): GraphQLFieldConfig<Row, GraphQLContext> {
  return {
    type: nonNull ? new GraphQLNonNull(GraphQLString) : GraphQLString,
    resolve(row, _args, ctx) {
      const locale = ctx.contentLocale;
      if (!locale || locale.id === row.locale_id) return row[column];
      if (`tr_${column}` in row) return row[`tr_${column}`] ?? row[column];
      // A record reached from another (an event's course template): its translations by loader.
      return ctx.loader(`weblink.${o.table}`, (db) => byOwner<Row>(db, o.table, o.owner, 'locale_id'))
        .load(row.id)
        .then((rows) => rows.find((t) => t.locale_id === locale.id)?.[column] ?? row[column]);
    },
  };
}

const CustomFieldValue = new GraphQLObjectType<CustomFieldValueView, GraphQLContext>({
  name: 'CustomFieldValue',
  fields: {
    definitionKey: { type: new GraphQLNonNull(GraphQLID), resolve: (v) => v.def.key },
    label: { type: new GraphQLNonNull(GraphQLString), resolve: (v) => v.def.label },
    value: { type: GraphQLString },
  },
});

function customFieldValues(table: string, owner: string): GraphQLFieldConfig<Row, GraphQLContext> {
  return {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(CustomFieldValue))),
    description: 'In the content locale where translated, else as authored.',
    resolve: async (row, _a, ctx) => customFieldValuesOf(ctx, await ctx.loader(`weblink.${table}`, (db) => byOwner<FieldValueRow>(db, table, owner)).load(row.id), ctx.contentLocale?.id ?? null),
  };
}

const Locale = new GraphQLObjectType<LocaleRow, GraphQLContext>({
  name: 'Locale',
  fields: { id: id('Locale'), code: { type: new GraphQLNonNull(GraphQLString) }, name: { type: new GraphQLNonNull(GraphQLString) }, fullName: { type: new GraphQLNonNull(GraphQLString), resolve: (l) => l.full_name } },
});
const localeField: GraphQLFieldConfig<Row, GraphQLContext> = { type: Locale, description: 'The language the content was written in.', resolve: (r, _a, ctx) => localeById(ctx, r.locale_id ?? null) };

const byIdIn = (ctx: GraphQLContext, table: string, rowId: unknown) => (rowId == null ? null : ctx.loader(`weblink.${table}.byId`, (db) => byId<Row>(db, table)).load(rowId as number).then((r) => r ?? null));

const Category: GraphQLObjectType<Row, GraphQLContext> = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'Category',
  fields: () => ({
    id: id('Category'),
    name: { type: new GraphQLNonNull(GraphQLString) },
    introduction: { type: GraphQLString },
    parent: { type: Category, resolve: (c, _a, ctx) => byIdIn(ctx, 'categories', c.parent_id) },
    subCategories: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Category))),
      description: 'By name.',
      args: NESTED_FIRST_ARGS,
      resolve: async (c, args: { first?: number | null }, ctx) => (await ctx.loader('weblink.subCategories', (db) => byOwner<Row>(db, 'categories', 'parent_id', 'name')).load(c.id)).slice(0, nestedFirst(args)),
    },
  }),
});

/** Published course templates only: a template reached from an event is hidden when it is not. */
const publishedTemplate = async (ctx: GraphQLContext, templateId: unknown) => {
  const t = await byIdIn(ctx, 'course_templates', templateId);
  return t?.lifecycle_state === 'published' ? t : null;
};

const CourseTemplate: GraphQLObjectType<Row, GraphQLContext> = new GraphQLObjectType<Row, GraphQLContext>({
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
    category: { type: Category, resolve: (t, _a, ctx) => byIdIn(ctx, 'categories', t.category_id) },
    customFieldValues: customFieldValues('course_template_field_values', 'course_template_id'),
    events: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Event))),
      description: 'Its published public events that are not cancelled, soonest first.',
      args: NESTED_FIRST_ARGS,
      resolve: async (t, args: { first?: number | null }, ctx) => (await ctx.loader('weblink.templateEvents', listedEventsOf).load(t.id)).slice(0, nestedFirst(args)),
    },
  }),
});

const LearningPath = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'LearningPath',
  fields: () => ({
    id: id('LearningPath'),
    name: translated(PATH_TRANSLATIONS, 'name', true),
    description: translated(PATH_TRANSLATIONS, 'description'),
    locale: localeField,
    customFieldValues: customFieldValues('learning_path_field_values', 'learning_path_id'),
  }),
});

const Location = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'Location',
  fields: { name: { type: new GraphQLNonNull(GraphQLString) }, addressTown: { type: GraphQLString, resolve: (l) => l.address_town }, addressCountryId: { type: GraphQLString, resolve: (l) => l.address_country_id } },
});

/** The events WebLink lists: published, public, not cancelled. */
const listedEvents = (q: Knex.QueryBuilder, alias: string) => q.where({ [`${alias}.lifecycle_state`]: 'published', [`${alias}.type`]: 'public', [`${alias}.is_cancelled`]: false });

/** Each template's listed events, soonest first, at most a page's worth each, in one statement for a page of templates. */
const listedEventsOf = (db: Knex) =>
  new DataLoader<number, Row[]>(async (ids) => {
    const ranked = listedEvents(db('events as e').whereIn('e.course_template_id', ids as number[]), 'e').select('e.*', db.raw('row_number() over (partition by e.course_template_id order by e.start_date, e.id) as rank'));
    const rows = (await db.from(ranked.as('r')).where('r.rank', '<=', MAX_PAGE).orderBy(['r.course_template_id', 'r.rank'])) as Row[];
    const groups = new Map<number, Row[]>();
    for (const r of rows) {
      const owner = r.course_template_id as number;
      if (!groups.has(owner)) groups.set(owner, []);
      groups.get(owner)!.push(r);
    }
    return ids.map((id) => groups.get(id) ?? []);
  });

const Event: GraphQLObjectType<Row, GraphQLContext> = new GraphQLObjectType<Row, GraphQLContext>({
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
    location: { type: Location, resolve: (e, _a, ctx) => byIdIn(ctx, 'locations', e.location_id) },
    price: { type: GraphQLFloat, resolve: (e) => (e.price === null ? null : Number(e.price)) },
    currencyCode: { type: GraphQLString, resolve: (e) => e.currency_code },
    placesLeft: { type: GraphQLInt, description: 'null when the event has no maximum.', resolve: async (e, _a, ctx) => (e.delegates_max === null ? null : Math.max(0, (e.delegates_max as number) - (await bookedOf(ctx).load(e.id)))) },
  }),
});

export function buildWebLinkSchema(): GraphQLSchema {
  const query = new GraphQLObjectType<unknown, GraphQLContext>({
    name: 'Query',
    fields: {
      courseTemplates: listQuery<Row>({
        typeName: 'CourseTemplate',
        table: 'course_templates',
        permission: null,
        node: () => CourseTemplate,
        description: 'Published course templates.',
        scope: (q) => q.where('t.lifecycle_state', 'published'),
        select: withTranslation(TEMPLATE_TRANSLATIONS),
        defaultOrder: { field: 'title', direction: 'asc' },
        fields: {
          id: { column: 'id', kind: 'id', refType: 'CourseTemplate', orderable: true },
          code: { column: 'code', kind: 'text', orderable: true },
          title: { column: 'title', kind: 'text', orderable: true, description: 'The authored title.' },
          category: { column: 'category_id', kind: 'ref', refType: 'Category' },
          locale: { column: 'locale_id', kind: 'ref', refType: 'Locale' },
        },
      }),
      learningPaths: listQuery<Row>({
        typeName: 'LearningPath',
        table: 'learning_paths',
        permission: null,
        node: () => LearningPath,
        select: withTranslation(PATH_TRANSLATIONS),
        defaultOrder: { field: 'name', direction: 'asc' },
        fields: { id: { column: 'id', kind: 'id', refType: 'LearningPath', orderable: true }, name: { column: 'name', kind: 'text', orderable: true } },
      }),
      events: listQuery<Row>({
        typeName: 'Event',
        table: 'events',
        permission: null,
        node: () => Event,
        description: 'Published public events that are not cancelled, of published course templates or none.',
        scope: (q) =>
          listedEvents(q, 't').where((w) =>
            w.whereNull('t.course_template_id').orWhereExists((e) => e.select(1).from('course_templates as ct').whereRaw('ct.id = t.course_template_id').where('ct.lifecycle_state', 'published')),
          ),
        defaultOrder: { field: 'startDate', direction: 'asc' },
        fields: {
          id: { column: 'id', kind: 'id', refType: 'Event', orderable: true },
          code: { column: 'code', kind: 'text', orderable: true },
          title: { column: 'title', kind: 'text', orderable: true },
          courseTemplate: { column: 'course_template_id', kind: 'ref', refType: 'CourseTemplate' },
          locale: { column: 'locale_id', kind: 'ref', refType: 'Locale' },
          startDate: { column: 'start_date', kind: 'date', orderable: true },
        },
      }),
      categories: listQuery<Row>({
        typeName: 'Category',
        table: 'categories',
        permission: null,
        node: () => Category,
        defaultOrder: { field: 'name', direction: 'asc' },
        fields: { id: { column: 'id', kind: 'id', refType: 'Category', orderable: true }, name: { column: 'name', kind: 'text', orderable: true }, parent: { column: 'parent_id', kind: 'ref', refType: 'Category' } },
      }),
      locales: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Locale))),
        description: 'The locales this instance has content in: the values weblink-content-locale takes.',
        resolve: (_r, _a, ctx) => ctx.db('locales').where({ supported: true }).orderBy('id'),
      },
    },
  });
  return new GraphQLSchema({ query });
}
