import {
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigMap,
} from 'graphql';
import { fieldErrors, LifecycleStateEnum, payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import type { Problem } from '../../platform/problems.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { allDefinitions, CustomFieldValueInput } from '../custom-fields/index.graphql.js';
import { supportedLocale } from '../locales/index.graphql.js';
import type { LocaleRow } from '../locales/index.js';
import { addPriceFor, Decimal, forgetPrices, PriceObject, type PriceArgs, type PricesPayload } from '../pricing/index.graphql.js';
import { changePriceAmount } from '../pricing/index.js';
import type { CourseTemplateRow } from './course-templates.data.js';
import { createCourseTemplate, updateCourseTemplate, type CourseTemplateInput } from './course-templates.service.js';
import { forgetInstructors } from './approved-instructors.graphql.js';
import {
  CourseTemplateObject,
  courseTemplateById,
  deliveryOf,
  EDIT,
  LearningModeEnum,
  SessionLayoutEnum,
  translations,
} from './course-template-type.graphql.js';

export { CourseTemplateObject, courseTemplateById, courseTemplateQuery, courseTemplatesQuery } from './course-template-type.graphql.js';

/**
 * `courseTemplate { create update addPublicPrices updatePrices upsertTranslation deleteTranslation applyToEvents }` in GraphQL
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
  teaserDescription: {
    type: GraphQLString,
    description: 'The short text websites show in lists of courses. Rich text, sanitised on write.',
  },
  lifecycleState: { type: LifecycleStateEnum },
  shortCode: { type: GraphQLString, description: 'A short code, beside the code: one line, at most 64 characters.' },
  eventLearningMode: { type: LearningModeEnum, description: 'How its events are delivered (default CLASSROOM); null leaves it.' },
  sessionLayout: {
    type: SessionLayoutEnum,
    description: 'How its new events get their sessions (default per_day: one a day; single: one over the period); null leaves it.',
  },
  localeId: { type: GraphQLID, description: 'The primary locale (a supported Locale id).' },
  deliveryLocaleIds: { type: new GraphQLList(new GraphQLNonNull(GraphQLID)) },
  defaultDeliveryLocaleId: { type: GraphQLID, description: 'Must be one of deliveryLocaleIds.' },
  customFieldValues: { type: new GraphQLList(new GraphQLNonNull(CustomFieldValueInput)) },
  approvedInstructors: {
    type: new GraphQLList(new GraphQLNonNull(GraphQLID)),
    description: 'Contact ids: the contacts approved to teach it. Replaces the list (null or [] empties it). Needs CONTACT_VIEW.',
  },
});

const CourseTemplateCreateInput = new GraphQLInputObjectType({ name: 'CourseTemplateCreateInput', fields: inputFields(true) });
const CourseTemplateUpdateInput = new GraphQLInputObjectType({
  name: 'CourseTemplateUpdateInput',
  description: 'Only the fields given change; null clears one.',
  fields: inputFields(false),
});
const CourseTemplatePayload = payloadType('CourseTemplatePayload', 'courseTemplate', () => CourseTemplateObject);

type RawInput = Record<string, unknown> & {
  localeId?: string | null;
  deliveryLocaleIds?: string[] | null;
  defaultDeliveryLocaleId?: string | null;
  approvedInstructors?: string[] | null;
};

/** Ids to locale rows: undefined when not given, null when cleared, false when naming no supported locale. */
async function resolveInput(ctx: GraphQLContext, input: RawInput): Promise<CourseTemplateInput> {
  const locale = async (id: string | null | undefined): Promise<LocaleRow | null | false | undefined> =>
    id === undefined ? undefined : id === null ? null : ((await supportedLocale(ctx, id)) ?? false);
  const out: CourseTemplateInput = { ...(input as CourseTemplateInput) };
  if ('localeId' in input) out.locale = await locale(input.localeId);
  if ('deliveryLocaleIds' in input)
    out.deliveryLocales =
      input.deliveryLocaleIds == null
        ? null
        : await Promise.all(input.deliveryLocaleIds.map(async (id) => (await supportedLocale(ctx, id)) ?? false));
  if ('defaultDeliveryLocaleId' in input) out.defaultDeliveryLocale = await locale(input.defaultDeliveryLocaleId);
  if ('approvedInstructors' in input)
    out.approvedInstructors =
      input.approvedInstructors == null ? null : input.approvedInstructors.map((id) => legacyIdOf('Contact', id) ?? false);
  return out;
}

type Payload = { courseTemplate: CourseTemplateRow | null; errors: FieldError[] };

/**
 * COURSE_TEMPLATE_EDIT, and CONTACT_VIEW when the write gives approved instructors (even none):
 * they name contacts, and whether an id names one would tell a caller that may not read contacts
 * which exist. Checked before anything is read.
 */
function requireWrite(ctx: GraphQLContext, input: RawInput): void {
  requirePermission(ctx, EDIT);
  if ('approvedInstructors' in input) requirePermission(ctx, 'CONTACT_VIEW');
}

/** The locale and contact ids a problem names, shown as the caller wrote them (global ids): the domain knows only its own. */
function withGivenIds(problems: Problem[], input: RawInput): FieldError[] {
  return toFieldErrors(
    problems.map((p) => {
      if (p.field === 'localeId') return { ...p, value: input.localeId };
      if (p.field === 'defaultDeliveryLocaleId') return { ...p, value: input.defaultDeliveryLocaleId };
      const listed = /^deliveryLocaleIds\[(\d+)\]$/.exec(p.field);
      if (listed) return { ...p, value: input.deliveryLocaleIds?.[Number(listed[1])] };
      const instructor = /^approvedInstructors\[(\d+)\]$/.exec(p.field);
      return instructor ? { ...p, value: input.approvedInstructors?.[Number(instructor[1])] } : p;
    }),
  );
}

const CourseTemplateAddPublicPricesInput = new GraphQLInputObjectType({
  name: 'CourseTemplateAddPublicPricesInput',
  description:
    'A public price of a course template: one amount per price level, currency and region (adding one that exists sets its amount).',
  fields: {
    courseTemplateId: { type: new GraphQLNonNull(GraphQLID) },
    priceLevelId: { type: new GraphQLNonNull(GraphQLID), description: 'A PriceLevel id.' },
    amount: { type: new GraphQLNonNull(Decimal), description: 'From 0, at most 2 decimals: "495.00".' },
    financialUnitId: { type: new GraphQLNonNull(GraphQLID), description: 'A Currency id (`Currency:GBP` in base64) or an ISO 4217 code.' },
    regionId: { type: GraphQLID, description: 'A Region id; none: the price applies in every region.' },
  },
});
const CourseTemplateUpdatePricesInput = new GraphQLInputObjectType({
  name: 'CourseTemplateUpdatePricesInput',
  fields: {
    coursePriceId: { type: new GraphQLNonNull(GraphQLID), description: 'A Price id of a course template (publicPrices).' },
    amount: { type: new GraphQLNonNull(Decimal) },
  },
});
const CourseTemplatePricesPayload = new GraphQLObjectType({
  name: 'CourseTemplatePricesPayload',
  fields: {
    prices: { type: new GraphQLList(new GraphQLNonNull(PriceObject)), description: 'The price written; null when refused.' },
    errors: fieldErrors,
  },
});

type AddPriceArgs = PriceArgs & { courseTemplateId: string };

/**
 * `mutation { courseTemplate { ... } }`. `more` are mutations of the group that other modules own
 * (`applyToEvents`, background jobs'): the app wires them in, so this module knows none of them.
 */
export const courseTemplateMutations = (more: GraphQLFieldConfigMap<unknown, GraphQLContext>) =>
  new GraphQLObjectType<unknown, GraphQLContext>({
    name: 'CourseTemplateMutations',
    fields: () => ({
      create: {
        type: CourseTemplatePayload,
        args: { input: { type: new GraphQLNonNull(CourseTemplateCreateInput) } },
        async resolve(_root, { input }: { input: RawInput }, ctx): Promise<Payload> {
          requireWrite(ctx, input);
          const { template, problems } = await createCourseTemplate(ctx.db, await resolveInput(ctx, input), {
            definitions: (await allDefinitions(ctx)).values(),
          });
          return { courseTemplate: template, errors: withGivenIds(problems, input) };
        },
      },
      update: {
        type: CourseTemplatePayload,
        args: { courseTemplateId: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(CourseTemplateUpdateInput) } },
        async resolve(_root, { courseTemplateId, input }: { courseTemplateId: string; input: RawInput }, ctx): Promise<Payload> {
          requireWrite(ctx, input);
          const id = legacyIdOf('CourseTemplate', courseTemplateId);
          if (id === undefined)
            return { courseTemplate: null, errors: [fieldError('courseTemplateId', courseTemplateId, 'Course Template not found')] };
          const { template, problems } = await updateCourseTemplate(ctx.db, id, await resolveInput(ctx, input), {
            definitions: (await allDefinitions(ctx)).values(),
          });
          translations.forget(ctx, id);
          deliveryOf(ctx).clear(id);
          forgetInstructors(ctx);
          return {
            courseTemplate: template,
            errors: withGivenIds(problems, input).map((e) => (e.label === 'courseTemplateId' ? { ...e, value: courseTemplateId } : e)),
          };
        },
      },
      addPublicPrices: {
        type: CourseTemplatePricesPayload,
        description: 'Adds a public price (COURSE_TEMPLATE_EDIT).',
        args: { input: { type: new GraphQLNonNull(CourseTemplateAddPublicPricesInput) } },
        async resolve(_root, { input }: { input: AddPriceArgs }, ctx): Promise<PricesPayload> {
          requirePermission(ctx, EDIT);
          const id = legacyIdOf('CourseTemplate', input.courseTemplateId);
          if (id === undefined || !(await courseTemplateById(ctx, id)))
            return { prices: null, errors: [fieldError('courseTemplateId', input.courseTemplateId, 'Course Template not found')] };
          return addPriceFor(ctx, 'course_template', id, input);
        },
      },
      updatePrices: {
        type: CourseTemplatePricesPayload,
        description: "Sets the amount of one of a template's public prices (COURSE_TEMPLATE_EDIT).",
        args: { input: { type: new GraphQLNonNull(CourseTemplateUpdatePricesInput) } },
        async resolve(_root, { input }: { input: { coursePriceId: string; amount: string } }, ctx): Promise<PricesPayload> {
          requirePermission(ctx, EDIT);
          const { price, problems } = await changePriceAmount(
            ctx.db,
            'course_template',
            legacyIdOf('Price', input.coursePriceId),
            input.amount,
          );
          forgetPrices(ctx, 'course_template');
          return {
            prices: price ? [price] : null,
            errors: toFieldErrors(
              problems.map((p) => (p.field === 'priceId' ? { ...p, field: 'coursePriceId', value: input.coursePriceId } : p)),
            ),
          };
        },
      },
      upsertTranslation: translations.upsert,
      deleteTranslation: translations.remove,
      ...more,
    }),
  });
