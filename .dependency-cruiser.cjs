/**
 * The direction of imports (`npm run lint`): each layer imports only the layers below it.
 *
 *   4 processes  src/web.ts src/start.ts src/cli/ workers/
 *   3 app        src/app/        assembly: the web app, routes, schemas, runtime, workers
 *   2 modules    src/modules/    one area each: data (its tables), rules, services, and faces
 *   1 kit        src/kit/        the API toolkits (HTTP, REST engine, GraphQL), knowing no module
 *   0 platform   src/platform/   config, logging, errors, db, tenancy, queues and outbox
 *
 * Inside a module, the domain (`*.data.ts`, `*.rules.ts`, `*.service.ts` and helpers) never imports
 * an API face or the kit: faces (`*.rest.ts`, `*.graphql.ts`, `*.weblink.ts`, `*.processor.ts`,
 * `*.routes.ts`, `*-auth.ts`) translate between the domain and the outside.
 *
 * Between modules: a module is used by others only through its public entries, `index.ts` (row
 * types, read functions, services, rules) and, for other modules' faces, `index.graphql.ts` (the
 * GraphQL object types, scalars, inputs and field builders they compose) and `index.auth.ts`
 * (authentication helpers). Routes, resolvers of root fields and mutations, REST resources and
 * handlers are never exported there (`scripts/public-entries.ts` checks the names): the app
 * wires them. And no two modules depend on each other, directly or around a circle.
 */
const FACE = '[.](rest|graphql|weblink|processor|routes|auth)[.]ts$|-auth[.]ts$';
const PUBLIC_ENTRY = '^src/modules/[^/]+/index([.](graphql|auth))?[.]ts$';
const PROCESS = '^src/(web|start)[.]ts$|^src/cli/|^workers/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import circles hide which module depends on which.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-imports-platform',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^(src/(?!platform/)|workers/|seeds/)' },
    },
    {
      name: 'kit-knows-no-module',
      severity: 'error',
      from: { path: '^src/kit/' },
      to: { path: '^(src/(?!platform/|kit/)|workers/|seeds/|migrations/)' },
    },
    {
      name: 'modules-below-app',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: `^src/app/|${PROCESS}|^seeds/|^migrations/` },
    },
    {
      name: 'domain-imports-no-face',
      severity: 'error',
      comment: 'Data, rules and services are the same for every face; only faces know the kit.',
      from: { path: '^src/modules/', pathNot: FACE },
      to: { path: `^src/kit/|^src/modules/.*(${FACE})` },
    },
    {
      name: 'modules-through-public-entry',
      severity: 'error',
      comment:
        'Another module is reached through its index.ts (or index.graphql.ts / index.auth.ts from a face), never through its other files.',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', PUBLIC_ENTRY] },
    },
    {
      name: 'no-module-cycle',
      severity: 'error',
      comment: 'Modules depend on each other one way: a circle of modules (even with no circle of files) fails.',
      scope: 'folder',
      from: { path: '^src/modules/[^/]+' },
      to: { path: '^src/modules/[^/]+', circular: true },
    },
    {
      name: 'public-entry-only-re-exports',
      severity: 'error',
      comment: "A module's public entry re-exports its own files; it does not reach into another module.",
      from: { path: '^src/modules/([^/]+)/index([.](graphql|auth))?[.]ts$' },
      to: { path: '^src/modules/', pathNot: '^src/modules/$1/' },
    },
    { name: 'app-below-processes', severity: 'error', from: { path: '^src/app/' }, to: { path: PROCESS } },
    // A process may import files of its own folder (the CLI's command files), never another process.
    { name: 'processes-import-no-process', severity: 'error', from: { path: '^src/(web|start)[.]ts$' }, to: { path: PROCESS } },
    {
      name: 'cli-imports-no-other-process',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(web|start)[.]ts$|^workers/' },
    },
    {
      name: 'worker-imports-no-other-process',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: '^src/(web|start)[.]ts$|^src/cli/' },
    },
    {
      name: 'seeds-and-migrations-use-the-domain',
      severity: 'error',
      from: { path: '^(seeds|migrations)/' },
      to: { path: `^src/(kit|app)/|^src/modules/.*(${FACE})|${PROCESS}` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
