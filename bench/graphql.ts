import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { Knex } from '../src/platform/db/knex.js';
import { createUser } from '../src/modules/users/users.service.js';
import { createServiceClient } from '../src/modules/oauth/clients.service.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';
import { benchTenant, cell, compareArgs, compareVariants, type BenchServer, type Outcome } from './lib/compare.js';
import { freePort, startHelper, startProcess, stopProcess } from './lib/env.js';
import { seedTranslatedTemplates } from './lib/templates.js';
import { requestJson, round } from './lib/load.js';
import { writeResult } from './lib/results.js';
import { StatementCounter } from './lib/statements.js';

/**
 * GraphQL throughput: `courseTemplates(first: 50)` with translations and custom field values,
 * against Lectern's real web process, a bare Koa handler answering the same JSON from one
 * hand-written SQL query (bench/lib/bare-graphql.ts), and PostGraphile 5 serving the same tenant
 * schema with its own generated schema and SQL (bench/lib/postgraphile.ts), side by side in
 * interleaved rounds. Targets: Lectern at least 0.5 of the bare handler's throughput, and at
 * least 1.5x PostGraphile's at an equal or lower p99. Then the clients' people pages (a contacts
 * page, an event page with sessions, staff and learners) against the bare handler answering each
 * from one statement, with Lectern's statements per page counted for a small and a full page.
 */
/**
 * The PHP SDK's course template page (its CourseTemplate::loadAll with its default fields: 25
 * by name, with image, gallery, categories, public prices and custom field values), written here
 * from the names real-clients.md gives; `first` as the SDK inlines it.
 */
const sdkQuery = (first: number) => `query ($order: CourseTemplateFieldGraphOrder, $filters: [CourseTemplateFieldGraphFilter]!) {
  courseTemplates(order: $order, first: ${first}, offset: 0, filters: $filters) {
    pageInfo { startCursor endCursor totalRecords hasNextPage hasPreviousPage }
    edges { node { id legacyId lifecycleState code title
      image { id name description folder { id name } }
      imageGallery { edges { node { id name description } } }
      learningCategories { edges { node { id legacyId name } } }
      publicPrices { edges { node { id amount priceLevel { id legacyId name } financialUnit { name __typename } region { id name code company { id name } } } } }
      customFieldValues { definitionKey definitionLocator value }
    } }
  }
}`;
const SDK_PAGE = 25;
const SDK_VARIABLES = { order: { field: 'name', direction: 'asc' }, filters: [] };

/**
 * The people pages the clients send (real-clients.md section 5.B and C), `first` as a variable:
 * the contacts page of the WordPress and acted clients (each contact's account, and its active
 * learners' events: wp's "my workshops"), and an event page with each event's sessions (with
 * their venue), staff (with their contact) and learners (with their contact's e-mail address).
 * Each costs the bare handler one statement (`x-bench-query: contacts` / `events`, the page size
 * in `x-bench-first`).
 */
const PEOPLE = {
  contacts: {
    page: 25,
    query: `query ($first: Int!, $status: String!) { contacts(first: $first) {
  edges { node { id legacyId firstName lastName emailAddress isInstructor account { id name }
    learners(filters: [{field: lifecycleState, operation: eq, value: $status}]) { edges { node { id event { id code title start } } } } } }
  pageInfo { hasNextPage endCursor totalRecords } } }`,
    variables: { status: 'active' },
  },
  events: {
    page: 10,
    query: `query ($first: Int) { events(first: $first) { edges { node { id title
  sessions { edges { node { id title start end lifecycleState venue { id name } } } }
  staff { edges { node { id staffType isPrimary contact { id firstName lastName } } } }
  learners { edges { node { id lifecycleState contact { id emailAddress } } } } } } } }`,
    variables: {},
  },
} as const;
type PeoplePage = keyof typeof PEOPLE;
const PEOPLE_PAGES = Object.keys(PEOPLE) as PeoplePage[];
const peopleName = (page: PeoplePage) =>
  page === 'contacts'
    ? `contacts(first: ${PEOPLE.contacts.page}) with account and active learners' events`
    : `events(first: ${PEOPLE.events.page}) with sessions, staff and learners`;

