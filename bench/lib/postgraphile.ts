import crypto from 'node:crypto';
import http from 'node:http';
import Koa from 'koa';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/koa/v3';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

/**
 * The ready-made peer of `npm run bench -- graphql`: PostGraphile 5 serving the bench tenant's
 * schema set up as its documentation does for production: library mode, the Amber preset, a
 * `makePgService` over only the tenant's schema, grafserv's Koa adaptor (Koa, as Lectern and the
 * bare handler use), with GraphiQL, watch mode, GraphQL over GET, websockets and EXPLAIN off, and
 * Grafast in production mode (GRAPHILE_ENV=production, checked here). Its GraphQL schema is the
 * one PostGraphile generates from the tables (`allCourseTemplates`,
 * `courseTemplateTranslationsByCourseTemplateId`...), with no plugins or SQL of the bench's own:
 * each request runs the SQL Grafast plans for it.
 *
 * PostGraphile has no OAuth token check of its own: in front of it sits the same bearer check as
 * the bare handler's (the token's hash looked up in platform.oauth_tokens, 401 when it is not
 * there), one statement on the same pool before PostGraphile runs its own. With no pgSettings,
 * PostGraphile sends its statements without a transaction (it schema-qualifies its tables, so it
 * needs no search_path).
 *
 * `GET /bench/statements` answers how many statements the pool's connections have been sent so
 * far (the bench's statements-per-request figure); `GET /healthz` answers once the schema is built.
 */

// PostGraphile 5 (grafast, @dataplan/pg) declares Node >= 22 and calls Promise.withResolvers
// (new in Node 22). Lectern still runs on Node 20 (past its end of life, but in package.json's
// engines), where that call throws and every query answers null; the standard's few lines, only
// when missing, so all servers run on the same Node. PostGraphile and its packages are the
// benchmarks' own (bench/package.json), resolved from bench/node_modules (`npm run bench:install`).
const promiseStatics = Promise as unknown as {
  withResolvers?: () => { promise: Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void };
};
promiseStatics.withResolvers ??= () => {
  let resolve!: (v: unknown) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

if (process.env.GRAPHILE_ENV !== 'production')
  throw new Error("bench/lib/postgraphile.ts: start it with GRAPHILE_ENV=production (Grafast's production mode)");
const schema = process.env.BENCH_SCHEMA!;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

let statements = 0;
pool.on('connect', (client) => {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    statements++;
    return query(...args);
  }) as typeof client.query;
});

const preset: GraphileConfig.Preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [makePgService({ pool, schemas: [schema] })],
  grafserv: {
    graphqlPath: '/graphql',
    graphiql: false,
    graphiqlOnGraphQLGET: false,
    graphqlOverGET: false,
    watch: false,
    websockets: false,
  },
  grafast: { explain: false },
};
const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);

const app = new Koa();
app.use(async (ctx, next) => {
  if (ctx.method === 'GET' && (ctx.path === '/healthz' || ctx.path === '/bench/statements')) {
    ctx.body = { statements };
    return;
  }
  if (ctx.path !== '/graphql' || ctx.method !== 'POST') return next();
  const token = /^Bearer (.+)$/i.exec(ctx.get('authorization'))?.[1] ?? '';
  const auth = await pool.query(
    'select 1 from platform.oauth_tokens where access_token_hash = $1 and revoked_at is null and access_expires_at > now()',
    [crypto.createHash('sha256').update(token).digest('hex')],
  );
  if (!auth.rowCount) {
    ctx.status = 401;
    return;
  }
  return next();
});

const server = http.createServer();
await serv.addTo(app, server);
server.on('request', app.callback()); // after addTo: Koa composes its middleware in callback()
// Introspection and the schema build happen before the port opens, not in the first request.
await pgl.getSchema();

process.on('SIGTERM', () => process.exit(0));
server.listen(Number(process.env.PORT), '127.0.0.1');
