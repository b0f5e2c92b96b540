import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { SUMMARY_ROWS, summarise, summaryTable } from '../../bench/lib/summary.js';

/** `npm run bench -- all`'s summary reads each row from the figures its benchmark wrote. */

async function withResults(results: Record<string, Record<string, unknown>>, fn: (files: Map<string, string>) => Promise<void>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lectern-summary-'));
  try {
    const files = new Map<string, string>();
    for (const [bench, figures] of Object.entries(results)) {
      const file = path.join(dir, `${bench}.json`);
      await writeFile(file, JSON.stringify({ bench, figures }));
      files.set(bench, file);
    }
    await fn(files);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('each row is read from its benchmark, judged against its floor and goal in the right direction', async (t) => {
  await withResults(
    {
      rest: {
        results: {
          'GET :id': { lectern: { rps: 700 }, one: { rps: 1000 } },
          'GET list': { lectern: { rps: 500 }, one: { rps: 1000 } },
          POST: { lectern: { rps: 850 }, one: { rps: 1000 } },
        },
      },
      tenancy: { tenants: 10000, p50Ratio: 1.2, postgresMemoryPerWebConnection: { many: { meanMb: 9.5 } } },
      fairness: { idle: { stored: { p99ms: 20 } }, flood: { stored: { p99ms: 35 } } },
    },
    async (files) => {
      const lines = await summarise(files);
      const byRow = (prefix: string) => lines.find((l) => l.row.startsWith(prefix))!;
      t.is(lines.length, SUMMARY_ROWS.length);
      t.like(byRow('REST GET :id /'), { value: 0.7, standing: 'floor' });
      t.like(byRow('REST GET list'), { value: 0.5, standing: 'below' });
      t.like(byRow('REST POST'), { value: 0.85, standing: 'goal' });
      // Lower is better: a p50 ratio above the floor is below it; memory under the goal meets it.
      t.like(byRow('p50 at many'), { value: 1.2, standing: 'below' });
      t.like(byRow('PostgreSQL memory'), { value: 9.5, standing: 'goal' });
      t.like(byRow("Quiet tenant's"), { value: 1.75, standing: 'floor' });
      // A row whose benchmark wrote nothing says so.
      t.like(byRow('REST GET :id of an event category'), { value: undefined, standing: 'not measured' });
      t.like(byRow('GraphQL SDK page'), { value: undefined, standing: 'not measured' });
      const table = summaryTable(lines);
      t.regex(table, /\| REST POST \/ one-statement bare \| \*\*0\.85\*\* \| 0\.6 \| 0\.8 \| goal met \|/);
      t.regex(
        table,
        /\| PostgreSQL memory per web connection at many warm tenants \| \*\*9\.5 MB\*\* \(10000 tenants\) \| 30 MB \| 10 MB \| goal met \|/,
      );
      t.regex(table, /GraphQL SDK page \(25\) \/ one hand-written statement \| not measured \(graphql wrote no figure\)/);
    },
  );
});
