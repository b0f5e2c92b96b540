import {
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  GraphQLUnionType,
  type GraphQLFieldConfig,
} from 'graphql';
import type { Knex } from '../../platform/db/knex.js';
import { hasPermission } from '../../platform/permissions.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { badInput } from '../../kit/graphql/errors.js';
import { fromGlobalId } from '../../kit/graphql/ids.js';
import { FilterOperationEnum, listQuery, MAX_FILTERS, type FilterValue, type Page } from '../../kit/graphql/lists.js';
import { byId } from '../../kit/graphql/loaders.js';
import { requirePermission } from '../../kit/graphql/permissions.js';
import { CourseTemplateObject, courseTemplateById } from '../course-templates/index.graphql.js';
import { learningPathsByIds } from '../learning-paths/index.js';
import { LearningPathObject } from '../learning-paths/index.graphql.js';
import { CORE_CATALOGUE, isOneOf, ofKinds, type CoreCatalogueKind, type CoreCatalogueRow } from './catalogue.data.js';
import { searchAndFieldFilters } from './catalogue.weblink.js';

/**
 * The Core API's `catalogue` (real-clients.md section 3: the PHP SDK's `Catalogue::loadAll`):
 * course templates and learning paths as one list, each node the Core `CourseTemplate` or
 * `LearningPath` it is (`... on CourseTemplate { ... }`). Unlike WebLink's catalogue (the public
 * one: published courses, active paths) it lists every course template the caller may view
 * (COURSE_TEMPLATE_VIEW) and every learning path (LEARNING_PATH_VIEW), in any lifecycle state; a
 * caller with one of the two sees that kind only, with neither the request is FORBIDDEN. It takes
 * the list engine's `filters`, `order`, `first`, `offset`, `after`, WebLink's `search` and
 * `customFieldFilters` (catalogue.data.ts: the same reads), and answers a connection. A page is
 * three statements whatever its size: the list, then its course templates and its learning paths
 * by id (the nodes are whole records, so every field of those types can be selected).
 */

const KINDS: readonly { kind: CoreCatalogueKind; permission: string }[] = [
  { kind: 'CourseTemplate', permission: 'COURSE_TEMPLATE_VIEW' },
  { kind: 'LearningPath', permission: 'LEARNING_PATH_VIEW' },
];

/** The kinds the caller may view; FORBIDDEN (naming the first permission) when none. */
function viewableKinds(ctx: GraphQLContext): CoreCatalogueKind[] {
  const kinds = KINDS.filter((k) => hasPermission(ctx.user.permissions, k.permission)).map((k) => k.kind);
  if (!kinds.length) requirePermission(ctx, KINDS[0]!.permission);
  return kinds;
}

/** A node of the catalogue: the whole record, tagged with the type it is. */
type CatalogueNode = { __kind: CoreCatalogueKind; id: number };

/** `CourseTemplate | LearningPath`: what the catalogue lists. */
export const CatalogueItemUnion = new GraphQLUnionType({
  name: 'CatalogueItem',
  description: 'A course template or a learning path.',
  types: () => [CourseTemplateObject, LearningPathObject],
  resolveType: (node: CatalogueNode) => node.__kind,
});

export const CustomFieldFilter = new GraphQLInputObjectType({
  name: 'CustomFieldFilter',
  description:
    "A custom field value the item has: `id` names the definition (its global id, as definitionLocator gives it, or its key); `eq` and `like` take `value`, `in` takes `values`. The record's own (untranslated) value is compared.",
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID) },
    operation: { type: FilterOperationEnum, defaultValue: 'eq' },
    value: { type: GraphQLString },
    values: { type: new GraphQLList(GraphQLString) },
  },
});

/** `search` and `customFieldFilters` as WebLink takes them, on the kinds the caller may view (checked first). */
function catalogueWhere(args: Record<string, unknown>, ctx: GraphQLContext): (q: Knex.QueryBuilder) => void {
  const kinds = viewableKinds(ctx);
  const filters = searchAndFieldFilters(args, ctx);
  return (q) => {
    ofKinds(q, kinds);
    filters(q);
  };
}

