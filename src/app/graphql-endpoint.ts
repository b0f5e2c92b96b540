import { renderGraphiQL } from 'graphql-helix';
import type { GraphQLSchema } from 'graphql';
import { checkBearer } from '../modules/oauth/bearer-auth.js';
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
import { html, type Html } from '../kit/http/pages.js';
import { platformBaseUrl } from '../platform/config.js';
import compose from 'koa-compose';
import type Koa from 'koa';
import type { AppContext, AppMiddleware, AppState } from '../kit/http/context.js';
import { csrfProtection, sessionOf, sessions } from '../kit/http/session.js';
import { issueSignInToken } from '../modules/oauth/sign-in-tokens.service.js';
import { SCOPE } from '../modules/oauth/oauth-store.js';
import { findActiveUser } from '../modules/users/index.js';
import type { Tenant } from '../platform/tenancy/tenant.js';
import { withTenant } from '../platform/tenancy/with-tenant.js';

/**
 * `POST /graphql` (and GET for queries), the Core GraphQL API. Every request needs a bearer
 * token from Lectern's authorization server; it runs as the token's user, in one transaction in
 * the token's tenant. On the platform host the tenant is the token's; on a tenant's host a token
 * of another tenant is refused like an invalid one.
 */
export const GRAPHQL_PATH = '/graphql';
/**
 * `POST /graphql/sign-in-token` on an instance's address (GRAPHIQL_SIGN_IN_TOKENS): an access
 * token for the user signed in to its Control Panel, for GraphiQL's "Use my sign-in" button.
 */
export const SIGN_IN_TOKEN_PATH = '/graphql/sign-in-token';
/** Where GraphiQL sends someone not signed in: the Control Panel's sign-in, which comes back to GraphiQL. */
export const GRAPHIQL_SIGN_IN = `/control-panel/login?next=${encodeURIComponent(GRAPHQL_PATH)}`;
/** Where a user finds the apps that act for them, GraphiQL's tokens among them, with "Remove access". */
const ACCOUNT_APPS = '/account/applications';

