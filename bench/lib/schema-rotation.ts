import { createKnex } from '../../src/platform/db/knex.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';

/**
 * PostgreSQL's own cost of serving many tenants' schemas from warm connections, without a web
 * process: statements per second reading one tenant's `settings` (as the tenancy bench's `GET /`
 * does, in Lectern's autocommit reads) on a pool of 4 connections never replaced, 4 clients,
 * rotating over 1 schema and over all N in turn, on an existing tenancy bench database
 * (`npm run bench -- tenancy` leaves lectern_bench_tenancy):
 *   npx tsx bench/lib/schema-rotation.ts postgres://postgres@127.0.0.1:5432/lectern_bench_tenancy 2000
 * A warm-up over all N first (every connection meets every schema), then 6 rounds of 4 s each
 * way, rotating which goes first. Run it once per server setting to compare (docs/scale.md,
 * `max_files_per_process`).
 */
const url = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/lectern_bench_tenancy';
const limit = Number(process.argv[3] ?? 2000);
const knex = createKnex(url, { poolMax: 4, applicationName: 'bench-schema-rotation', maxSchemasPerConnection: 0 });
const schemas: string[] = await knex('platform.tenants').orderBy('id').limit(limit).pluck('schema_name');

/** Statements answered in `seconds` by 4 clients, each walking the first `n` schemas from a random one. */
async function run(n: number, seconds: number): Promise<number> {
  let count = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      let i = Math.floor(Math.random() * n);
      while (Date.now() < end) {
        await withTenant(knex, { schema: schemas[i++ % n]! }, (db) => db.raw('select name from settings limit 1'), {
          readOnly: true,
          autocommit: true,
        });
        count++;
      }
    }),
  );
  return count;
}

try {
  await run(schemas.length, 40);
  const totals = { one: 0, all: 0 };
  for (let r = 0; r < 6; r++) {
    for (const side of r % 2 ? (['all', 'one'] as const) : (['one', 'all'] as const)) {
      totals[side] += await run(side === 'one' ? 1 : schemas.length, 4);
    }
  }
  const perSecond = (n: number) => Math.round(n / 24);
  const { rows } = await knex.raw<{ rows: { v: string }[] }>('select current_setting(?) as v', ['max_files_per_process']);
  process.stdout.write(
    `max_files_per_process ${rows[0]!.v}: 1 schema ${perSecond(totals.one)} statements/s, ${schemas.length} schemas ${perSecond(totals.all)}; ratio ${(totals.one / totals.all).toFixed(2)}\n`,
  );
} finally {
  await knex.destroy();
}