const QUERY = `{ courseTemplates(first: 50) { edges { node { id title courseText1 locale { code }
  translations { locale { code } title courseText1 translatedFields customFieldValues { definitionKey value } }
  customFieldValues { definitionKey value } } } pageInfo { totalRecords } } }`;

/**
 * The same page in PostGraphile's generated schema: the templates by primary key with their
 * locale, their translations (by locale, with the columns Lectern's `translatedFields` is made
 * from) and all their custom field values (base and translated, by definition, with the
 * definition's key and whether it is built in), and the total. PostGraphile's generated
 * connections cannot filter on the value's locale or the definition's `is_builtin` (not indexed),
 * so {@link fromPostGraphile} does that, and the merge of a translation's values over the base
 * ones, on the bench's side, outside the measured server.
 */
const PGL_QUERY = `{ allCourseTemplates(first: 50, orderBy: PRIMARY_KEY_ASC) { totalCount nodes { rowId title courseText1 localeByLocaleId { code }
  courseTemplateTranslationsByCourseTemplateId(orderBy: LOCALE_ID_ASC) { nodes { localeId localeByLocaleId { code } title courseText1 courseText2 relatedCoursesText lmsSummary teaserDescription } }
  courseTemplateFieldValuesByCourseTemplateId(orderBy: [DEFINITION_ID_ASC, PRIMARY_KEY_ASC]) { nodes { localeId value customFieldDefinitionByDefinitionId { key isBuiltin } } } } } }`;

type Servers = 'lectern' | 'bare' | 'postgraphile';

