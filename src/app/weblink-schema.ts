import { GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { GraphQLContext } from '../kit/graphql/context.js';
import { OBJECTIVE_TYPES } from '../modules/catalogue/catalogue-types.weblink.js';
import {
  catalogueQuery,
  categoriesQuery,
  coursesQuery,
  eventsQuery,
  learningPathsQuery,
  localesQuery,
  locationsQuery,
} from '../modules/catalogue/catalogue.weblink.js';

/**
 * The WebLink schema, assembled from the catalogue module (src/modules/catalogue): the public,
 * read-only catalogue a training company's own website shows, with the root fields, types and
 * filters the production service's website plugins and SDK use. `weblink.graphql` at the project
 * root is this schema's SDL (`npm run schema` writes it; a test fails when it is stale).
 */
export function buildWebLinkSchema(): GraphQLSchema {
  const query = new GraphQLObjectType<unknown, GraphQLContext>({
    name: 'Query',
    fields: {
      catalogue: catalogueQuery,
      courses: coursesQuery,
      learningPaths: learningPathsQuery,
      events: eventsQuery,
      categories: categoriesQuery,
      locations: locationsQuery,
      locales: localesQuery,
    },
  });
  // The objective types are reached only through their interface.
  return new GraphQLSchema({ query, types: OBJECTIVE_TYPES });
}
