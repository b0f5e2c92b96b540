import { createUser } from '../src/modules/users/users.service.js';
import { createServiceClient } from '../src/modules/oauth/clients.service.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';
import { benchTenant, cell, compareArgs, compareServers, type BenchServer, type Outcome } from './lib/compare.js';
import { freePort, startHelper, startProcess, stopProcess } from './lib/env.js';
import { seedTranslatedTemplates } from './lib/templates.js';
import { requestJson, round } from './lib/load.js';

/**
 * GraphQL throughput: `courseTemplates(first: 50)` with translations and custom field values,
 * against Lectern's real web process and a bare Koa handler answering the same JSON from one
 * hand-written SQL query (bench/lib/bare-graphql.ts), side by side in interleaved rounds.
 * Target: Lectern at least 0.5 of the bare handler's throughput.
 */
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
  });
  const creds = await createServiceClient(knex, tenant, { name: 'Bench', serviceUser: 'bench@bench.test' });

  const lecternPort = await freePort();
  const servers: BenchServer<'lectern' | 'bare'>[] = [
    { name: 'lectern', port: lecternPort, proc: await startProcess('dist/src/web.js', { DATABASE_URL: db.url, PORT: String(lecternPort), HOST: '127.0.0.1' }, lecternPort) },
    { name: 'bare', ...(await startHelper('bench/lib/bare-graphql.ts', { DATABASE_URL: db.url, BENCH_SCHEMA: tenant.schema })) },
  ];
  let results: Record<string, Record<'lectern' | 'bare', Outcome>>;
  let peakRss: number;
  try {
    await new Promise((r) => setTimeout(r, 2500));
    const token = await requestJson(lecternPort, {
      method: 'POST',
      path: '/oauth/token',
      host: 'localhost',
      // Production mode: the platform router terminates TLS and says so.
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret }).toString(),
    });
    const accessToken = (token.json as { access_token: string }).access_token;
    const request = () => ({ method: 'POST', path: '/graphql', host: 'localhost', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https' }, body: JSON.stringify({ query: QUERY }) });
    // Both answer the same data (the bare handler's JSON has no key order guarantee beyond the query's).
    const [a, b] = await Promise.all(servers.map((s) => requestJson(s.port, request())));
    if (JSON.stringify(a!.json) !== JSON.stringify(b!.json)) {
      const diff = (x: { status: number; json: unknown }) => `${x.status} ${String(JSON.stringify(x.json)).slice(0, 1500)}`;
      throw new Error(`Lectern and the bare handler answer different data:\n${diff(a!)}\n${diff(b!)}`);
    }
    ({ results, peakRssMb: peakRss } = await compareServers(servers, { 'courseTemplates(first: 50)': request }, { seconds, rounds, concurrency }));
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
  ];
  process.stdout.write(lines.join('\n') + '\n');
  process.stdout.write(JSON.stringify({ bench: 'graphql', results, peakRssMb: peakRss }) + '\n');
}