export async function main(argv: string[]): Promise<void> {
  const { seconds, rounds, concurrency } = compareArgs(argv);
  const { db, knex, tenant } = await benchTenant('graphql');
  // 200 templates in English with French and German translations, two custom fields each.
  await withTenant(knex, tenant, async (trx) => {
    await createUser(trx, { email: 'bench@bench.test', password: 'bench-password-1', role: 'admin' });
    await seedTranslatedTemplates(trx, { count: 200, german: true });
    await withCatalogue(trx);
    await withPeople(trx);
  });
  const creds = await createServiceClient(knex, tenant, { name: 'Bench', serviceUser: 'bench@bench.test' });

  // Statements per SDK page, counted on the same code in this process: the same for 2 as for 25;
  // and per page of the first query, to set beside PostGraphile's.
  const statements: Record<number, number> = {};
  const peopleStatements: Partial<Record<PeoplePage, Record<number, number>>> = {};
  let lecternStatements: number;
  const counter = await StatementCounter.start(db.url);
  try {
    const token = await accessToken(counter.port, creds);
    lecternStatements = (await counter.count(() => mainRequest(token))).statements;
    for (const first of [2, SDK_PAGE]) {
      const { statements: n, answer } = await counter.count(() => sdkRequest(token, first));
      const edges = (answer.json as { data?: { courseTemplates?: { edges: unknown[] } } }).data?.courseTemplates?.edges;
      if (answer.status !== 200 || edges?.length !== first)
        throw new Error(`SDK page (first: ${first}): ${answer.status} ${JSON.stringify(answer.json).slice(0, 1500)}`);
      statements[first] = n;
    }
    // The people pages: a page of 2 and a full page, every record of the small one with something in each nested list.
    for (const page of PEOPLE_PAGES) {
      for (const first of [2, PEOPLE[page].page]) {
        const { statements: n, answer } = await counter.count(() => peopleRequest(token, page, first));
        const problem = peopleProblem(page, answer, first, first === 2);
        if (problem) throw new Error(`${page} page (first: ${first}): ${problem}: ${JSON.stringify(answer.json).slice(0, 1500)}`);
        (peopleStatements[page] ??= {})[first] = n;
      }
    }
  } finally {
    await counter.close();
  }

  const lecternPort = await freePort();
  const servers: BenchServer<Servers>[] = [];
  const MAIN = 'courseTemplates(first: 50)';
  const SDK = `SDK courseTemplates(first: ${SDK_PAGE})`;
  let main: Record<Servers, Outcome>;
  let sdkResults: Record<'lectern' | 'bare', Outcome>;
  const peopleResults: Partial<Record<PeoplePage, Record<'lectern' | 'bare', Outcome>>> = {};
  let peakRss: number;
  let pglStatements: number;
  try {
    servers.push({
      name: 'lectern',
      port: lecternPort,
      proc: await startProcess('dist/src/web.js', { DATABASE_URL: db.url, PORT: String(lecternPort), HOST: '127.0.0.1' }, lecternPort),
    });
    servers.push({
      name: 'bare',
      ...(await startHelper('bench/lib/bare-graphql.ts', { DATABASE_URL: db.url, BENCH_SCHEMA: tenant.schema })),
    });
    servers.push({
      name: 'postgraphile',
      ...(await startHelper('bench/lib/postgraphile.ts', {
        DATABASE_URL: db.url,
        BENCH_SCHEMA: tenant.schema,
        GRAPHILE_ENV: 'production',
        NODE_ENV: 'production',
      })),
    });
    const [lectern, bare, pgl] = servers as [BenchServer<Servers>, BenchServer<Servers>, BenchServer<Servers>];
    await new Promise((r) => setTimeout(r, 2500));
    await untilHealthy(pgl, 'PostGraphile (bench/lib/postgraphile.ts)');
    const token = await accessToken(lecternPort, creds);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https' };
    const request = () => mainRequest(token);
    const pglRequest = () => ({ method: 'POST', path: '/graphql', host: 'localhost', headers, body: JSON.stringify({ query: PGL_QUERY }) });
    const sdk = () => sdkRequest(token, SDK_PAGE);
    // Lectern and the bare handler answer the same JSON (the bare handler's has no key order guarantee beyond the query's).
    const people = (page: PeoplePage) => () => peopleRequest(token, page, PEOPLE[page].page);
    for (const [name, make] of [
      [MAIN, request],
      ['SDK courseTemplates page', sdk],
      ...PEOPLE_PAGES.map((page) => [peopleName(page), people(page)] as const),
    ] as const) {
      const [a, b] = await Promise.all([lectern, bare].map((s) => requestJson(s.port, make())));
      if (JSON.stringify(a!.json) !== JSON.stringify(b!.json) || a!.status !== 200) {
        throw new Error(`${name}: Lectern and the bare handler answer different data:\n${answer(a!)}\n${answer(b!)}`);
      }
    }
    // PostGraphile answers the same data in its own shape: mapped to Lectern's, it must be equal.
    const [l, p] = await Promise.all([requestJson(lectern.port, request()), requestJson(pgl.port, pglRequest())]);
    const mapped = p.status === 200 ? fromPostGraphile(p.json) : undefined;
    if (!mapped || !isDeepStrictEqual(mapped, l.json)) {
      const where = mapped ? firstDifference(l.json, mapped) : 'PostGraphile did not answer the page';
      throw new Error(
        `${MAIN}: PostGraphile answers different data from Lectern's (${where}):\nLectern: ${answer(l)}\nPostGraphile: ${answer(p)}`,
      );
    }
    pglStatements = await countStatements(pgl.port, pglRequest);

    const opts = { seconds, rounds, concurrency };
    process.stderr.write(`${MAIN}: ${rounds} rounds of ${round(seconds / rounds, 1)}s per server, concurrency ${concurrency}\n`);
    const first = await compareVariants(
      [
        { ...lectern, next: request },
        { ...bare, next: request },
        { ...pgl, next: pglRequest },
      ],
      opts,
    );
    process.stderr.write(
      `${SDK} (Lectern and bare; PostGraphile has no such query): ${rounds} rounds of ${round(seconds / rounds, 1)}s per server, concurrency ${concurrency}\n`,
    );
    const second = await compareVariants(
      [
        { ...lectern, name: 'lectern' as const, next: sdk },
        { ...bare, name: 'bare' as const, next: sdk },
      ],
      opts,
    );
    main = first.results;
    sdkResults = second.results;
    peakRss = Math.max(first.peakRssMb, second.peakRssMb);
    for (const page of PEOPLE_PAGES) {
      process.stderr.write(
        `${peopleName(page)} (Lectern and bare): ${rounds} rounds of ${round(seconds / rounds, 1)}s per server, concurrency ${concurrency}\n`,
      );
      const compared = await compareVariants(
        [
          { ...lectern, name: 'lectern' as const, next: people(page) },
          { ...bare, name: 'bare' as const, next: people(page) },
        ],
        opts,
      );
      peopleResults[page] = compared.results;
      peakRss = Math.max(peakRss, compared.peakRssMb);
    }
  } finally {
    for (const s of servers) {
      if (s.name === 'lectern') await stopProcess(s.proc);
      else s.proc.kill('SIGTERM');
    }
    await knex.destroy();
    if (db.embedded?.owned) await db.embedded.stop();
  }

  const people = peopleResults as Record<PeoplePage, Record<'lectern' | 'bare', Outcome>>;
  const errors = [...Object.values(main), ...Object.values(sdkResults), ...PEOPLE_PAGES.flatMap((p) => Object.values(people[p]))].reduce(
    (n, o) => n + o.errors,
    0,
  );
  const peopleVsBare = Object.fromEntries(PEOPLE_PAGES.map((p) => [p, people[p].lectern.rps / people[p].bare.rps])) as Record<
    PeoplePage,
    number
  >;
  const flat = (counts: Record<number, number>) => new Set(Object.values(counts)).size === 1;
  const peopleCounts = peopleStatements as Record<PeoplePage, Record<number, number>>;
  const vsBare = main.lectern.rps / main.bare.rps;
  const sdkVsBare = sdkResults.lectern.rps / sdkResults.bare.rps;
  const vsPgl = main.lectern.rps / main.postgraphile.rps;
  const p99Met = main.lectern.p99ms <= main.postgraphile.p99ms;
  const pglMet = vsPgl >= 1.5 && p99Met;
  const table = [
    '| query | Lectern req/s / p50 / p99 ms / CPU ms | bare (one SQL query) | PostGraphile 5 | Lectern / bare | Lectern / PostGraphile | p99 ms Lectern / PostGraphile |',
    '|---|---|---|---|---|---|---|',
    `| \`${MAIN}\` | ${cell(main.lectern)} | ${cell(main.bare)} | ${cell(main.postgraphile)} | **${vsBare.toFixed(2)}** | **${vsPgl.toFixed(2)}** | ${main.lectern.p99ms.toFixed(1)} / ${main.postgraphile.p99ms.toFixed(1)} |`,
    `| SDK \`courseTemplates(first: ${SDK_PAGE})\` | ${cell(sdkResults.lectern)} | ${cell(sdkResults.bare)} | - | **${sdkVsBare.toFixed(2)}** | - | - |`,
    ...PEOPLE_PAGES.map(
      (p) =>
        `| ${peopleName(p).replace(/^(\w+\(first: \d+\))/, '`$1`')} | ${cell(people[p].lectern)} | ${cell(people[p].bare)} | - | **${peopleVsBare[p].toFixed(2)}** | - | - |`,
    ),
  ].join('\n');
  const lines = [
    '',
    `GraphQL benchmark (concurrency ${concurrency}, ${seconds} s per server in ${rounds} interleaved rounds; 50 course templates, 2 translations and 2 custom fields each, bearer token)`,
    '',
    table,
    '',
    `PostGraphile 5 (${PGL_VERSION}, Amber preset, grafserv's Koa adaptor, production mode, introspecting only the tenant's schema) answers its own generated \`allCourseTemplates(first: 50)\` ` +
      `with translations and custom field values, after the same bearer check as the bare handler (PostGraphile has no OAuth of its own), in ${pglStatements} SQL statements per request (the token check, then PostGraphile's own, no transaction; Lectern: ${lecternStatements}, token and user cached, no transaction); ` +
      "its answer, mapped to Lectern's shape by the bench (ids, the translations' custom field values merged over the base ones, translatedFields), is checked equal to Lectern's. It has no SDK query (-).",
    '',
    `Target 0.5 of the bare handler: ${vsBare >= 0.5 ? 'met' : 'NOT met'} (${vsBare.toFixed(2)}; SDK page ${sdkVsBare.toFixed(2)}: ${sdkVsBare >= 0.5 ? 'met' : 'NOT met'}).`,
    `Goal Lectern at least 1.5x PostGraphile's throughput at an equal or lower p99: ${pglMet ? 'met' : 'NOT met'} (${vsPgl.toFixed(2)}x; p99 ${main.lectern.p99ms.toFixed(1)} ms against ${main.postgraphile.p99ms.toFixed(1)} ms: ${p99Met ? 'equal or lower' : 'higher'}).`,
    `Lectern web process peak RSS ${Math.round(peakRss)} MB, errors ${errors}.`,
    '',
    `SQL statements per SDK page (each one round trip: reads carry their settings, no transaction): ${statements[2]} for 2 templates, ${statements[SDK_PAGE]} for ${SDK_PAGE}: ${statements[2] === statements[SDK_PAGE] ? 'constant' : 'NOT constant: they grow with the page'}.`,
    ...PEOPLE_PAGES.map(
      (p) =>
        `SQL statements per ${p} page: ${Object.entries(peopleCounts[p])
          .map(([first, n]) => `${n} for ${first}`)
          .join(', ')}: ${flat(peopleCounts[p]) ? 'constant' : 'NOT constant: they grow with the page'} (the bare handler: 1).`,
    ),
    `People pages (seeded: 200 contacts, 9 in 10 learners on one of 20 accounts, 50 events with 3 sessions, 2 staff and 10 learners each, one learner in 7 cancelled): Lectern / bare ${PEOPLE_PAGES.map((p) => `${p} ${peopleVsBare[p].toFixed(2)}`).join(', ')}.`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  await writeResult(
    'graphql',
    {
      concurrency,
      seconds,
      rounds,
      results: { [MAIN]: main, [SDK]: sdkResults, ...Object.fromEntries(PEOPLE_PAGES.map((p) => [peopleName(p), people[p]])) },
      ratios: {
        lecternVsBare: round(vsBare),
        sdkLecternVsBare: round(sdkVsBare),
        lecternVsPostgraphile: round(vsPgl),
        contactsLecternVsBare: round(peopleVsBare.contacts),
        eventsLecternVsBare: round(peopleVsBare.events),
      },
      targets: { bare: vsBare >= 0.5, sdkBare: sdkVsBare >= 0.5, postgraphile: pglMet, postgraphileP99EqualOrLower: p99Met },
      statements: {
        lecternSdkPage: statements,
        lecternPerRequest: lecternStatements,
        postgraphilePerRequest: pglStatements,
        lecternContactsPage: peopleCounts.contacts,
        lecternEventsPage: peopleCounts.events,
        peoplePagesFlat: PEOPLE_PAGES.every((p) => flat(peopleCounts[p])),
      },
      postgraphileVersion: PGL_VERSION,
      peakRssMb: peakRss,
      errors,
    },
    { table, args: argv },
  );
}

const PGL_VERSION = (JSON.parse(readFileSync('bench/node_modules/postgraphile/package.json', 'utf8')) as { version: string }).version;

const answer = (x: { status: number; json: unknown }) => `${x.status} ${String(JSON.stringify(x.json)).slice(0, 3000)}`;

/** Waits until a helper answers GET /healthz (PostGraphile introspects and builds its schema first). */
async function untilHealthy(server: BenchServer<string>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (server.proc.exitCode !== null) throw new Error(`${what} exited (${server.proc.exitCode})`);
    const ok = await fetch(`http://127.0.0.1:${server.port}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not answer /healthz`);
}

/** SQL statements one PostGraphile request costs, from its pool's count: the least of a few tries after a warm-up. */
async function countStatements(port: number, request: () => Parameters<typeof requestJson>[1]): Promise<number> {
  const sent = async () =>
    ((await requestJson(port, { path: '/bench/statements', host: 'localhost' })).json as { statements: number }).statements;
  for (let i = 0; i < 3; i++) await requestJson(port, request());
  let least = Infinity;
  for (let i = 0; i < 3; i++) {
    const before = await sent();
    await requestJson(port, request());
    least = Math.min(least, (await sent()) - before);
  }
  return least;
}

type PglValue = { localeId: number | null; value: string; customFieldDefinitionByDefinitionId: { key: string; isBuiltin: boolean } };
type PglTranslation = { localeId: number; localeByLocaleId: { code: string } } & Record<(typeof TRANSLATED_FIELDS)[number], string | null>;
type PglTemplate = {
  rowId: number;
  title: string;
  courseText1: string | null;
  localeByLocaleId: { code: string } | null;
  courseTemplateTranslationsByCourseTemplateId: { nodes: PglTranslation[] };
  courseTemplateFieldValuesByCourseTemplateId: { nodes: PglValue[] };
};

/** The translation columns whose being set makes Lectern's `translatedFields`, in its order. */
const TRANSLATED_FIELDS = ['title', 'courseText1', 'courseText2', 'relatedCoursesText', 'lmsSummary', 'teaserDescription'] as const;

/**
 * PostGraphile's answer in Lectern's shape: ids as Lectern's (base64 of `CourseTemplate:<id>`),
 * custom field values without the built-in definitions' and, on a template, only the base
 * (locale-less) ones; on a translation, the base ones with the translation's locale's value
 * where there is one (Lectern merges them); `translatedFields` from the translated columns set.
 */
function fromPostGraphile(json: unknown): unknown {
  const page = (json as { data?: { allCourseTemplates?: { totalCount: number; nodes: PglTemplate[] } } } | undefined)?.data
    ?.allCourseTemplates;
  if (!page) return undefined;
  return {
    data: {
      courseTemplates: {
        edges: page.nodes.map((t) => {
          const values = t.courseTemplateFieldValuesByCourseTemplateId.nodes.filter(
            (v) => !v.customFieldDefinitionByDefinitionId.isBuiltin,
          );
          const base = values.filter((v) => v.localeId === null);
          const key = (v: PglValue) => v.customFieldDefinitionByDefinitionId.key;
          return {
            node: {
              id: Buffer.from(`CourseTemplate:${t.rowId}`).toString('base64'),
              title: t.title,
              courseText1: t.courseText1,
              locale: t.localeByLocaleId ? { code: t.localeByLocaleId.code } : null,
              translations: t.courseTemplateTranslationsByCourseTemplateId.nodes.map((tr) => ({
                locale: { code: tr.localeByLocaleId.code },
                title: tr.title,
                courseText1: tr.courseText1,
                translatedFields: TRANSLATED_FIELDS.filter((f) => tr[f] !== null),
                customFieldValues: base.map((v) => ({
                  definitionKey: key(v),
                  value: values.find((x) => x.localeId === tr.localeId && key(x) === key(v))?.value ?? v.value,
                })),
              })),
              customFieldValues: base.map((v) => ({ definitionKey: key(v), value: v.value })),
            },
          };
        }),
        pageInfo: { totalRecords: page.totalCount },
      },
    },
  };
}

/** Where two JSON values first differ, as a path and the two values (for the bench's error). */
function firstDifference(a: unknown, b: unknown, path = '$'): string {
  if (isDeepStrictEqual(a, b)) return '';
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return `at ${path}: Lectern ${JSON.stringify(a)}, PostGraphile ${JSON.stringify(b)}`;
}

type Credentials = { clientId: string; clientSecret: string };

/** An access token for the bench's service client from the server on `port` (production mode: the router says TLS). */
async function accessToken(port: number, creds: Credentials): Promise<string> {
  const res = await requestJson(port, {
    method: 'POST',
    path: '/oauth/token',
    host: 'localhost',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: creds.clientId,
      client_secret: creds.clientSecret,
    }).toString(),
  });
  const token = (res.json as { access_token?: string } | undefined)?.access_token;
  if (!token) throw new Error(`token: ${res.status} ${JSON.stringify(res.json)}`);
  return token;
}

