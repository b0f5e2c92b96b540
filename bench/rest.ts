import http from 'node:http';
import { createUser } from '../src/modules/users/users.service.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';
import { freePort, startHelper, startProcess, stopProcess } from './lib/env.js';
import { benchTenant, cell, compareArgs, compareServers, compareVariants, type BenchServer, type Outcome } from './lib/compare.js';
import { round } from './lib/load.js';
import { writeResult } from './lib/results.js';

/**
 * REST throughput: GET list (100 contacts), GET :id and POST with Basic auth, against four
 * servers on the same data, side by side in one run:
 *   - Lectern: a real web process (compiled, production mode);
 *   - knex floor: bare Koa + knex (bench/lib/knex-floor.ts) in the round trips of a request with
 *     a transaction and a user lookup, none of Lectern's own machinery;
 *   - bare: bare Koa + pg (bench/lib/bare-rest.ts) in the same round trips, no query builder either;
 *   - one statement: bare Koa + pg answering with one statement and nothing else (no auth, no
 *     transaction): the physical limit.
 * Target: Lectern at least 0.6 of the one-statement server's throughput; the web process's peak
 * RSS (aim: 250 MB). This machine's speed drifts over tens of seconds, so each scenario runs in
 * rounds that take the servers in turn (rotating who goes first), and sums the rounds.
 */
type Server = BenchServer<'lectern' | 'knex' | 'bare' | 'one'>;

export async function main(argv: string[]): Promise<void> {
  const { seconds, rounds, concurrency } = compareArgs(argv);
  const { db, knex, tenant } = await benchTenant('rest');
  await withTenant(knex, tenant, async (trx) => {
    await createUser(trx, { email: 'bench@bench.test', password: 'bench-password-1', role: 'admin' });
    await trx('contacts').insert(
      Array.from({ length: 1000 }, (_, i) => ({ first_name: `First${i}`, last_name: `Last${i}`, email: `p${i}@bench.test` })),
    );
    // 50 event categories with 3 sub-categories each (ids 1-50 the parents).
    await trx('categories').insert(
      Array.from({ length: 50 }, (_, i) => ({ name: `Topic ${i}`, priority: i, introduction: `About topic ${i}` })),
    );
    await trx('categories').insert(
      Array.from({ length: 150 }, (_, i) => ({ name: `Sub ${i}`, priority: 3 - (i % 3), parent_id: (i % 50) + 1, introduction: null })),
    );
  });

  const auth = `Basic ${Buffer.from('bench@bench.test:bench-password-1').toString('base64')}`;
  const host = 'bench.localhost';
  const scenarios = {
    'GET list': () => ({ path: '/api/v2/crm/contacts', host, headers: { authorization: auth } }),
    'GET :id': (i: number) => ({ path: `/api/v2/crm/contacts/${(i % 1000) + 1}`, host, headers: { authorization: auth } }),
    POST: (i: number) => ({
      method: 'POST',
      path: '/api/v2/crm/contacts',
      host,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: 'New', last_name: `Person${i}`, email: `new${i}@bench.test` }),
    }),
  };

  const category = (i: number) => ({ path: `/api/v2/event/categories/${(i % 50) + 1}`, host, headers: { authorization: auth } });

  const helper = async (name: Exclude<Server['name'], 'lectern'>, script: string, env: Record<string, string> = {}): Promise<Server> => ({
    name,
    ...(await startHelper(script, { DATABASE_URL: db.url, BENCH_SCHEMA: tenant.schema, ...env })),
  });
  const lecternPort = await freePort();
  const servers: Server[] = [
    {
      name: 'lectern',
      port: lecternPort,
      proc: await startProcess('dist/src/web.js', { DATABASE_URL: db.url, PORT: String(lecternPort), HOST: '127.0.0.1' }, lecternPort),
    },
    await helper('knex', 'bench/lib/knex-floor.ts'),
    await helper('bare', 'bench/lib/bare-rest.ts'),
    await helper('one', 'bench/lib/bare-rest.ts', { BENCH_MODE: 'one' }),
  ];
  await new Promise((r) => setTimeout(r, 2500));

  let results: Record<string, Record<Server['name'], Outcome>>;
  let categoryResults: Record<'lectern' | 'one', Outcome>;
  let peakRss: number;
  try {
    ({ results, peakRssMb: peakRss } = await compareServers(servers, scenarios, { seconds, rounds, concurrency }));
    // An event category embeds its sub-categories: Lectern against the one statement that answers the same JSON.
    const [lectern, one] = [servers[0]!, servers[3]!];
    for (const id of [1, 17, 50]) {
      const answers = await Promise.all(
        [lectern, one].map((s) => getText(s.port, `/api/v2/event/categories/${id}`, { host, authorization: auth })),
      );
      if (answers[0] !== answers[1] || !answers[0]!.includes('"sub_categories":[{'))
        throw new Error(`category ${id}: Lectern answered ${answers[0]}, the one statement ${answers[1]}`);
    }
    process.stderr.write(`GET category :id: ${rounds} rounds of ${round(seconds / rounds, 1)}s per server, concurrency ${concurrency}\n`);
    const compared = await compareVariants(
      [
        { ...lectern, name: 'lectern' as const, next: category },
        { ...one, name: 'one' as const, next: category },
      ],
      { seconds, rounds, concurrency },
    );
    categoryResults = compared.results;
    peakRss = Math.max(peakRss, compared.peakRssMb);
  } finally {
    await stopProcess(servers[0]!.proc);
    for (const s of servers.slice(1)) s.proc.kill('SIGTERM');
    await knex.destroy();
    if (db.embedded?.owned) await db.embedded.stop();
  }

  const errors = [...Object.values(results), categoryResults].flatMap((r) => Object.values(r)).reduce((n, o) => n + o.errors, 0);
  const table = [
    '| request | Lectern | knex floor | bare pg | one statement | Lectern / bare | Lectern / one statement |',
    '|---|---|---|---|---|---|---|',
    ...Object.entries(results).map(
      ([n, r]) =>
        `| ${n} | ${cell(r.lectern)} | ${cell(r.knex)} | ${cell(r.bare)} | ${cell(r.one)} | ${round(r.lectern.rps / r.bare.rps)} | **${round(r.lectern.rps / r.one.rps)}** |`,
    ),
    `| GET category :id (with its 3 sub-categories) | ${cell(categoryResults.lectern)} | - | - | ${cell(categoryResults.one)} | - | **${round(categoryResults.lectern.rps / categoryResults.one.rps)}** |`,
  ].join('\n');
  const lines = [
    '',
    `REST benchmark (concurrency ${concurrency}, ${seconds}s per server per request type in ${rounds} interleaved rounds, 1,000 contacts, Basic auth)`,
    'Per server: req/s / p50 ms / p99 ms / server CPU ms per request. bare pg: the round trips of a transaction with a user lookup; one statement: one statement, no auth, no transaction (the physical limit).',
    '',
    table,
    '',
    `Lectern web process peak RSS under load: ${peakRss} MB (aim: under 250 MB). Errors: ${errors}`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  // The category row has two servers: Lectern and the one statement.
  (results as Record<string, Partial<Record<Server['name'], Outcome>>>)['GET category :id'] = categoryResults;
  await writeResult('rest', { concurrency, seconds, rounds, results, peakRssMb: peakRss, errors }, { table, args: argv });
}

/** A GET's body as text (fetch cannot send a Host header of its own). */
function getText(port: number, path: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
}
