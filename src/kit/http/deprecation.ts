import { AppError } from '../../platform/errors.js';
import type { AppMiddleware } from './context.js';

/** The legacy REST API's retirement, as the contract states it. */
export const REST_SUNSET = new Date('2026-05-12T00:00:00Z');
/** When the REST API was marked deprecated (announced a year before the sunset). */
export const REST_DEPRECATED_AT = new Date('2025-05-12T00:00:00Z');
export const MIGRATION_GUIDE_PATH = '/api/v2/migration';

/**
 * Every /api/v2 response, errors included, tells clients the API is deprecated and when it is
 * retired: RFC 9745 `Deprecation` (a structured date), RFC 8594 `Sunset`, and `Link`s to the
 * migration guide. When the API is switched off, every call gets 410 Gone pointing to GraphQL.
 */
export function restDeprecation(opts: { enabled: boolean; graphqlUrl: (host: string) => string }): AppMiddleware {
  const deprecation = `@${Math.floor(REST_DEPRECATED_AT.getTime() / 1000)}`;
  const sunset = REST_SUNSET.toUTCString();
  return async (ctx, next) => {
    ctx.set('Deprecation', deprecation);
    ctx.set('Sunset', sunset);
    ctx.set(
      'Link',
      `<${MIGRATION_GUIDE_PATH}>; rel="deprecation"; type="text/html", <${MIGRATION_GUIDE_PATH}>; rel="sunset"; type="text/html"`,
    );
    if (!opts.enabled && ctx.path !== MIGRATION_GUIDE_PATH && ctx.path !== '/api/v2/openapi.json') {
      throw new AppError(
        410,
        'api_retired',
        `The legacy REST API was retired on ${sunset}. Use the GraphQL API at ${opts.graphqlUrl(ctx.host)}; see ${MIGRATION_GUIDE_PATH}.`,
        {
          graphql: opts.graphqlUrl(ctx.host),
          migrationGuide: MIGRATION_GUIDE_PATH,
        },
      );
    }
    await next();
  };
}
