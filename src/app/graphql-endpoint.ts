import { renderGraphiQL } from 'graphql-helix';
import type { GraphQLSchema } from 'graphql';
import { checkBearer } from '../modules/oauth/bearer-auth.js';
import type { AppMiddleware } from '../kit/http/context.js';
import { requireHttps } from '../kit/http/https.js';
import type { Runtime } from './runtime.js';
import { slugFromHost } from '../platform/tenancy/registry.js';
import { requestScope } from '../kit/graphql/context.js';
import { graphqlErrors, graphqlServer } from '../kit/graphql/http.js';
import { buildSchema } from './graphql-schema.js';
import { activeUserWithPermissions } from '../modules/users/users.data.js';

/**
 * `POST /graphql` (and GET for queries), the Core GraphQL API. Every request needs a bearer
 * token from Lectern's authorization server; it runs as the token's user, in one transaction in
 * the token's tenant. On the platform host the tenant is the token's; on a tenant's host a token
 * of another tenant is refused like an invalid one.
 */
export const GRAPHQL_PATH = '/graphql';

export function graphqlEndpoint(rt: Runtime, schema: GraphQLSchema = buildSchema()): AppMiddleware {
  const https = requireHttps(rt.config);
  const server = graphqlServer(rt, schema);
  return async (ctx, next) => {
    if (ctx.path !== GRAPHQL_PATH) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.set('Allow', 'GET, POST');
      return graphqlErrors(ctx, 405, 'Use POST (or GET for queries)', 'METHOD_NOT_ALLOWED');
    }
    const slug = slugFromHost(ctx.get('host'), rt.config.baseDomain);
    const hostTenant = slug ? await rt.registry.bySlug(slug) : undefined;
    if (slug && !hostTenant) return graphqlErrors(ctx, 404, `No instance at host '${ctx.get('host')}'`, 'NOT_FOUND');
    // GraphiQL, for people exploring the API locally (its requests need a token, set in its headers pane).
    if (ctx.method === 'GET' && rt.config.env !== 'production' && ctx.accepts('json', 'html') === 'html' && !ctx.query.query) {
      ctx.type = 'html';
      ctx.body = renderGraphiQL({ endpoint: GRAPHQL_PATH, headers: JSON.stringify({ Authorization: 'Bearer <access token>' }, null, 2), defaultQuery: '{ hello }' });
      return;
    }
    if (!server.acceptable(ctx)) return;
    await https(ctx, async () => {
      const auth = await checkBearer(rt.knex, rt.registry, ctx.get('authorization') || undefined, hostTenant);
      if (!auth.ok) {
        ctx.set('WWW-Authenticate', auth.challenge);
        return graphqlErrors(ctx, 401, auth.message, 'UNAUTHENTICATED');
      }
      const { tenant, userId, clientId } = auth.grant;
      await server.answer(ctx, tenant, async (db) => {
        const user = await activeUserWithPermissions(db, { id: userId });
        if (!user) {
          const message = 'The user of this token is no longer active';
          return { refuse: { status: 401, message, code: 'UNAUTHENTICATED', headers: { 'WWW-Authenticate': `Bearer realm="Lectern GraphQL", error="invalid_token", error_description="${message}"` } } };
        }
        return { context: { db, tenant, clientId, ...requestScope(db), user: { id: user.id, email: user.email, companyId: user.company_id, permissions: user.permissions } } };
      });
    });
  };
}