const mainRequest = (token: string) => ({
  method: 'POST',
  path: '/graphql',
  host: 'localhost',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
  body: JSON.stringify({ query: QUERY }),
});

const sdkRequest = (token: string, first: number) => ({
  method: 'POST',
  path: '/graphql',
  host: 'localhost',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'x-bench-query': 'sdk' },
  body: JSON.stringify({ query: sdkQuery(first), variables: SDK_VARIABLES }),
});

const peopleRequest = (token: string, page: PeoplePage, first: number) => ({
  method: 'POST',
  path: '/graphql',
  host: 'localhost',
  headers: {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    'x-forwarded-proto': 'https',
    'x-bench-query': page,
    'x-bench-first': String(first),
  },
  body: JSON.stringify({ query: PEOPLE[page].query, variables: { first, ...PEOPLE[page].variables } }),
});

type Edges<Node> = { edges: { node: Node }[] };
type ContactNode = { account: unknown; learners: Edges<{ event: unknown }> };
type EventNode = { sessions: Edges<{ venue: unknown }>; staff: Edges<{ contact: unknown }>; learners: Edges<{ contact: unknown }> };

/**
 * What is wrong with a people page's answer for the statement count, if anything: not a page of
 * `first` records without errors, or (`full`: the small page) a record of it without something
 * in every nested list (a list or reference left empty there would leave its statement out of
 * the small page's count, and make the large one's look like growth).
 */