/** A catalogue item's global id (a CourseTemplate's or a LearningPath's), as the `id` filter takes it. */
function itemOf(value: FilterValue): { kind: CoreCatalogueKind; id: number } {
  const parsed = typeof value === 'string' ? fromGlobalId(value) : undefined;
  if (!parsed) throw badInput(`Filter on id: '${String(value).slice(0, 100)}' is not an id of this API`);
  // An id of another type names nothing here.
  return parsed.type === 'CourseTemplate' || parsed.type === 'LearningPath'
    ? { kind: parsed.type, id: parsed.legacyId }
    : { kind: 'CourseTemplate', id: 0 };
}

const list = listQuery<CoreCatalogueRow>({
  typeName: 'CatalogueItem',
  ...CORE_CATALOGUE,
  // Checked by `where` (either kind's view permission), before anything is read.
  permission: null,
  node: () => CatalogueItemUnion,
  description: 'Course templates (COURSE_TEMPLATE_VIEW) and learning paths (LEARNING_PATH_VIEW) as one list, in any lifecycle state.',
  defaultOrder: { field: 'name', direction: 'asc' },
  args: {
    search: {
      type: GraphQLString,
      description:
        'Words in the name (a course template\'s title) or code, case-insensitive; % and _ are taken literally. "" lists everything.',
    },
    customFieldFilters: { type: new GraphQLList(CustomFieldFilter), description: `All must hold; at most ${MAX_FILTERS}.` },
  },
  where: catalogueWhere,
  fields: {
    id: {
      column: 'id',
      kind: 'text',
      operations: ['eq', 'in', 'ne', 'notin'],
      apply: (q, _db, op, v) => isOneOf(q, (Array.isArray(v) ? v : [v]).map(itemOf), op === 'ne' || op === 'notin'),
      orderable: true,
      description: 'A CourseTemplate or LearningPath id.',
    },
    name: { column: 'name', kind: 'text', orderable: true, description: "A course template's title, a learning path's name." },
    code: { column: 'code', kind: 'text', orderable: true },
    type: { column: 'kind', kind: 'enum', enumValues: ['CourseTemplate', 'LearningPath'], description: 'CourseTemplate or LearningPath.' },
    lifecycleState: {
      column: 'lifecycle_state',
      kind: 'text',
      orderable: true,
      description: 'A course template: draft, published, cancelled; a learning path: draft, active, retired.',
    },
    learningCategoryId: { column: 'category_id', kind: 'ref', refType: 'LearningCategory', description: 'A LearningCategory id.' },
    isBundle: { column: 'is_bundle', kind: 'bool', description: 'A learning path sold as one (course templates are not).' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
    updatedOn: { column: 'updated_on', kind: 'datetime', orderable: true },
  },
});

const learningPathById = (ctx: GraphQLContext, id: number) =>
  ctx.loader('Catalogue.learningPaths', (db) => byId((ids) => learningPathsByIds(db, ids))).load(id);

/** `catalogue(...)`: the page of the list, each node the whole course template or learning path (one statement per kind). */
export const catalogueQuery: GraphQLFieldConfig<unknown, GraphQLContext, Record<string, unknown>> = {
  ...list,
  async resolve(root, args, ctx, info) {
    viewableKinds(ctx); // before anything else is checked or read
    const page = (await list.resolve!(root, args, ctx, info)) as Page<CoreCatalogueRow>;
    const nodes = await Promise.all(
      page.edges.map(({ node }) => (node.kind === 'CourseTemplate' ? courseTemplateById(ctx, node.id) : learningPathById(ctx, node.id))),
    );
    // Each row was just listed in this transaction: its record is there.
    return { ...page, edges: page.edges.map((edge, i) => ({ ...edge, node: { ...nodes[i]!, __kind: edge.node.kind } })) };
  },
};
