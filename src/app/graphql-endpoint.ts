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
import { checkedValue, checkRequest } from '../platform/db/transaction.js';
import type { Knex } from '../platform/db/knex.js';
import { AppError } from '../platform/errors.js';
import { AskedPermissions, identityRefusal } from '../kit/http/cached-identity.js';

/**
 * `POST /graphql` (and GET for queries), the Core GraphQL API. Every request needs a bearer
 * token from Lectern's authorization server; it runs as the token's user, in one transaction in
 * the token's tenant. On the platform host the tenant is the token's; on a tenant's host a token
 * of another tenant is refused like an invalid one.
 */
export const GRAPHQL_PATH = '/graphql';

export function graphqlEndpoint(
  rt: Runtime,
  schema: GraphQLSchema = buildSchema({ webhookSecretOverlapMs: rt.config.webhooks.secretOverlapMs }),
): AppMiddleware {
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
    // GraphiQL, for people exploring the API locally (its requests need a token, set in its headers
    // pane); not for a GET that carries its query in a JSON body.
    if (
      ctx.method === 'GET' &&
      rt.config.env !== 'production' &&
      ctx.accepts('json', 'html') === 'html' &&
      !ctx.query.query &&
      !ctx.is('json')
    ) {
      ctx.type = 'html';
      ctx.body = graphiqlPage();
      return;
    }
    if (!server.acceptable(ctx)) return;
    await https(ctx, async () => {
      const auth = await checkBearer(
        rt.knex,
        rt.registry,
        rt.accessTokens,
        ctx.get('authorization') || undefined,
        hostTenant,
        (challenge) => ctx.set('WWW-Authenticate', challenge),
      );
      if (!auth.ok) {
        ctx.set('WWW-Authenticate', auth.challenge);
        return graphqlErrors(ctx, 401, auth.message, 'UNAUTHENTICATED');
      }
      const { tenant, userId, clientId, check } = auth.grant;
      const message = 'The user of this token is no longer active';
      const challenge = `Bearer realm="Lectern GraphQL", error="invalid_token", error_description="${message}"`;
      await server.answer(
        ctx,
        tenant,
        async (db) => {
          // What came from the process's caches is checked by the request's first statement (issue 23).
          await checkRequest(db, check);
          const key = `${tenant.id}:id:${userId}`;
          const read = (on: Knex) => activeUserWithPermissions(on, { id: userId });
          const found = await rt.identities.get(tenant.schema, key, async () => ({ value: await read(db), generation: checkedValue(db) }));
          if (!found) return { refuse: { status: 401, message, code: 'UNAUTHENTICATED', headers: { 'WWW-Authenticate': challenge } } };
          const user = found.value;
          const permissions = AskedPermissions.remembering(user.permissions);
          const gone = () => (ctx.set('WWW-Authenticate', challenge), new AppError(401, 'unauthenticated', message));
          await checkRequest(
            db,
            rt.identities.check(tenant.schema, key, found, read, (fresh) =>
              identityRefusal(user, fresh, permissions, { password: false, unauthenticated: gone }),
            ),
          );
          return {
            context: {
              db,
              tenant,
              clientId,
              ...requestScope(db),
              user: { id: user.id, email: user.email, companyId: user.company_id, permissions },
            },
          };
        },
        { actorUserId: userId },
      );
    });
  };
}

/** What GraphiQL's headers pane holds until a token is pasted in. */
export const GRAPHIQL_PLACEHOLDER = 'Bearer <access token>';
/** What GraphiQL shows while its headers still hold {@link GRAPHIQL_PLACEHOLDER}. */
export const GRAPHIQL_TOKEN_HINT =
  'Replace <access token> in the Request Headers pane (below the query) with an access token from POST /oauth/token: the Docs and completion load once it is there.';

/**
 * GraphiQL (graphql-helix's) for `GET /graphql` in development. GraphiQL fetches the schema once,
 * when the page loads, with the headers then in its pane, and never again: so two scripts of
 * Lectern's own go around it.
 * - Before GraphiQL: a request whose Authorization is still the placeholder is not sent; it
 *   is answered in the page with a GraphQL error that says what to paste (instead of the
 *   server's 401 "not a bearer token").
 * - After it: when the headers change and GraphiQL has no schema, the schema is fetched again
 *   (Docs and completion then work), and the hint is cleared once it is there.
 */
export function graphiqlPage(): string {
  const initialHeaders = JSON.stringify({ Authorization: GRAPHIQL_PLACEHOLDER }, null, 2);
  const html = renderGraphiQL({ endpoint: GRAPHQL_PATH, headers: initialHeaders, defaultQuery: '{ hello }' });
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
  const guard = `<script>
(function () {
  var endpoint = ${json(GRAPHQL_PATH)}, placeholder = ${json(GRAPHIQL_PLACEHOLDER)}, hint = ${json(GRAPHIQL_TOKEN_HINT)};
  var send = window.fetch.bind(window);
  function authorization(input, init) {
    var headers = (init && init.headers) || (input && typeof input === 'object' && input.headers);
    if (!headers) return undefined;
    if (typeof headers.get === 'function') return headers.get('authorization') || undefined;
    if (Array.isArray(headers)) {
      for (var i = 0; i < headers.length; i++) if (String(headers[i][0]).toLowerCase() === 'authorization') return headers[i][1];
      return undefined;
    }
    for (var k in headers) if (k.toLowerCase() === 'authorization') return headers[k];
    return undefined;
  }
  window.fetch = function (input, init) {
    var url = typeof input === 'string' || input instanceof URL ? String(input) : input && input.url;
    if (url && new URL(url, location.href).pathname === endpoint && String(authorization(input, init) || '').trim() === placeholder) {
      var body = JSON.stringify({ errors: [{ message: hint, extensions: { code: 'UNAUTHENTICATED' } }] });
      return Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'application/json' } }));
    }
    return send(input, init);
  };
})();
</script>`;
  const refetch = `<script>
(function () {
  // Compared with the headers the page starts with, not with the first ones a tick sees: on a
  // slow machine a token may be pasted before the first tick after GraphiQL mounts.
  var hint = ${json(GRAPHIQL_TOKEN_HINT)}, seen = ${json(initialHeaders)}, refetched = false;
  setInterval(function () {
    var g = window.g; // GraphiQL sets it when it mounts
    if (!g || !g.state || typeof g.fetchSchema !== 'function') return;
    if (refetched && g.state.schema && typeof g.state.response === 'string' && g.state.response.indexOf(hint) >= 0) g.setState({ response: '' });
    var headers = g.state.headers;
    if (headers === seen) return;
    seen = headers;
    if (g.state.schema !== undefined) return;
    try { JSON.parse(headers || '{}'); } catch (e) { return; } // still being typed
    refetched = true;
    g.fetchSchema();
  }, 300);
})();
</script>`;
  // The guard goes before GraphiQL's own script (which keeps the fetch it finds), the rest after.
  const start = html.indexOf('<body>') + '<body>'.length;
  const end = html.lastIndexOf('</body>');
  return `${html.slice(0, start)}\n${guard}${html.slice(start, end)}${refetch}\n${html.slice(end)}`;
}
