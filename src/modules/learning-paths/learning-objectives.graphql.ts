import { GraphQLID, GraphQLInterfaceType, GraphQLNonNull, GraphQLObjectType, type GraphQLFieldConfig } from 'graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { toGlobalId } from '../../kit/graphql/ids.js';
import { wholeConnection } from '../../kit/graphql/lists.js';
import { byOwner } from '../../kit/graphql/loaders.js';
import { refField } from '../../kit/graphql/permissions.js';
import { CourseTemplateObject, courseTemplateById } from '../course-templates/index.graphql.js';
import { EventObject, eventById } from '../events/index.graphql.js';
import { objectivesOf, type LearningPathObjectiveRow, type LearningPathRow } from './learning-paths.data.js';
import { MAX_OBJECTIVES } from './learning-paths.rules.js';

/**
 * The objectives of a learning path in Core GraphQL: `LearningPath.learningObjectives`, a
 * connection of `LearningObjective` nodes (an interface with `id`, which clients select outside
 * any fragment), each a `CourseObjective { courseTemplate }` or an `EventObjective { event }`.
 * A page of paths reads the objectives of all its paths in one statement, and their course
 * templates and events in one more each.
 */

const LOADER = 'LearningPath.objectives';

/** The objectives of paths, each path's in order (this request's loader: one statement per page of paths). */
const objectivesLoader = (ctx: GraphQLContext) =>
  ctx.loader(LOADER, (db) =>
    byOwner(
      (ids) => objectivesOf(db, ids),
      (o: LearningPathObjectiveRow) => o.learning_path_id,
    ),
  );

/** Forgets the objectives this request read, after a write that may have changed them. */
export const forgetObjectives = (ctx: GraphQLContext) => ctx.forget(LOADER);

const objectiveId = {
  type: new GraphQLNonNull(GraphQLID),
  description: 'The objective (a step of the path), not what it leads to.',
  resolve: (o: LearningPathObjectiveRow) => toGlobalId('LearningObjective', o.id),
};

export const LearningObjectiveInterface = new GraphQLInterfaceType({
  name: 'LearningObjective',
  description: 'A step of a learning path: a course template (any of its events) or one event.',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) } },
  resolveType: (o: LearningPathObjectiveRow) => (o.event_id !== null ? 'EventObjective' : 'CourseObjective'),
});

const CourseObjectiveObject = new GraphQLObjectType<LearningPathObjectiveRow, GraphQLContext>({
  name: 'CourseObjective',
  description: 'A step of a learning path taken on any event of a course template.',
  interfaces: [LearningObjectiveInterface],
  fields: () => ({
    id: objectiveId,
    courseTemplate: refField<LearningPathObjectiveRow>(
      CourseTemplateObject,
      'COURSE_TEMPLATE_VIEW',
      (o) => o.course_template_id,
      courseTemplateById,
    ),
  }),
});

const EventObjectiveObject = new GraphQLObjectType<LearningPathObjectiveRow, GraphQLContext>({
  name: 'EventObjective',
  description: 'A step of a learning path taken on one event.',
  interfaces: [LearningObjectiveInterface],
  fields: () => ({
    id: objectiveId,
    event: refField<LearningPathObjectiveRow>(EventObject, 'EVENT_VIEW', (o) => o.event_id, eventById),
  }),
});

/** The implementations of LearningObjective, for the schema's `types` (no field names them). */
export const OBJECTIVE_TYPES = [CourseObjectiveObject, EventObjectiveObject];

const objectives = wholeConnection<LearningPathObjectiveRow>('LearningObjective', LearningObjectiveInterface);

/**
 * `learningObjectives`: the path's objectives in order, at most {@link MAX_OBJECTIVES} of them, as
 * a write allows (`pageInfo.totalRecords` counts them all, should a path have more). No `first`, as
 * integrations send none and expect every step; the static cost limit counts them once, so what
 * they lead to (templates and their events) is bounded by the request's record budget, which
 * they spend as every list does.
 */
export const learningObjectivesField: GraphQLFieldConfig<LearningPathRow, GraphQLContext> = {
  type: new GraphQLNonNull(objectives.type),
  description: `Its objectives (steps), in order: at most ${MAX_OBJECTIVES}.`,
  async resolve(p, _args, ctx) {
    const all = await objectivesLoader(ctx).load(p.id);
    return objectives.page(ctx, all.slice(0, MAX_OBJECTIVES), all.length);
  },
};