export function graphqlEndpoint(
  rt: Runtime,
  schema: GraphQLSchema = buildSchema({ webhookSecretOverlapMs: rt.config.webhooks.secretOverlapMs }),
): AppMiddleware {
  const https = requireHttps(rt.config);
  const server = graphqlServer(rt, schema);
  const signInTokens = rt.config.graphiqlSignInTokens;
  // The pages' session (its cookie and store), for GraphiQL on an instance's address and its
  // token route: the app mounts it after this endpoint, so it is made here, on the app of the first
  // request that needs it. koa-session keeps one session per request, whichever middleware reads
  // it: this is the Control Panel's own session, not a second one. Then the pages' CSRF check.
  let session: AppMiddleware | undefined;
  const withSession: AppMiddleware = (ctx, next) =>
    (session ??= sessions(ctx.app as unknown as Koa<AppState>, rt.knex, rt.config.sessionKeys))(ctx, next);
  const pageSession = compose([requireHttps(rt.config), withSession, csrfProtection()]) as AppMiddleware;

  /** The user signed in to `tenant`'s Control Panel in this browser, still active; else undefined. */
  async function signedInUser(ctx: AppContext, tenant: Tenant): Promise<{ id: number; email: string } | undefined> {
    const s = sessionOf(ctx).user;
    if (s?.tenantId !== tenant.id) return undefined;
    return withTenant(rt.knex, tenant, (db) => findActiveUser(db, s.userId));
  }

  /**
   * `POST /graphql/sign-in-token`: a token for the signed-in user of this instance. Only for this
   * instance's own pages: the browser's Origin must be this address (a page of another site, or of
   * another instance, which is the same site, is refused before anything else), and the body must
   * carry the pages' CSRF token (`_csrf`), which only a page of this address can read. The answer
   * is never cached; neither the token nor the CSRF token is logged (the access log has the path).
   */
  async function signInToken(ctx: AppContext): Promise<void> {
    const slug = slugFromHost(ctx.get('host'), rt.config.baseDomain);
    const tenant = slug ? await rt.registry.bySlug(slug) : undefined;
    if (!tenant) {
      throw new AppError(
        404,
        'not_found',
        slug
          ? `No instance at host '${ctx.get('host')}'`
          : `Tokens for a signed-in user are given on an instance's address (where its Control Panel is), not on the platform's: ${SIGN_IN_TOKEN_PATH} there`,
      );
    }
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      throw new AppError(405, 'method_not_allowed', `${ctx.method} is not supported on ${SIGN_IN_TOKEN_PATH} (allowed: POST)`);
    }
    // This address as a browser names it in Origin (Koa's `ctx.origin` is the Origin header itself).
    const own = `${ctx.protocol}://${ctx.host}`.toLowerCase();
    if (ctx.get('origin').toLowerCase() !== own) {
      throw new AppError(
        403,
        'cross_origin_refused',
        `A token for the signed-in user is given only to this instance's own pages (Origin ${own}), from GraphiQL's "Use my sign-in" button`,
      );
    }
    await pageSession(ctx, async () => {
      const user = await signedInUser(ctx, tenant);
      if (!user) {
        // A challenge of the session's own, so a browser asks for no password.
        ctx.set('WWW-Authenticate', `Session realm="${tenant.name} Control Panel"`);
        throw new AppError(401, 'not_signed_in', `Not signed in to the Control Panel of ${tenant.name}: sign in, then try again`, {
          signIn: GRAPHIQL_SIGN_IN,
        });
      }
      const issued = await issueSignInToken({ knex: rt.knex, registry: rt.registry }, tenant, user.id);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      ctx.body = {
        access_token: issued.accessToken,
        token_type: 'Bearer',
        expires_in: issued.expiresIn,
        scope: SCOPE,
        user: { email: issued.user.email },
      };
    });
  }

  return async (ctx, next) => {
    if (ctx.path === SIGN_IN_TOKEN_PATH) {
      // Where the operator has not allowed it, there is no such route.
      if (!signInTokens) return next();
      return signInToken(ctx);
    }
    if (ctx.path !== GRAPHQL_PATH) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.set('Allow', 'GET, POST');
      return graphqlErrors(ctx, 405, 'Use POST (or GET for queries)', 'METHOD_NOT_ALLOWED');
    }
    const slug = slugFromHost(ctx.get('host'), rt.config.baseDomain);
    const hostTenant = slug ? await rt.registry.bySlug(slug) : undefined;
    if (slug && !hostTenant) return graphqlErrors(ctx, 404, `No instance at host '${ctx.get('host')}'`, 'NOT_FOUND');
    // GraphiQL, for people exploring the API locally (its requests need a token, set in its headers
    // pane), and on instances' addresses wherever sign-in tokens are allowed (in production too,
    // when the operator turned them on); not for a GET that carries its query in a JSON body.
    const offerSignIn = Boolean(hostTenant) && signInTokens;
    if (
      ctx.method === 'GET' &&
      (rt.config.env !== 'production' || offerSignIn) &&
      ctx.accepts('json', 'html') === 'html' &&
      !ctx.query.query &&
      !ctx.is('json')
    ) {
      const page = (signIn?: GraphiqlPageOptions['signIn']) => {
        ctx.type = 'html';
        ctx.set('Cache-Control', 'no-store');
        // Never in a frame: the page holds the session's CSRF token and a button that mints a token.
        ctx.set('X-Frame-Options', 'DENY');
        ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
        ctx.body = graphiqlPage({
          platformUrl: platformBaseUrl(rt.config),
          onPlatform: !hostTenant,
          platformGraphiql: rt.config.env !== 'production',
          signInTokens,
          signIn,
        });
      };
      if (!hostTenant || !offerSignIn) return page();
      return pageSession(ctx, async () => page({ user: await signedInUser(ctx, hostTenant), csrfToken: ctx.state.csrfToken! }));
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
        // Outside production, a request with no token is told the one-step way to get one.
        const hint =
          !ctx.get('authorization') && rt.config.env !== 'production'
            ? ` (here: npm run cli -- tokens:create --tenant ${hostTenant?.slug ?? '<instance>'})`
            : '';
        return graphqlErrors(ctx, 401, auth.message + hint, 'UNAUTHENTICATED');
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

/** What GraphiQL's headers pane holds at first: the token goes after it. */
export const GRAPHIQL_PLACEHOLDER = 'Bearer ';
/** What a query run before a token is in the headers answers (in the page: it is never sent). */
export const GRAPHIQL_TOKEN_HINT =
  'No access token yet: paste one after Bearer in Request Headers (below the query). The box at the top says how to get one.';

export interface GraphiqlPageOptions {
  /** The platform's address (`http://localhost:3000`): its `/oauth/token` issues tokens. */
  platformUrl: string;
  /** The page is on the platform address (else on an instance's, where the Control Panel is). */
  onPlatform: boolean;
  /** The platform address serves GraphiQL too (outside production): an instance's page may send one there. */
  platformGraphiql?: boolean;
  /** GRAPHIQL_SIGN_IN_TOKENS: instances' GraphiQL have the "Use my sign-in" button (the platform's says so). */
  signInTokens?: boolean;
  /**
   * On an instance's address with sign-in tokens: who is signed in to its Control Panel in this
   * browser (undefined: nobody), and the CSRF token the button sends.
   */
  signIn?: { user: { email: string } | undefined; csrfToken: string } | undefined;
}

/**
 * How to get a token, at the top of the page. On the platform address the page exchanges client
 * credentials for a token itself (`POST /oauth/token`, same origin; the secret goes in the body,
 * never in an address, and nothing is stored) and puts it in the headers pane.
 */
function tokenBox({ platformUrl, onPlatform, platformGraphiql = true, signInTokens, signIn }: GraphiqlPageOptions): Html {
  const tokenUrl = `${platformUrl}/oauth/token`;
  // The command wraps between its arguments only: a browser would break a line after any hyphen
  // (`-s -` / `u "$CLIENT_ID..."`), which reads as another command. Copied, it is the same text.
  const curlParts = ['curl -s', '-u "$CLIENT_ID:$CLIENT_SECRET"', '-d grant_type=client_credentials', tokenUrl];
  const curl = html`${curlParts.map((part, i) => html`${i ? ' ' : ''}<span class="arg">${part}</span>`)}`;
  const credentials = onPlatform
    ? html`Client credentials of an instance (create them in its Control Panel, acting as a user: the instances and their Control
        Panels are listed on <a href="/">the platform page</a>), exchanged here:
        <form id="lectern-exchange"><input id="lectern-client-id" placeholder="Client ID (lc_...)" autocomplete="off" spellcheck="false" required>
        <input id="lectern-client-secret" type="password" placeholder="Client secret (lcs_...)" autocomplete="off" required>
        <button type="submit">Get a token</button></form>`
    : html`${signIn ? 'Or client' : 'Client'} credentials of this instance: create them in its <a href="/control-panel">Control Panel</a> (acting as a user),
        then exchange them ${platformGraphiql ? html`in <a href="${platformUrl}${GRAPHQL_PATH}">GraphiQL on the platform address</a> or ` : ''}with
        <code>${curl}</code>`;
  // One click for the user signed in to this instance's Control Panel; a way there for anyone else.
  const mine = signIn
    ? signIn.user
      ? html`<li><button id="lectern-use-sign-in" type="button" data-csrf="${signIn.csrfToken}">Use my sign-in</button>
          gets a token for <strong>${signIn.user.email}</strong>, signed in to this instance's Control Panel, with your permissions
          (listed under <a href="${ACCOUNT_APPS}">Apps you authorized</a>, where Remove access revokes it).</li>`
      : html`<li id="lectern-not-signed-in">You are not signed in to this instance: <a href="${GRAPHIQL_SIGN_IN}">sign in to its Control Panel</a>
          and you come back here to a <strong>Use my sign-in</strong> button that gets a token for you in one click.</li>`
    : onPlatform && signInTokens
      ? html`<li>Signed in to an instance's Control Panel, open the instance's own GraphiQL (listed on <a href="/">the platform page</a>):
          its <strong>Use my sign-in</strong> button gets a token for you in one click.</li>`
      : '';
  return html`<div id="lectern-start" role="region" aria-label="How to get an access token">
<button id="lectern-hide" type="button" title="Hide this box">Hide</button>
<p><strong>Lectern Core GraphQL API.</strong> Every request needs an access token: paste it after <code>Bearer </code> in
<strong>Request Headers</strong> (below the query). The Docs and completion load once it is there; it is kept in this tab only.</p>
<p><strong>Get a token</strong> (valid 1 hour):</p>
<ul>
${onPlatform ? '' : mine}<li>${credentials}</li>
${onPlatform ? html`<li>Or with curl: <code>${curl}</code></li>` : ''}
${onPlatform ? mine : ''}<li>From the command line, in one step: <code>npm run cli -- tokens:create --tenant &lt;instance&gt;</code> (<code>npm run cli -- --help</code> lists the others).</li>
<li>For an application that users sign in to (the authorization code flow): the walk-throughs of <code>docs/oauth.md</code>.</li>
</ul>
<p id="lectern-token-status" role="status"></p>
</div>`;
}

const BOX_STYLE = `
body{display:flex;flex-direction:column}
body>.graphiql-container{flex:1;min-height:0;height:auto}
#lectern-start{flex:none;position:relative;padding:.55rem 5rem .55rem 1rem;background:#fff8e1;border-bottom:1px solid #e0cf9a;
  font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1d2433}
#lectern-start p,#lectern-start ul{margin:.15rem 0}#lectern-start ul{padding-left:1.2rem}
#lectern-start code{background:#f3ecd2;padding:0 .25rem;border-radius:3px;overflow-wrap:anywhere}#lectern-start code .arg{white-space:nowrap}
#lectern-exchange{display:inline}#lectern-start input{font:inherit;padding:.1rem .35rem;border:1px solid #c5cad3;border-radius:3px;width:13rem}
#lectern-start button{font:inherit;padding:.1rem .6rem;border:1px solid #2453a6;border-radius:3px;background:#2453a6;color:#fff;cursor:pointer}
#lectern-hide{position:absolute;top:.5rem;right:1rem;background:#fff!important;color:#2453a6!important}
#lectern-start.hidden>:not(p:first-of-type):not(#lectern-hide):not(#lectern-token-status){display:none}
#lectern-token-status:empty{display:none}#lectern-token-status.error{color:#8a1c14}`;

/**
 * GraphiQL (graphql-helix's, GraphiQL 1.x) for `GET /graphql` in development (and on instances'
 * addresses where GRAPHIQL_SIGN_IN_TOKENS allows), with a box on top that says how to get a token
 * (on an instance's address first the "Use my sign-in" button, or the way to sign in), and the
 * Request Headers pane open on `Authorization: Bearer `.
 * GraphiQL fetches the schema once, when the page loads, with the headers then in its pane, and
 * never again: so scripts of Lectern's own go around it.
 * - Before GraphiQL: a request whose Authorization has no token yet is not sent: the schema's
 *   waits (the box says what to do), a query is answered in the page with {@link GRAPHIQL_TOKEN_HINT};
 *   and the Request Headers tab is the one open (GraphiQL reads that from its storage).
 * - After it: when the headers change and GraphiQL has no schema, the schema is fetched again
 *   (Docs and completion then work); a schema request the server refused (a token not valid)
 *   shows the server's errors as they are, not GraphiQL's JSON-in-a-string; the box's token
 *   buttons (client credentials exchanged; the signed-in user's token); the box hides on request.
 * Headers are not persisted (`shouldPersistHeaders: false`): a token lives in the tab only.
 */
export function graphiqlPage(options: GraphiqlPageOptions): string {
  const initialHeaders = JSON.stringify({ Authorization: GRAPHIQL_PLACEHOLDER }, null, 2);
  const defaultQuery = [
    '# Lectern Core GraphQL API: the box above says how to get an access token.',
    '# Put it after Bearer in Request Headers (below); run with Ctrl-Enter.',
    '',
    '{',
    '  hello',
    '}',
    '',
  ].join('\n');
  const rendered = renderGraphiQL({
    endpoint: GRAPHQL_PATH,
    headers: initialHeaders,
    headerEditorEnabled: true,
    shouldPersistHeaders: false,
    defaultQuery,
  });
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
  const guard = `<script>
(function () {
  var endpoint = ${json(GRAPHQL_PATH)}, placeholder = ${json(GRAPHIQL_PLACEHOLDER)}, hint = ${json(GRAPHIQL_TOKEN_HINT)};
  // The Request Headers tab open (GraphiQL 1.x reads it from its storage and never writes it).
  try { localStorage.setItem('graphiql:headerEditorActive', 'true'); } catch (e) {}
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
  function noToken(value) {
    var v = String(value || '').trim();
    return v === '' || v.toLowerCase() === placeholder.trim().toLowerCase();
  }
  function isSchemaRequest(init) {
    try { return JSON.parse(String((init && init.body) || '{}')).operationName === 'IntrospectionQuery'; } catch (e) { return false; }
  }
  window.fetch = function (input, init) {
    var url = typeof input === 'string' || input instanceof URL ? String(input) : input && input.url;
    if (url && new URL(url, location.href).pathname === endpoint && noToken(authorization(input, init))) {
      // The schema waits for a token (fetched again once the headers change); a query is told what to do.
      if (isSchemaRequest(init)) return new Promise(function () {});
      var body = JSON.stringify({ errors: [{ message: hint, extensions: { code: 'UNAUTHENTICATED' } }] });
      return Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'application/json' } }));
    }
    return send(input, init);
  };
})();
</script>`;
  const after = `<script>
(function () {
  var tokenPath = '/oauth/token', send = window.fetch, hint = ${json(GRAPHIQL_TOKEN_HINT)};
  var signInTokenPath = ${json(SIGN_IN_TOKEN_PATH)};
  var box = document.createElement('div');
  box.innerHTML = ${json(tokenBox(options).value)};
  box = box.firstElementChild;
  document.body.insertBefore(box, document.body.firstChild);
  var status = document.getElementById('lectern-token-status');
  document.getElementById('lectern-hide').addEventListener('click', function () {
    var hidden = box.classList.toggle('hidden');
    this.textContent = hidden ? 'Show' : 'Hide';
  });
  function graphiql() {
    var g = window.g; // GraphiQL sets it when it mounts
    if (!g || !g.state || typeof g.fetchSchema !== 'function') return undefined;
    if (!g.lecternPatched) {
      g.lecternPatched = true;
      // GraphiQL shows a refused schema request as its JSON answer inside a string, escapes and
      // all: the errors themselves instead.
      var handle = g.handleSchemaErrors;
      g.handleSchemaErrors = function (errors) {
        var flat = [];
        (errors || []).forEach(function (e) {
          if (typeof e === 'string') {
            try { var r = JSON.parse(e); if (r && Array.isArray(r.errors)) { flat.push.apply(flat, r.errors); return; } } catch (x) {}
          }
          flat.push(e);
        });
        return handle.call(g, flat);
      };
    }
    return g;
  }
  // The box exists only as this script inserts it: the form is never submitted as a form (its
  // secret would go to the page's address), only through this handler.
  var form = document.getElementById('lectern-exchange');
  if (form) form.addEventListener('submit', function (event) {
    event.preventDefault();
    var id = document.getElementById('lectern-client-id'), secret = document.getElementById('lectern-client-secret');
    var g = graphiql();
    if (!g) return;
    status.className = '';
    status.textContent = 'Asking for a token...';
    var body = new URLSearchParams({ grant_type: 'client_credentials', client_id: id.value.trim(), client_secret: secret.value.trim() });
    send(tokenPath, { method: 'POST', body: body, credentials: 'omit', cache: 'no-store' })
      .then(function (res) { return res.json().catch(function () { return {}; }); })
      .then(function (answer) {
        if (!answer.access_token) throw new Error(answer.error_description || answer.error || 'no token in the answer');
        secret.value = '';
        g.setState({ headers: JSON.stringify({ Authorization: 'Bearer ' + answer.access_token }, null, 2) });
        status.textContent = 'The token is in Request Headers (valid ' + Math.round((answer.expires_in || 3600) / 60) + ' minutes).';
      })
      .catch(function (err) {
        status.className = 'error';
        status.textContent = 'No token: ' + err.message;
      });
  });
  // "Use my sign-in": a token for the user signed in to this instance's Control Panel, asked of
  // this address with the session's cookie and the page's CSRF token (in the body, never in an address).
  var mine = document.getElementById('lectern-use-sign-in');
  if (mine) mine.addEventListener('click', function () {
    var g = graphiql();
    if (!g) return;
    status.className = '';
    status.textContent = 'Asking for a token...';
    var body = new URLSearchParams({ _csrf: mine.getAttribute('data-csrf') || '' });
    send(signInTokenPath, { method: 'POST', body: body, credentials: 'same-origin', cache: 'no-store' })
      .then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (answer) {
          if (answer.access_token) return answer;
          var e = (answer && answer.error) || {}, err = new Error(e.message || 'no token in the answer (HTTP ' + res.status + ')');
          err.signIn = e.details && e.details.signIn;
          throw err;
        });
      })
      .then(function (answer) {
        g.setState({ headers: JSON.stringify({ Authorization: 'Bearer ' + answer.access_token }, null, 2) });
        status.textContent = 'A token for ' + (answer.user && answer.user.email) + ' is in Request Headers (valid ' +
          Math.round((answer.expires_in || 3600) / 60) + ' minutes).';
      })
      .catch(function (err) {
        status.className = 'error';
        status.textContent = 'No token: ' + err.message + ' ';
        if (err.signIn) {
          var a = document.createElement('a');
          a.href = err.signIn;
          a.textContent = 'Sign in';
          status.appendChild(a);
        }
      });
  });
  // Compared with the headers the page starts with, not with the first ones a tick sees: on a
  // slow machine a token may be pasted before the first tick after GraphiQL mounts.
  var seen = ${json(initialHeaders)};
  graphiql();
  setInterval(function () {
    var g = graphiql();
    if (!g) return;
    // The hint of a query run before the token came goes once the schema is there.
    if (g.state.schema && typeof g.state.response === 'string' && g.state.response.indexOf(hint) >= 0) g.setState({ response: '' });
    var headers = g.state.headers;
    if (headers === seen) return;
    seen = headers;
    if (g.state.schema !== undefined) return;
    try { JSON.parse(headers || '{}'); } catch (e) { return; } // still being typed
    g.fetchSchema();
  }, 300);
})();
</script>`;
  // The guard goes before GraphiQL's own script (which keeps the fetch it finds), the rest after.
  const headEnd = rendered.indexOf('</head>');
  const page = `${rendered.slice(0, headEnd)}<style>${BOX_STYLE}</style>\n${rendered.slice(headEnd)}`;
  const start = page.indexOf('<body>') + '<body>'.length;
  const end = page.lastIndexOf('</body>');
  return `${page.slice(0, start)}\n${guard}${page.slice(start, end)}${after}\n${page.slice(end)}`;
}
