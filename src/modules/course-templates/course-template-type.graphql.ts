import { GraphQLID, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig, type GraphQLFieldConfigMap } from 'graphql';
import { LIFECYCLE_STATES } from '../../platform/lifecycle.js';
import { LifecycleState } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { customFieldValuesField, customFieldValuesOf } from '../custom-fields/custom-fields.graphql.js';
import { Locale, localeById } from '../locales/locales.graphql.js';
import { translationFace } from '../translations/translations.graphql.js';
import { CourseTemplate as CourseTemplateModel, CourseTemplateDeliveryLocale, courseTemplatesByIds, deliveryLocalesOf, type CourseTemplateRow } from './course-templates.data.js';
import { COURSE_TEMPLATE_TRANSLATIONS } from './course-templates.service.js';

/**
 * The CourseTemplate type in GraphQL (the REST API's event template): its fields, locales and
 * translations, and the `courseTemplates` list. Its own file, apart from the mutations, so the
 * types that refer to it (Event, BackgroundJob) and the mutation that answers a BackgroundJob
 * (`applyToEvents`) form no import circle. Reading needs COURSE_TEMPLATE_VIEW.
 */
export const VIEW = 'COURSE_TEMPLATE_VIEW';
export const EDIT = 'COURSE_TEMPLATE_EDIT';

export const translations = translationFace({
  entity: COURSE_TEMPLATE_TRANSLATIONS,
  ownerType: 'CourseTemplate',
  ownersByIds: courseTemplatesByIds,
  viewPermission: VIEW,
  editPermission: EDIT,
  description: "A course template's content in one locale: a sparse overlay on the template's own (primary-locale) content.",
});

export const deliveryOf = (ctx: GraphQLContext) => ctx.loader('CourseTemplate.delivery', (db) => byOwner((ids) => deliveryLocalesOf(db, ids), (r) => r.course_template_id));

/**
 * Fields of CourseTemplate that modules above this one add (the events module adds `events`):
 * their types refer back to CourseTemplate, so they cannot be imported here without a circle.
 * Added when those modules load, read when the schema is built.
 */
const extensions: GraphQLFieldConfigMap<CourseTemplateRow, GraphQLContext> = {};
export function extendCourseTemplate(fields: GraphQLFieldConfigMap<CourseTemplateRow, GraphQLContext>): void {
  Object.assign(extensions, fields);
}

export const CourseTemplate: GraphQLObjectType<CourseTemplateRow, GraphQLContext> = new GraphQLObjectType<CourseTemplateRow, GraphQLContext>({
  name: 'CourseTemplate',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('CourseTemplate'),
    code: { type: GraphQLString },
    title: { type: new GraphQLNonNull(GraphQLString) },
    courseText1: { type: GraphQLString, resolve: (t) => t.course_text1 },
    courseText2: { type: GraphQLString, resolve: (t) => t.course_text2, description: 'The introduction.' },
    relatedCoursesText: { type: GraphQLString, resolve: (t) => t.related_courses_text },
    lmsSummary: { type: GraphQLString, resolve: (t) => t.lms_summary },
    teaserDescription: { type: GraphQLString, resolve: (t) => t.teaser_description, description: 'The short text websites show in lists of courses (WebLink Course.teaserDescription).' },
    lifecycleState: { type: new GraphQLNonNull(LifecycleState), resolve: (t) => t.lifecycle_state },
    locale: { type: Locale, description: 'The primary locale: the language of its own content. Needed before translations.', resolve: (t, _a, ctx) => localeById(ctx, t.locale_id) },
    deliveryLocales: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Locale))),
      description: 'Locales the course can be delivered in (independent of translations). None: no restriction on events.',
      resolve: async (t, _a, ctx) => Promise.all((await deliveryOf(ctx).load(t.id)).map((d) => localeById(ctx, d.locale_id))),
    },
    defaultDeliveryLocale: { type: Locale, description: 'For events created without a locale; always one of deliveryLocales.', resolve: (t, _a, ctx) => localeById(ctx, t.default_delivery_locale_id) },
    translations: translations.translationsField,
    customFieldValues: { ...customFieldValuesField, resolve: async (t, _a, ctx) => customFieldValuesOf(ctx, await translations.values(ctx, t.id), null) },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (t) => t.created_on },
    updatedOn: { type: new GraphQLNonNull(GraphQLString), resolve: (t) => t.updated_on },
    ...extensions,
  }),
});

registerNode('CourseTemplate', { permission: VIEW, load: (ctx, id) => translations.owner(ctx, id) });

/** The course template a global id names in this tenant (for other modules: events). */
export const courseTemplateById = (ctx: GraphQLContext, id: number) => translations.owner(ctx, id) as Promise<CourseTemplateRow | undefined>;

export const courseTemplatesQuery = listQuery<CourseTemplateRow>({
  typeName: 'CourseTemplate',
  table: CourseTemplateModel.tableName,
  permission: VIEW,
  node: () => CourseTemplate,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'CourseTemplate', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    title: { column: 'title', kind: 'text', orderable: true },
    lifecycleState: { column: 'lifecycle_state', kind: 'enum', enumValues: LIFECYCLE_STATES, orderable: true },
    locale: { column: 'locale_id', kind: 'ref', refType: 'Locale', description: 'A Locale id.' },
    defaultDeliveryLocale: { column: 'default_delivery_locale_id', kind: 'ref', refType: 'Locale' },
    deliveryLocales: { column: 'id', kind: 'refList', refType: 'Locale', link: { table: CourseTemplateDeliveryLocale.tableName, owner: 'course_template_id', value: 'locale_id' }, description: 'contains: has every given Locale id.' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
    updatedOn: { column: 'updated_on', kind: 'datetime', orderable: true },
  },
});

/** `courseTemplate(id:)`: one course template by its global id; null when there is none (in this instance). */
export const courseTemplateQuery: GraphQLFieldConfig<unknown, GraphQLContext, { id: string }> = {
  type: CourseTemplate,
  description: 'One course template by id; null when there is none (in your instance).',
  args: { id: { type: new GraphQLNonNull(GraphQLID) } },
  async resolve(_root, { id }, ctx) {
    requirePermission(ctx, VIEW);
    const legacyId = legacyIdOf('CourseTemplate', id);
    return legacyId === undefined ? null : ((await courseTemplateById(ctx, legacyId)) ?? null);
  },
};
