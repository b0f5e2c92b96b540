import { GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { GraphQLContext } from '../kit/graphql/context.js';
import {
  catalogueCategoriesQuery,
  catalogueCourseTemplatesQuery,
  catalogueEventsQuery,
  catalogueLearningPathsQuery,
  catalogueLocalesQuery,
} from '../modules/catalogue/catalogue.weblink.js';

/**
 * The WebLink schema, assembled from the catalogue module (src/modules/catalogue): the public,
 * read-only catalogue a training company's own website shows. `weblink.graphql` at the project
 * root is this schema's SDL (`npm run schema` writes it; a test fails when it is stale).
 */
export function buildWebLinkSchema(): GraphQLSchema {
  const query = new GraphQLObjectType<unknown, GraphQLContext>({
    name: 'Query',
    fields: {
      courseTemplates: catalogueCourseTemplatesQuery,
      learningPaths: catalogueLearningPathsQuery,
      events: catalogueEventsQuery,
      categories: catalogueCategoriesQuery,
      locales: catalogueLocalesQuery,
    },
  });
  return new GraphQLSchema({ query });
}
