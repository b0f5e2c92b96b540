import { readFile } from 'node:fs/promises';
import pg from 'pg';

/**
 * What replacing a pooled connection costs, and what each schema a connection meets costs it in
 * memory, on an existing tenancy bench database (`npm run bench -- tenancy` leaves
 * lectern_bench_tenancy). One connection at a time, so the figures are per backend:
 *   npx tsx bench/lib/recycle-cost.ts postgres://postgres@127.0.0.1:5432/lectern_bench_tenancy 2000 contacts,events
 * - connect: a new connection's setup (TCP, startup, authentication, first statement), ms;
 * - cold / warm: a tenant transaction (search_path, two reads in the tenant's schema) the first
 *   time this backend meets the schema, and the second time, ms;
 * - RssAnon of the backend after meeting k schemas, MB.
 */
const url = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/lectern_bench_tenancy';
const limit = Number(process.argv[3] ?? 2000);
/** The tables each tenant transaction reads (comma-separated), `contacts,events` unless given. */
const tables = (process.argv[4] ?? 'contacts,events').split(',').filter((t) => /^[a-z_]+$/.test(t));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const ms = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;

async function rssAnonMb(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  const status = await readFile(`/proc/${rows[0]!.pid}/status`, 'utf8');
  return Number(/RssAnon:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

async function tenantRequest(client: pg.Client, schema: string): Promise<void> {
  await client.query(`BEGIN; select set_config('search_path', '${schema}', true), set_config('jit', 'off', true)`);
  for (const table of tables) await client.query(`select * from ${table} order by id limit 20`);
  await client.query('COMMIT');
}

const admin = new pg.Client({ connectionString: url });
await admin.connect();
const schemas = (await admin.query<{ s: string }>('select schema_name as s from platform.tenants order by id limit $1', [limit])).rows.map(
  (r) => r.s,
);
await admin.end();

const connects: number[] = [];
for (let i = 0; i < 30; i++) {
  const t = process.hrtime.bigint();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('select 1');
  connects.push(ms(t));
  await c.end();
}

const client = new pg.Client({ connectionString: url });
await client.connect();
await client.query('select 1');
const memory: { schemas: number; rssAnonMb: number }[] = [{ schemas: 0, rssAnonMb: await rssAnonMb(client) }];
const cold: number[] = [];
const warm: number[] = [];
const marks = new Set([1, 10, 100, 250, 500, 1000, 2000, 5000, 10000]);
for (let i = 0; i < schemas.length; i++) {
  let t = process.hrtime.bigint();
  await tenantRequest(client, schemas[i]!);
  cold.push(ms(t));
  t = process.hrtime.bigint();
  await tenantRequest(client, schemas[i]!);
  warm.push(ms(t));
  if (marks.has(i + 1) || i + 1 === schemas.length)
    memory.push({ schemas: i + 1, rssAnonMb: Math.round((await rssAnonMb(client)) * 10) / 10 });
}
await client.end();
const perSchemaKb = Math.round(((memory.at(-1)!.rssAnonMb - memory[1]!.rssAnonMb) * 1024) / Math.max(1, schemas.length - 1));
process.stdout.write(
  JSON.stringify(
    {
      schemas: schemas.length,
      tables,
      connectMs: { median: Math.round(median(connects) * 100) / 100 },
      tenantTransactionMs: { coldMedian: Math.round(median(cold) * 100) / 100, warmMedian: Math.round(median(warm) * 100) / 100 },
      memory,
      perSchemaKb,
    },
    null,
    2,
  ) + '\n',
);
