import { GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { LifecycleState, payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, type FieldError } from '../../kit/graphql/errors.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { allDefinitions, CustomFieldValueInput, customFieldValuesField, customFieldValuesOf } from '../custom-fields/custom-fields.graphql.js';
import { Locale, localeById, supportedLocale } from '../locales/locales.graphql.js';
import type { LocaleRow } from '../locales/locales.service.js';
import { applyToEventsMutation } from '../background-jobs/background-jobs.graphql.js';
import { translationFace } from '../translations/translations.graphql.js';
import { COURSE_TEMPLATE_TRANSLATIONS, createCourseTemplate, updateCourseTemplate, type CourseTemplateInput, type CourseTemplateRow } from './course-templates.service.js';

/**
 * CourseTemplate in GraphQL (the REST API's event template): its fields, locales and
 * translations, the `courseTemplates` list, and `courseTemplate { create update
 * upsertTranslation deleteTranslation }`. Reading needs COURSE_TEMPLATE_VIEW, writing
 * COURSE_TEMPLATE_EDIT, checked before anything is read.
 */
const VIEW = 'COURSE_TEMPLATE_VIEW';
const EDIT = 'COURSE_TEMPLATE_EDIT';

const translations = translationFace({
  entity: COURSE_TEMPLATE_TRANSLATIONS,
  ownerType: 'CourseTemplate',
  viewPermission: VIEW,
  editPermission: EDIT,
  description: "A course template's content in one locale: a sparse overlay on the template's own (primary-locale) content.",
});

const deliveryOf = (ctx: GraphQLContext) => ctx.loader('CourseTemplate.delivery', (db) => byOwner<{ locale_id: number }>(db, 'course_template_delivery_locales', 'course_template_id', 'locale_id'));

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
  }),
});

registerNode('CourseTemplate', { permission: VIEW, load: (ctx, id) => translations.owner(ctx, id) });

/** The course template a global id names in this tenant (for other modules: events). */
export const courseTemplateById = (ctx: GraphQLContext, id: number) => translations.owner(ctx, id) as Promise<CourseTemplateRow | undefined>;
export const courseTemplateValues = translations.values;
export const courseTemplateTranslations = translations.translationsField;

export const courseTemplatesQuery = listQuery<CourseTemplateRow>({
  typeName: 'CourseTemplate',
  table: 'course_templates',
  permission: VIEW,
  node: () => CourseTemplate,
  defaultOrder: { field: 'id', direction: 'asc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'CourseTemplate', orderable: true },
    code: { column: 'code', kind: 'text', orderable: true },
    title: { column: 'title', kind: 'text', orderable: true },
    lifecycleState: { column: 'lifecycle_state', kind: 'enum', enumValues: ['draft', 'published', 'cancelled'], orderable: true },
    locale: { column: 'locale_id', kind: 'ref', refType: 'Locale', description: 'A Locale id.' },
    defaultDeliveryLocale: { column: 'default_delivery_locale_id', kind: 'ref', refType: 'Locale' },
    deliveryLocales: { column: 'id', kind: 'refList', refType: 'Locale', link: { table: 'course_template_delivery_locales', owner: 'course_template_id', value: 'locale_id' }, description: 'contains: has every given Locale id.' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
    updatedOn: { column: 'updated_on', kind: 'datetime', orderable: true },
  },
});

const inputFields = (create: boolean) => ({
  code: { type: GraphQLString },
  title: { type: create ? new GraphQLNonNull(GraphQLString) : GraphQLString },
  courseText1: { type: GraphQLString, description: 'Rich text, sanitised on write.' },
  courseText2: { type: GraphQLString, description: 'Rich text, sanitised on write.' },
  relatedCoursesText: { type: GraphQLString, description: 'Rich text, sanitised on write.' },
  lmsSummary: { type: GraphQLString, description: 'Rich text, sanitised on write.' },
  lifecycleState: { type: LifecycleState },
  localeId: { type: GraphQLID, description: 'The primary locale (a supported Locale id).' },
  deliveryLocaleIds: { type: new GraphQLList(new GraphQLNonNull(GraphQLID)) },
  defaultDeliveryLocaleId: { type: GraphQLID, description: 'Must be one of deliveryLocaleIds.' },
  customFieldValues: { type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)) },
});

const CourseTemplateCreateInput = new GraphQLInputObjectType({ name: 'CourseTemplateCreateInput', fields: inputFields(true) });
const CourseTemplateUpdateInput = new GraphQLInputObjectType({ name: 'CourseTemplateUpdateInput', description: 'Only the fields given change; null clears one.', fields: inputFields(false) });
const CourseTemplatePayload = payloadType('CourseTemplatePayload', 'courseTemplate', () => CourseTemplate);

type RawInput = Record<string, unknown> & { localeId?: string | null; deliveryLocaleIds?: string[] | null; defaultDeliveryLocaleId?: string | null };

/** Ids to locale rows: undefined when not given, null when cleared, false when naming no supported locale. */
async function resolveInput(ctx: GraphQLContext, input: RawInput): Promise<CourseTemplateInput> {
  const locale = async (id: string | null | undefined): Promise<LocaleRow | null | false | undefined> => (id === undefined ? undefined : id === null ? null : ((await supportedLocale(ctx, id)) ?? false));
  const out: CourseTemplateInput = { ...(input as CourseTemplateInput) };
  if ('localeId' in input) out.locale = await locale(input.localeId);
  if ('deliveryLocaleIds' in input) out.deliveryLocales = input.deliveryLocaleIds == null ? null : await Promise.all(input.deliveryLocaleIds.map(async (id) => (await supportedLocale(ctx, id)) ?? false));
  if ('defaultDeliveryLocaleId' in input) out.defaultDeliveryLocale = await locale(input.defaultDeliveryLocaleId);
  return out;
}

type Payload = { courseTemplate: CourseTemplateRow | null; errors: FieldError[] };

export const CourseTemplateMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'CourseTemplateMutations',
  fields: () => ({
    create: {
      type: CourseTemplatePayload,
      args: { input: { type: new GraphQLNonNull(CourseTemplateCreateInput) } },
      async resolve(_root, { input }: { input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const { template, errors } = await createCourseTemplate(ctx.db, await resolveInput(ctx, input), { definitions: (await allDefinitions(ctx)).values(), raw: input });
        return { courseTemplate: template, errors };
      },
    },
    update: {
      type: CourseTemplatePayload,
      args: { courseTemplateId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(CourseTemplateUpdateInput) } },
      async resolve(_root, { courseTemplateId, input }: { courseTemplateId: string; input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('CourseTemplate', courseTemplateId);
        if (id === undefined) return { courseTemplate: null, errors: [fieldError('courseTemplateId', courseTemplateId, 'Course Template not found')] };
        const { template, errors } = await updateCourseTemplate(ctx.db, id, await resolveInput(ctx, input), { definitions: (await allDefinitions(ctx)).values(), raw: input });
        translations.forget(ctx, id);
        deliveryOf(ctx).clear(id);
        return { courseTemplate: template, errors: errors.map((e) => (e.label === 'courseTemplateId' ? { ...e, value: courseTemplateId } : e)) };
      },
    },
    upsertTranslation: translations.upsert,
    deleteTranslation: translations.remove,
    applyToEvents: applyToEventsMutation,
  }),
});
