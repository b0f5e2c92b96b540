import {
  GraphQLEnumType,
  GraphQLID,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
} from 'graphql';
import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { LifecycleStateEnum } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { badInput } from '../../kit/graphql/errors.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery, type ListField } from '../../kit/graphql/lists.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { learningCategoriesField } from '../categories/index.graphql.js';
import { customFieldValuesField, customFieldValuesOf } from '../custom-fields/index.graphql.js';
import { imageField, imageGalleryField } from '../documents/index.graphql.js';
import { LocaleObject, localeById } from '../locales/index.graphql.js';
import { whereHasPrice } from '../pricing/index.js';
import { currencyCodeOf, pricesField } from '../pricing/index.graphql.js';
import { translationFace } from '../translations/index.graphql.js';
import { accountAssociationsField } from './account-associations.graphql.js';
import { approvedInstructorsField } from './approved-instructors.graphql.js';
import {
  CourseTemplate as CourseTemplateModel,
  CourseTemplateDeliveryLocale,
  courseTemplatesByIds,
  deliveryLocalesOf,
  whereCodeOrTitle,
  whereValidForPortal,
  whereWithoutEvents,
  type CourseTemplateRow,
} from './course-templates.data.js';
import { EVENT_LEARNING_MODES, SESSION_LAYOUTS } from './course-templates.rules.js';
import { COURSE_TEMPLATE_TRANSLATED } from './course-templates.service.js';

/**
 * The CourseTemplate type in GraphQL (the REST API's event template): its fields, locales and
 * translations, and the `courseTemplates` list. Its own file, apart from the mutations, so the
 * types that refer to it (Event, BackgroundJob) and the mutation that answers a BackgroundJob
 * (`applyToEvents`) form no import circle. Reading needs COURSE_TEMPLATE_VIEW.
 */
export const VIEW = 'COURSE_TEMPLATE_VIEW';
export const EDIT = 'COURSE_TEMPLATE_EDIT';

export const translations = translationFace({
  translated: COURSE_TEMPLATE_TRANSLATED,
  ownerType: 'CourseTemplate',
  ownersByIds: courseTemplatesByIds,
  viewPermission: VIEW,
  editPermission: EDIT,
  description: "A course template's content in one locale: a sparse overlay on the template's own (primary-locale) content.",
});

/**
 * How events are delivered: `CLASSROOM`, `LMS` (online, self-paced in a learning management
 * system) or `BLENDED` (both), the values integrations read (and events' delivery methods,
 * stored lower case). A course template's `eventLearningMode` is its events' mode.
 */
export const LearningModeEnum = new GraphQLEnumType({
  name: 'LearningMode',
  description: 'How events are delivered: CLASSROOM, LMS (online) or BLENDED (both).',
  values: Object.fromEntries(EVENT_LEARNING_MODES.map((v) => [v.toUpperCase(), { value: v }])),
});

/** How a template's events get their sessions (`per_day`, `single`), the values of its session layout. */
export const SessionLayoutEnum = new GraphQLEnumType({
  name: 'SessionLayout',
  description:
    "How a template's new events get their sessions: per_day, one a day of the event's (classroom) period; single, one over the whole period.",
  values: Object.fromEntries(SESSION_LAYOUTS.map((v) => [v, { value: v }])),
});

export const deliveryOf = (ctx: GraphQLContext) =>
  ctx.loader('CourseTemplate.delivery', (db) =>
    byOwner(
      (ids) => deliveryLocalesOf(db, ids),
      (r) => r.course_template_id,
    ),
  );

/**
 * Fields of CourseTemplate that modules above this one add (the events module adds `events`):
 * their types refer back to CourseTemplate, so they cannot be imported here without a circle.
 * Added when those modules load, read when the schema is built.
 */
const extensions: GraphQLFieldConfigMap<CourseTemplateRow, GraphQLContext> = {};
export function extendCourseTemplate(fields: GraphQLFieldConfigMap<CourseTemplateRow, GraphQLContext>): void {
  Object.assign(extensions, fields);
}

export const CourseTemplateObject: GraphQLObjectType<CourseTemplateRow, GraphQLContext> = new GraphQLObjectType<
  CourseTemplateRow,
  GraphQLContext
