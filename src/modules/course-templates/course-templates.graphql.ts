import { GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { LifecycleState, payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import type { Problem } from '../../platform/problems.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { allDefinitions, CustomFieldValueInput } from '../custom-fields/custom-fields.graphql.js';
import { supportedLocale } from '../locales/locales.graphql.js';
import type { LocaleRow } from '../locales/locales.service.js';
import { applyToEventsMutation } from '../background-jobs/background-jobs.graphql.js';
import type { CourseTemplateRow } from './course-templates.data.js';
import { createCourseTemplate, updateCourseTemplate, type CourseTemplateInput } from './course-templates.service.js';
import { CourseTemplate, deliveryOf, EDIT, translations } from './course-template-type.graphql.js';

export { CourseTemplate, courseTemplateById, courseTemplateQuery, courseTemplatesQuery } from './course-template-type.graphql.js';

/**
 * `courseTemplate { create update upsertTranslation deleteTranslation applyToEvents }` in GraphQL
 * (the type and the `courseTemplates` list are in course-template-type.graphql.ts). Writing needs
 * COURSE_TEMPLATE_EDIT, checked before anything is read.
 */

const inputFields = (create: boolean) => ({
  code: { type: GraphQLString },
  title: { type: create ? new GraphQLNonNull(GraphQLString) : GraphQLString },
  courseText1: { type: GraphQLString, description: 'Rich text, sanitised on write.' },
  courseText2: { type: GraphQLString, description: 'Rich text, sanitised on write.' },
  relatedCoursesText: { type: GraphQLString, description: 'Rich text, sanitised on write.' },
  lmsSummary: { type: GraphQLString, description: 'Rich text, sanitised on write.' },
  teaserDescription: { type: GraphQLString, description: 'The short text websites show in lists of courses. Rich text, sanitised on write.' },
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

/** The locale ids a problem names, shown as the caller wrote them (global ids): the domain knows only its own. */
function withGivenIds(problems: Problem[], input: RawInput): FieldError[] {
  return toFieldErrors(
    problems.map((p) => {
      if (p.field === 'localeId') return { ...p, value: input.localeId };
      if (p.field === 'defaultDeliveryLocaleId') return { ...p, value: input.defaultDeliveryLocaleId };
      const listed = /^deliveryLocaleIds\[(\d+)\]$/.exec(p.field);
      return listed ? { ...p, value: input.deliveryLocaleIds?.[Number(listed[1])] } : p;
    }),
  );
}

export const CourseTemplateMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'CourseTemplateMutations',
  fields: () => ({
    create: {
      type: CourseTemplatePayload,
      args: { input: { type: new GraphQLNonNull(CourseTemplateCreateInput) } },
      async resolve(_root, { input }: { input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const { template, problems } = await createCourseTemplate(ctx.db, await resolveInput(ctx, input), { definitions: (await allDefinitions(ctx)).values() });
        return { courseTemplate: template, errors: withGivenIds(problems, input) };
      },
    },
    update: {
      type: CourseTemplatePayload,
      args: { courseTemplateId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(CourseTemplateUpdateInput) } },
      async resolve(_root, { courseTemplateId, input }: { courseTemplateId: string; input: RawInput }, ctx): Promise<Payload> {
        requirePermission(ctx, EDIT);
        const id = legacyIdOf('CourseTemplate', courseTemplateId);
        if (id === undefined) return { courseTemplate: null, errors: [fieldError('courseTemplateId', courseTemplateId, 'Course Template not found')] };
        const { template, problems } = await updateCourseTemplate(ctx.db, id, await resolveInput(ctx, input), { definitions: (await allDefinitions(ctx)).values() });
        translations.forget(ctx, id);
        deliveryOf(ctx).clear(id);
        return { courseTemplate: template, errors: withGivenIds(problems, input).map((e) => (e.label === 'courseTemplateId' ? { ...e, value: courseTemplateId } : e)) };
      },
    },
    upsertTranslation: translations.upsert,
    deleteTranslation: translations.remove,
    applyToEvents: applyToEventsMutation,
  }),
});