function peopleProblem(page: PeoplePage, answer: { status: number; json: unknown }, first: number, full: boolean): string | undefined {
  const json = answer.json as { data?: Record<string, Edges<unknown>>; errors?: unknown };
  const edges = json.data?.[page]?.edges;
  if (answer.status !== 200 || json.errors || edges?.length !== first) return `${answer.status}, not a page of ${first} without errors`;
  if (!full) return undefined;
  const filled =
    page === 'contacts'
      ? (edges as { node: ContactNode }[]).every(
          ({ node: c }) => c.account && c.learners.edges.length && c.learners.edges.every((l) => l.node.event),
        )
      : (edges as { node: EventNode }[]).every(
          ({ node: e }) =>
            e.sessions.edges.some((s) => s.node.venue) &&
            e.staff.edges.length &&
            e.staff.edges.every((s) => s.node.contact) &&
            e.learners.edges.length &&
            e.learners.edges.every((l) => l.node.contact),
        );
  return filled ? undefined : 'a record without something in each nested list';
}

/**
 * The people the people pages read, inserted as rows: 20 accounts; 200 contacts (180 learners,
 * 18 in 20 on an account; 10 instructors and 10 administrators, on none); 4 venues; 50 classroom
 * events (Europe/London), each with 3 sessions (the last of every other one without a venue),
 * an instructor (primary) and an administrator, and 10 learners (one in 7 cancelled), so each
 * learner contact has two or three places.
 */
