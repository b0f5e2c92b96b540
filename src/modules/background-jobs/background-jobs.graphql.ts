import {
  GraphQLEnumType,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
} from 'graphql';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, toFieldErrors, type FieldError } from '../../kit/graphql/errors.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf, toGlobalId } from '../../kit/graphql/ids.js';
import { byId } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { CourseTemplateObject, courseTemplateById } from '../course-templates/index.graphql.js';
import { EventObject, eventById } from '../events/index.graphql.js';
import { backgroundJobsByIds } from './background-jobs.data.js';
import { applyCourseTemplate, BACKGROUND_JOB_STATES, type BackgroundJobRow } from './background-jobs.service.js';

/**
 * BackgroundJob in GraphQL: the handle a mutation that hands work to the worker answers with
 * (`courseTemplate.applyToEvents`), read back with `backgroundJob(id)` or `node(id)`. Reading
 * one needs the view permission of what it works on (COURSE_TEMPLATE_VIEW).
 */
const VIEW = 'COURSE_TEMPLATE_VIEW';

const jobById = (ctx: GraphQLContext, id: number) =>
  ctx.loader('BackgroundJob.byId', (db) => byId((ids) => backgroundJobsByIds(db, ids))).load(id);

const BackgroundJobStateEnum = new GraphQLEnumType({
  name: 'BackgroundJobState',
  description: 'queued: waiting for a worker; running: part done (see progress); completed; failed (see errors).',
  values: Object.fromEntries(BACKGROUND_JOB_STATES.map((s) => [s, { value: s }])),
});

const BackgroundJobErrorObject = new GraphQLObjectType<BackgroundJobRow['errors'][number], GraphQLContext>({
  name: 'BackgroundJobError',
  description: 'Something the job could not do: for one event (eventId), or for the whole job (eventId null).',
  fields: () => ({
    eventId: { type: GraphQLID, resolve: (e) => (e.eventId === null ? null : toGlobalId('Event', e.eventId)) },
    event: refField<BackgroundJobRow['errors'][number]>(EventObject, 'EVENT_VIEW', (e) => e.eventId, eventById),
    message: { type: new GraphQLNonNull(GraphQLString) },
  }),
});

export const BackgroundJobObject = new GraphQLObjectType<BackgroundJobRow, GraphQLContext>({
  name: 'BackgroundJob',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('BackgroundJob'),
    kind: { type: new GraphQLNonNull(GraphQLString), description: 'apply_course_template' },
    state: { type: new GraphQLNonNull(BackgroundJobStateEnum) },
    progress: {
      type: new GraphQLNonNull(GraphQLInt),
      description: 'Percent of the work done, 0 to 100.',
      resolve: (j) =>
        j.event_ids.length === 0 ? (j.state === 'completed' ? 100 : 0) : Math.floor((100 * j.processed) / j.event_ids.length),
    },
    total: { type: new GraphQLNonNull(GraphQLInt), description: 'Events the job works through.', resolve: (j) => j.event_ids.length },
    processed: { type: new GraphQLNonNull(GraphQLInt), description: 'Events done so far.' },
    errors: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(BackgroundJobErrorObject))) },
    courseTemplate: {
      type: CourseTemplateObject,
      resolve: (j, _a, ctx) => (j.course_template_id === null ? null : courseTemplateById(ctx, j.course_template_id)),
    },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (j) => j.created_on },
    startedOn: { type: GraphQLString, resolve: (j) => j.started_on },
    finishedOn: { type: GraphQLString, resolve: (j) => j.finished_on },
  }),
});

registerNode('BackgroundJob', { permission: VIEW, load: (ctx, id) => jobById(ctx, id) });

export const backgroundJobQuery: GraphQLFieldConfig<unknown, GraphQLContext, { id: string }> = {
  type: BackgroundJobObject,
  description: 'A background job by its id (null when there is none).',
  args: { id: { type: new GraphQLNonNull(GraphQLID) } },
  async resolve(_root, { id }, ctx) {
    requirePermission(ctx, VIEW);
    const legacy = legacyIdOf('BackgroundJob', id);
    return legacy === undefined ? null : ((await jobById(ctx, legacy)) ?? null);
  },
};

const ApplyToEventsPayload = payloadType('ApplyToEventsPayload', 'backgroundJob', () => BackgroundJobObject);

/**
 * `courseTemplate.applyToEvents`: re-applies the template to its events (all of them, or those
 * given) in the worker (contract rule 8), answering at once with the job to poll.
 */
export const applyToEventsMutation: GraphQLFieldConfig<unknown, GraphQLContext, { courseTemplateId: string; eventIds?: string[] | null }> =
  {
    type: ApplyToEventsPayload,
    description:
      'Re-applies the template to its events, in the worker: each event re-inherits in its own language (a title that follows the template is translated, a locale that follows it takes the delivery chain again, custom field values are copied in that locale). Answers at once with a background job to poll. Needs COURSE_TEMPLATE_EDIT and EVENT_EDIT.',
    args: {
      courseTemplateId: { type: new GraphQLNonNull(GraphQLID) },
      eventIds: {
        type: new GraphQLList(new GraphQLNonNull(GraphQLID)),
        description: "Some of the template's events; left out or null: all of them.",
      },
    },
    async resolve(_root, { courseTemplateId, eventIds }, ctx): Promise<{ backgroundJob: BackgroundJobRow | null; errors: FieldError[] }> {
      requirePermission(ctx, 'COURSE_TEMPLATE_EDIT');
      requirePermission(ctx, 'EVENT_EDIT');
      const templateId = legacyIdOf('CourseTemplate', courseTemplateId);
      const template = templateId === undefined ? undefined : await courseTemplateById(ctx, templateId);
      if (!template)
        return { backgroundJob: null, errors: [fieldError('courseTemplateId', courseTemplateId, 'Course Template not found')] };
      const events = eventIds == null ? null : eventIds.map((id: string) => legacyIdOf('Event', id));
      const { job, problems } = await applyCourseTemplate(
        ctx.db,
        { tenantId: ctx.tenant.id, templateId: template.id, userId: ctx.user.id },
        events,
      );
      // Each refused id as the caller wrote it (a global id): the domain knows only its own.
      const given = (field: string) => eventIds?.[Number(/^eventIds\[(\d+)\]$/.exec(field)?.[1])];
      return { backgroundJob: job, errors: toFieldErrors(problems.map((p) => ({ ...p, value: given(p.field) ?? p.value }))) };
    },
  };
