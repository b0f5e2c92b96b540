import type { Knex } from '../src/platform/db/knex.js';
import { createUser } from '../src/modules/users/users.service.js';
import { createServiceClient } from '../src/modules/oauth/clients.service.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';
import { benchTenant, cell, compareArgs, compareServers, type BenchServer, type Outcome } from './lib/compare.js';
import { freePort, startHelper, startProcess, stopProcess } from './lib/env.js';
import { seedTranslatedTemplates } from './lib/templates.js';
import { requestJson, round } from './lib/load.js';
import { StatementCounter } from './lib/statements.js';

/**
 * GraphQL throughput: `courseTemplates(first: 50)` with translations and custom field values,
 * against Lectern's real web process and a bare Koa handler answering the same JSON from one
 * hand-written SQL query (bench/lib/bare-graphql.ts), side by side in interleaved rounds.
 * Target: Lectern at least 0.5 of the bare handler's throughput.
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

const QUERY = `{ courseTemplates(first: 50) { edges { node { id title courseText1 locale { code }
  translations { locale { code } title courseText1 translatedFields customFieldValues { definitionKey value } }
  customFieldValues { definitionKey value } } } pageInfo { totalRecords } } }`;

export async function main(argv: string[]): Promise<void> {
  const { seconds, rounds, concurrency } = compareArgs(argv);
  const { db, knex, tenant } = await benchTenant('graphql');
  // 200 templates in English with French and German translations, two custom fields each.
  await withTenant(knex, tenant, async (trx) => {
    await createUser(trx, { email: 'bench@bench.test', password: 'bench-password-1', role: 'admin' });
    await seedTranslatedTemplates(trx, { count: 200, german: true });
    await withCatalogue(trx);
  });
  const creds = await createServiceClient(knex, tenant, { name: 'Bench', serviceUser: 'bench@bench.test' });

  // Statements per SDK page, counted on the same code in this process: the same for 2 as for 25.
  const statements: Record<number, number> = {};
  const counter = await StatementCounter.start(db.url);
  try {
    const token = await accessToken(counter.port, creds);
    for (const first of [2, SDK_PAGE]) {
      const { statements: n, answer } = await counter.count(() => sdkRequest(token, first));
      const edges = (answer.json as { data?: { courseTemplates?: { edges: unknown[] } } }).data?.courseTemplates?.edges;
      if (answer.status !== 200 || edges?.length !== first) throw new Error(`SDK page (first: ${first}): ${answer.status} ${JSON.stringify(answer.json).slice(0, 1500)}`);
      statements[first] = n;
    }
  } finally {
    await counter.close();
  }

  const lecternPort = await freePort();
  const servers: BenchServer<'lectern' | 'bare'>[] = [
    { name: 'lectern', port: lecternPort, proc: await startProcess('dist/src/web.js', { DATABASE_URL: db.url, PORT: String(lecternPort), HOST: '127.0.0.1' }, lecternPort) },
    { name: 'bare', ...(await startHelper('bench/lib/bare-graphql.ts', { DATABASE_URL: db.url, BENCH_SCHEMA: tenant.schema })) },
  ];
  let results: Record<string, Record<'lectern' | 'bare', Outcome>>;
  let peakRss: number;
  try {
    await new Promise((r) => setTimeout(r, 2500));
    const token = await accessToken(lecternPort, creds);
    const request = () => ({ method: 'POST', path: '/graphql', host: 'localhost', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https' }, body: JSON.stringify({ query: QUERY }) });
    const sdk = () => sdkRequest(token, SDK_PAGE);
    // Both answer the same data (the bare handler's JSON has no key order guarantee beyond the query's).
    for (const [name, make] of [['courseTemplates(first: 50)', request], ['SDK courseTemplates page', sdk]] as const) {
      const [a, b] = await Promise.all(servers.map((s) => requestJson(s.port, make())));
      if (JSON.stringify(a!.json) !== JSON.stringify(b!.json) || a!.status !== 200) {
        const diff = (x: { status: number; json: unknown }) => `${x.status} ${String(JSON.stringify(x.json)).slice(0, 3000)}`;
        throw new Error(`${name}: Lectern and the bare handler answer different data:\n${diff(a!)}\n${diff(b!)}`);
      }
    }
    ({ results, peakRssMb: peakRss } = await compareServers(servers, { 'courseTemplates(first: 50)': request, [`SDK courseTemplates(first: ${SDK_PAGE})`]: sdk }, { seconds, rounds, concurrency }));
  } finally {
    await stopProcess(servers[0]!.proc);
    servers[1]!.proc.kill('SIGTERM');
    await knex.destroy();
    if (db.embedded?.owned) await db.embedded.stop();
  }
  const errors = Object.values(results).flatMap((r) => Object.values(r)).reduce((n, o) => n + o.errors, 0);
  const lines = [
    '',
    `GraphQL benchmark (concurrency ${concurrency}, ${seconds}s per server in ${rounds} interleaved rounds; 50 course templates, 2 translations and 2 custom fields each, bearer token)`,
    'Columns per server: req/s | p50 ms | p99 ms | server CPU ms per request',
    '',
    '| query | Lectern | | | | bare (one SQL query) | | | | Lectern / bare |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...Object.entries(results).map(([n, r]) => `| ${n} | ${cell(r.lectern)} | ${cell(r.bare)} | ${round(r.lectern.rps / r.bare.rps)} |`),
    '',
    `Target: at least 0.5 of the bare handler. Lectern web process peak RSS: ${peakRss} MB. Errors: ${errors}`,
    '',
    `SQL statements per SDK page (transaction and search_path included): ${statements[2]} for 2 templates, ${statements[SDK_PAGE]} for ${SDK_PAGE}: ${statements[2] === statements[SDK_PAGE] ? 'constant' : 'NOT constant: they grow with the page'}.`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  process.stdout.write(JSON.stringify({ bench: 'graphql', results, statements, peakRssMb: peakRss }) + '\n');
}

type Credentials = { clientId: string; clientSecret: string };

/** An access token for the bench's service client from the server on `port` (production mode: the router says TLS). */
async function accessToken(port: number, creds: Credentials): Promise<string> {
  const res = await requestJson(port, {
    method: 'POST',
    path: '/oauth/token',
    host: 'localhost',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret }).toString(),
  });
  const token = (res.json as { access_token?: string } | undefined)?.access_token;
  if (!token) throw new Error(`token: ${res.status} ${JSON.stringify(res.json)}`);
  return token;
}