async function withPeople(trx: Knex): Promise<void> {
  const accounts: { id: number }[] = await trx('companies')
    .insert(Array.from({ length: 20 }, (_, i) => ({ name: `Account ${String(i).padStart(2, '0')} Ltd`, email: `office${i}@account.test` })))
    .returning('id');
  const contacts: { id: number }[] = await trx('contacts')
    .insert(
      Array.from({ length: 200 }, (_, i) => ({
        first_name: i < 180 ? 'Learner' : i < 190 ? 'Instructor' : 'Administrator',
        last_name: `Person ${i}`,
        email: `person${i}@people.test`,
        company_id: i < 180 && i % 10 !== 9 ? accounts[i % 20]!.id : null,
        is_tutor: i >= 180 && i < 190,
        is_staff: i >= 190,
      })),
    )
    .returning('id');
  const venues: { id: number }[] = await trx('venues')
    .insert(Array.from({ length: 4 }, (_, i) => ({ name: `Venue ${i}`, description: `Room ${i}` })))
    .returning('id');
  const day = (i: number) => new Date(Date.UTC(2027, 2, 1 + i)).toISOString().slice(0, 10);
  const events: { id: number }[] = await trx('events')
    .insert(
      Array.from({ length: 50 }, (_, i) => ({
        code: `E${i}`,
        title: `Event ${i}`,
        classroom_start: `${day(i)} 09:00:00`,
        classroom_end: `${day(i + 2)} 17:00:00`,
        start_date: day(i),
        end_date: day(i + 2),
        time_zone_name: 'Europe/London',
        lifecycle_state: 'published',
        delegates_max: 20,
      })),
    )
    .returning('id');
  await trx('sessions').insert(
    events.flatMap((e, i) =>
      [0, 1, 2].map((k) => ({
        event_id: e.id,
        title: `Day ${k + 1}`,
        starts_at: `${day(i + k)}T09:00:00Z`,
        ends_at: `${day(i + k)}T17:00:00Z`,
        time_zone_name: 'Europe/London',
        lifecycle_state: k === 2 ? 'draft' : 'published',
        venue_id: k === 2 && i % 2 ? null : venues[(i + k) % 4]!.id,
      })),
    ),
  );
  await trx('event_staff').insert(
    events.flatMap((e, i) => [
      { event_id: e.id, contact_id: contacts[180 + (i % 10)]!.id, staff_type: 'instructor', is_primary: true },
      { event_id: e.id, contact_id: contacts[190 + (i % 10)]!.id, staff_type: 'administrator', is_primary: false },
    ]),
  );
  await trx('delegates').insert(
    events.flatMap((e, i) =>
      Array.from({ length: 10 }, (_, k) => ({
        event_id: e.id,
        contact_id: contacts[(i * 10 + k) % 180]!.id,
        cancelled_date: (i + k) % 7 === 0 ? '2027-01-15' : null,
      })),
    ),
  );
}

/** What the SDK page shows of each template: published, a code, an image in a folder, a category, a Normal price in GBP. */
async function withCatalogue(trx: Knex): Promise<void> {
  const templates: { id: number }[] = await trx('course_templates').orderBy('id').select('id');
  const [category] = await trx('categories').insert({ name: 'Leadership', introduction: 'Lead teams.', priority: 1 }).returning('id');
  const images: { id: number }[] = await trx('documents')
    .insert(
      templates.map((t) => ({
        name: `course-${t.id}.jpg`,
        description: 'A photo of the course',
        url: `https://images.bench-training.test/course-${t.id}.jpg`,
        folder: 'Catalogue images',
      })),
    )
    .returning('id');
  for (const [i, t] of templates.entries()) {
    await trx('course_templates')
      .where({ id: t.id })
      .update({ code: `C${t.id}`, lifecycle_state: 'published', category_id: category.id, image_document_id: images[i]!.id });
  }
  const [normal] = await trx('price_levels').where({ name: 'Normal' }).select('id');
  await trx('prices').insert(
    templates.map((t, i) => ({ course_template_id: t.id, price_level_id: normal.id, currency_code: 'GBP', amount: 100 + (i % 50) * 10 })),
  );
}