>({
  name: 'CourseTemplate',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('CourseTemplate'),
    code: { type: GraphQLString },
    title: { type: new GraphQLNonNull(GraphQLString) },
    courseText1: { type: GraphQLString, resolve: (t) => t.course_text1 },
    courseText2: { type: GraphQLString, resolve: (t) => t.course_text2, description: 'The introduction.' },
    introduction: {
      type: GraphQLString,
      resolve: (t) => t.course_text2,
      description: 'The introduction (the same text as courseText2; REST `introduction`).',
    },
    shortCode: { type: GraphQLString, resolve: (t) => t.short_code, description: 'A short code, beside the code.' },
    eventLearningMode: {
      type: new GraphQLNonNull(LearningModeEnum),
      resolve: (t) => t.event_learning_mode,
      description: 'How its events are delivered.',
    },
    sessionLayout: {
      type: new GraphQLNonNull(SessionLayoutEnum),
      resolve: (t) => t.session_layout,
      description:
        "How its new events get their sessions (event.createClassroom, createBlended, createLMS): per_day, one a day of the event's classroom period (the default); single, one over the whole period. An online (LMS) event gets one over its online period either way.",
    },
    image: imageField((t: CourseTemplateRow) => t.image_document_id),
    imageGallery: imageGalleryField((t: CourseTemplateRow) => t.image_document_id),
    learningCategories: learningCategoriesField((t: CourseTemplateRow) => t.category_id),
    publicPrices: pricesField('course_template', 'Its public prices: every price level, currency and region.'),
    accountAssociations: accountAssociationsField(),
    approvedInstructors: approvedInstructorsField,
    relatedCoursesText: { type: GraphQLString, resolve: (t) => t.related_courses_text },
    lmsSummary: { type: GraphQLString, resolve: (t) => t.lms_summary },
    teaserDescription: {
      type: GraphQLString,
      resolve: (t) => t.teaser_description,
      description: 'The short text websites show in lists of courses (WebLink Course.teaserDescription).',
    },
    lifecycleState: { type: new GraphQLNonNull(LifecycleStateEnum), resolve: (t) => t.lifecycle_state },
    locale: {
      type: LocaleObject,
      description: 'The primary locale: the language of its own content. Needed before translations.',
      resolve: (t, _a, ctx) => localeById(ctx, t.locale_id),
    },
    deliveryLocales: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(LocaleObject))),
      description: 'Locales the course can be delivered in (independent of translations). None: no restriction on events.',
      resolve: async (t, _a, ctx) => Promise.all((await deliveryOf(ctx).load(t.id)).map((d) => localeById(ctx, d.locale_id))),
    },
    defaultDeliveryLocale: {
      type: LocaleObject,
      description: 'For events created without a locale; always one of deliveryLocales.',
      resolve: (t, _a, ctx) => localeById(ctx, t.default_delivery_locale_id),
    },
    translations: translations.translationsField,
    customFieldValues: {
      ...customFieldValuesField,
      resolve: async (t, _a, ctx) => customFieldValuesOf(ctx, await translations.values(ctx, t.id), null),
    },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (t) => t.created_on },
    updatedOn: { type: new GraphQLNonNull(GraphQLString), resolve: (t) => t.updated_on },
    ...extensions,
  }),
});

registerNode('CourseTemplate', { permission: VIEW, load: (ctx, id) => translations.owner(ctx, id) });

/** The course template a global id names in this tenant (for other modules: events). */
export const courseTemplateById = (ctx: GraphQLContext, id: number) =>
  translations.owner(ctx, id) as Promise<CourseTemplateRow | undefined>;

/** Filter fields clients name (the production service has them) that Lectern has no data for: refused by name. */
const unsupported = (why: string): ListField => ({ column: 'id', kind: 'text', unsupported: why });

/** The ISO codes of a `hasPriceInCurrency` filter's values (codes, or Currency ids). */
function currencyCodes(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map((v) => {
    const code = currencyCodeOf(String(v));
    if (!code)
      throw badInput(
        `Filter on hasPriceInCurrency: '${String(v).slice(0, 100)}' is not a currency (an ISO code such as GBP, or a Currency id)`,
      );
    return code;
  });
}

