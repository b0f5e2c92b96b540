import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createKnex } from '../src/db/knex.js';
import { createUser } from '../src/modules/users/users.service.js';
import { migratePlatform } from '../src/tenancy/migrate.js';
import { createTenant } from '../src/tenancy/provision.js';
import { withTenant } from '../src/tenancy/with-tenant.js';
import { benchDatabase, freePort, startProcess, stopProcess } from './lib/env.js';
import { round, rssMb, runLoad, type LoadResult } from './lib/load.js';

/**
 * REST throughput: GET list (100 contacts), GET :id and POST, against a real Lectern web process
 * and, side by side in the same run, a bare Koa + pg handler doing the same SQL on the same data.
 * Target: Lectern at least 0.6 of the bare handler's throughput; the web process's peak RSS.
 */
export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { seconds: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '16' } } });
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const db = await benchDatabase('rest');
  const knex = createKnex(db.url, { poolMax: 4, applicationName: 'bench-rest' });
  await migratePlatform(knex);
  const tenant = await createTenant(knex, { slug: 'bench', name: 'Bench' });
  await withTenant(knex, tenant, async (trx) => {
    await createUser(trx, { email: 'bench@bench.test', password: 'bench-password-1', role: 'admin' });
    await trx('contacts').insert(Array.from({ length: 1000 }, (_, i) => ({ first_name: `First${i}`, last_name: `Last${i}`, email: `p${i}@bench.test` })));
  });

  const auth = `Basic ${Buffer.from('bench@bench.test:bench-password-1').toString('base64')}`;
  const scenarios = (port: number) => ({
    'GET list': { next: () => ({ path: '/api/v2/crm/contacts', host: `bench.localhost:${port}`, headers: { authorization: auth } }) },
    'GET :id': { next: (i: number) => ({ path: `/api/v2/crm/contacts/${(i % 1000) + 1}`, host: `bench.localhost:${port}`, headers: { authorization: auth } }) },
    POST: {
      next: (i: number) => ({
        method: 'POST',
        path: '/api/v2/crm/contacts',
        host: `bench.localhost:${port}`,
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ first_name: 'New', last_name: `Person${i}`, email: `new${i}@bench.test` }),
      }),
    },
  });

  const results: Record<string, { lectern: LoadResult; bare: LoadResult }> = {};
  let peakRss = 0;
  const lecternPort = await freePort();
  const barePort = await freePort();
  const web = await startProcess('dist/src/web.js', { DATABASE_URL: db.url, PORT: String(lecternPort), HOST: '127.0.0.1' }, lecternPort);
  const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/bare-rest.ts'], {
    env: { ...process.env, DATABASE_URL: db.url, PORT: String(barePort), BENCH_SCHEMA: tenant.schema },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await new Promise((r) => setTimeout(r, 2500));
  try {
    for (const [name, s] of Object.entries(scenarios(0))) {
      process.stderr.write(`${name}: ${seconds}s each, concurrency ${concurrency}\n`);
      const lecternNext = scenarios(lecternPort)[name as keyof ReturnType<typeof scenarios>].next;
      const bareNext = scenarios(barePort)[name as keyof ReturnType<typeof scenarios>].next;
      void s;
      await runLoad({ port: lecternPort, concurrency, seconds: 2, next: lecternNext });
      const sampler = setInterval(() => void rssMb(web.pid!).then((m) => (peakRss = Math.max(peakRss, m))), 250);
      const lectern = await runLoad({ port: lecternPort, concurrency, seconds, next: lecternNext });
      clearInterval(sampler);
      await runLoad({ port: barePort, concurrency, seconds: 2, next: bareNext });
      const bareResult = await runLoad({ port: barePort, concurrency, seconds, next: bareNext });
      results[name] = { lectern, bare: bareResult };
    }
  } finally {
    await stopProcess(web);
    bare.kill('SIGTERM');
    await knex.destroy();
    if (db.embedded?.owned) await db.embedded.stop();
  }
  const lines = [
    '',
    `REST benchmark (concurrency ${concurrency}, ${seconds}s per run, 1,000 contacts, Basic auth)`,
    '',
    '| request | Lectern req/s | p50 ms | p99 ms | bare req/s | p50 ms | p99 ms | ratio |',
    '|---|---|---|---|---|---|---|---|',
    ...Object.entries(results).map(
      ([n, r]) => `| ${n} | ${r.lectern.rps} | ${r.lectern.p50ms} | ${r.lectern.p99ms} | ${r.bare.rps} | ${r.bare.p50ms} | ${r.bare.p99ms} | ${round(r.lectern.rps / r.bare.rps)} |`,
    ),
    '',
    `Lectern web process peak RSS under load: ${peakRss} MB (aim: under 250 MB). Errors: ${Object.values(results).map((r) => r.lectern.errors + r.bare.errors).reduce((a, b) => a + b, 0)}`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  process.stdout.write(JSON.stringify({ bench: 'rest', results, peakRssMb: peakRss }) + '\n');
}
