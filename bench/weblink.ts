import { toGlobalId } from '../src/kit/graphql/ids.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';
import { benchTenant, cell, compareArgs, compareVariants, type Outcome } from './lib/compare.js';
import { freePort, startProcess, stopProcess } from './lib/env.js';
import { seedTranslatedTemplates } from './lib/templates.js';
import { requestJson, round } from './lib/load.js';

/**
 * WebLink catalogue throughput with and without `weblink-content-locale`: a page of 50
 * published course templates with their texts, category and custom field values, asked of one
 * Lectern web process in English (no header) and in French (the header: translations overlay
 * the authored fields), side by side in interleaved rounds. Target: the header costs at most
 * 20 % of the throughput.
 */
const QUERY = `{ courseTemplates(first: 50) { edges { node { id code title courseText1 courseText2 lmsSummary locale { code }
  category { name } customFieldValues { definitionKey label value } } } pageInfo { totalRecords } } }`;

export async function main(argv: string[]): Promise<void> {
  const { seconds, rounds, concurrency } = compareArgs(argv);
  const { db, knex, tenant } = await benchTenant('weblink');
  // 200 published templates in English with French translations (title and first text) and two custom fields, one translated.
  await withTenant(knex, tenant, async (trx) => {
    const [category] = await trx('categories').insert({ name: 'Health & Safety', priority: 1 }).returning('id');
    await seedTranslatedTemplates(trx, { count: 200, row: (i) => ({ code: `C${i}`, course_text2: '<p>For everyone.</p>', lifecycle_state: 'published', category_id: category.id }) });
  });

  const port = await freePort();
  // The per-address budget is for the public; the bench is one address asking as fast as it can.
  const proc = await startProcess('dist/src/web.js', { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', WEBLINK_RATE_LIMIT: '1000000' }, port);
  const request = (headers: Record<string, string>) => () => ({ method: 'POST', path: '/weblink/graphql', host: `${tenant.slug}.localhost`, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: QUERY }) });
  const english = request({});
  const french = request({ 'weblink-content-locale': toGlobalId('Locale', 3) });
  let results: Record<'no header' | 'header', Outcome>;
  let peakRss: number;
  try {
    const [en, fr] = [await requestJson(port, english()), await requestJson(port, french())];
    const first = (r: { json: unknown }) => (r.json as { data?: { courseTemplates: { edges: { node: { title: string } }[] } } }).data?.courseTemplates.edges[0]?.node.title;
    if (en.status !== 200 || fr.status !== 200 || first(en) !== 'Course 0' || !first(fr)?.startsWith('Cours ')) {
      throw new Error(`unexpected answers: ${en.status} ${JSON.stringify(en.json).slice(0, 300)} / ${fr.status} ${JSON.stringify(fr.json).slice(0, 300)}`);
    }
    ({ results, peakRssMb: peakRss } = await compareVariants<'no header' | 'header'>(
      [
        { name: 'no header', port, proc, next: english },
        { name: 'header', port, proc, next: french },
      ],
      { seconds, rounds, concurrency },
    ));
  } finally {
    await stopProcess(proc);
    await knex.destroy();
    if (db.embedded?.owned) await db.embedded.stop();
  }
  const errors = results['no header'].errors + results.header.errors;
  const lines = [
    '',
    `WebLink benchmark (concurrency ${concurrency}, ${seconds}s per side in ${rounds} interleaved rounds; courseTemplates(first: 50) of 200 published templates, texts, category, 2 custom fields)`,
    'Columns: req/s | p50 ms | p99 ms | server CPU ms per request',
    '',
    '| query | no header (authored, English) | | | | weblink-content-locale: French | | | | header / no header |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| courseTemplates(first: 50) | ${cell(results['no header'])} | ${cell(results.header)} | ${round(results.header.rps / results['no header'].rps)} |`,
    '',
    `Target: the header costs at most 20 % (ratio at least 0.8). Web process peak RSS: ${peakRss} MB. Errors: ${errors}`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  process.stdout.write(JSON.stringify({ bench: 'weblink', results, peakRssMb: peakRss }) + '\n');
}