export const courseTemplatesQuery = listQuery<CourseTemplateRow>({
  typeName: 'CourseTemplate',
  table: CourseTemplateModel.tableName,
  permission: VIEW,
  node: () => CourseTemplateObject,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'CourseTemplate', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    name: { column: 'title', kind: 'text', orderable: true, description: 'The title (orders by title).' },
    title: { column: 'title', kind: 'text', orderable: true },
    codeOrTitle: {
      column: 'title',
      kind: 'text',
      description: 'eq or like: the code or the title.',
      operations: ['eq', 'like'],
      apply: (q, _db, op, v) => whereCodeOrTitle(q, op as 'eq' | 'like', v as string),
    },
    introduction: { column: 'course_text2', kind: 'text' },
    lmsSummary: { column: 'lms_summary', kind: 'text' },
    shortCode: { column: 'short_code', kind: 'text', orderable: true },
    lifecycleState: { column: 'lifecycle_state', kind: 'enum', enumValues: LIFECYCLE_STATES, orderable: true },
    scheduleType: unsupported('Lectern has no schedule types'),
    levelId: unsupported('Lectern has no course levels'),
    learningCategoryId: {
      column: 'category_id',
      kind: 'ref',
      refType: 'LearningCategory',
      description: 'A LearningCategory id: templates in that category (isnull: in none).',
    },
    hasPriceInCurrency: {
      column: 'id',
      kind: 'text',
      description: 'eq or in: templates with a public price in that currency (an ISO code such as GBP, or a Currency id).',
      operations: ['eq', 'in'],
      apply: (q, _db, _op, v) => whereHasPrice(q, 'course_template', { currencies: currencyCodes(v) }),
    },
    hasPriceInRegion: {
      column: 'id',
      kind: 'ref',
      refType: 'Region',
      description: 'eq or in: templates with a public price for that region (a Region id).',
      operations: ['eq', 'in'],
      apply: (q, _db, _op, v) =>
        whereHasPrice(q, 'course_template', {
          regionIds: (Array.isArray(v) ? v : [v]).filter((id): id is number => typeof id === 'number'),
        }),
    },
    isValidForPortal: {
      column: 'lifecycle_state',
      kind: 'bool',
      description: "eq 'true': what the instance's portals (WebLink) list, the published templates; 'false': the others.",
      operations: ['eq'],
      apply: (q, _db, _op, v) => whereValidForPortal(q, v === true),
    },
    withNoEvents: {
      column: 'id',
      kind: 'bool',
      description: "eq 'true': templates without events; 'false': templates with at least one (EVENT_VIEW).",
      operations: ['eq'],
      permission: 'EVENT_VIEW',
      apply: (q, _db, _op, v) => whereWithoutEvents(q, v === true),
    },
    locale: { column: 'locale_id', kind: 'ref', refType: 'Locale', description: 'A Locale id.' },
    defaultDeliveryLocale: { column: 'default_delivery_locale_id', kind: 'ref', refType: 'Locale' },
    deliveryLocales: {
      column: 'id',
      kind: 'refList',
      refType: 'Locale',
      link: { table: CourseTemplateDeliveryLocale.tableName, owner: 'course_template_id', value: 'locale_id' },
      description: 'contains: has every given Locale id.',
    },
    createdAt: { column: 'created_on', kind: 'datetime', orderable: true },
    updatedAt: { column: 'updated_on', kind: 'datetime', orderable: true },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
    updatedOn: { column: 'updated_on', kind: 'datetime', orderable: true },
  },
});

/** `courseTemplate(id:)`: one course template by its global id; null when there is none (in this instance). */
export const courseTemplateQuery: GraphQLFieldConfig<unknown, GraphQLContext, { id: string }> = {
  type: CourseTemplateObject,
  description: 'One course template by id; null when there is none (in your instance).',
  args: { id: { type: new GraphQLNonNull(GraphQLID) } },
  async resolve(_root, { id }, ctx) {
    requirePermission(ctx, VIEW);
    const legacyId = legacyIdOf('CourseTemplate', id);
    return legacyId === undefined ? null : ((await courseTemplateById(ctx, legacyId)) ?? null);
  },
};