const sdkRequest = (token: string, first: number) => ({
  method: 'POST',
  path: '/graphql',
  host: 'localhost',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'x-bench-query': 'sdk' },
  body: JSON.stringify({ query: sdkQuery(first), variables: SDK_VARIABLES }),
});

/** What the SDK page shows of each template: published, a code, an image in a folder, a category, a Normal price in GBP. */
async function withCatalogue(trx: Knex): Promise<void> {
  const templates: { id: number }[] = await trx('course_templates').orderBy('id').select('id');
  const [category] = await trx('categories').insert({ name: 'Leadership', introduction: 'Lead teams.', priority: 1 }).returning('id');
  const images: { id: number }[] = await trx('documents')
    .insert(templates.map((t) => ({ name: `course-${t.id}.jpg`, description: 'A photo of the course', url: `https://images.bench-training.test/course-${t.id}.jpg`, folder: 'Catalogue images' })))
    .returning('id');
  for (const [i, t] of templates.entries()) {
    await trx('course_templates').where({ id: t.id }).update({ code: `C${t.id}`, lifecycle_state: 'published', category_id: category.id, image_document_id: images[i]!.id });
  }
  const [normal] = await trx('price_levels').where({ name: 'Normal' }).select('id');
  await trx('prices').insert(templates.map((t, i) => ({ course_template_id: t.id, price_level_id: normal.id, currency_code: 'GBP', amount: 100 + (i % 50) * 10 })));
}
