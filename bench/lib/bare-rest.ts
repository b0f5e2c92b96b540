import http from 'node:http';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import pg from 'pg';

/**
 * The baselines of `npm run bench -- rest`, bare Koa + pg servers with no framework of ours (no
 * auth cache, validation, serialisation or logging):
 * - default: the same SQL as Lectern for the same requests in the round trips Lectern used to
 *   make (`BEGIN` and the tenant's search_path in one, the user lookup, the query, `COMMIT`);
 * - `BENCH_MODE=one`: the physical limit, one statement per request and nothing else (no auth, no
 *   transaction, the table named with its schema): `select ... where id = $1`, the page of 100,
 *   a single `insert ... returning *`.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const schema = process.env.BENCH_SCHEMA!;
const one = process.env.BENCH_MODE === 'one';
const app = new Koa();
app.use(bodyParser());

async function inTx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    // The bench's own schema name (tenant_bench), as Lectern sends its validated one.
    await c.query(`begin; select set_config('search_path', '${schema}', true)`);
    const auth = await c.query('select id from users where lower(email) = $1', ['bench@bench.test']);
    if (!auth.rowCount) throw new Error('no user');
    const r = await fn(c);
    await c.query('commit');
    return r;
  } catch (e) {
    await c.query('rollback');
    throw e;
  } finally {
    c.release();
  }
}

// The bench's own schema name (tenant_bench), validated by Lectern when it was made.
const contacts = `"${schema}".contacts`;
async function oneStatement(ctx: Koa.Context, id: string | undefined): Promise<void> {
  if (ctx.method === 'GET' && id) ctx.body = (await pool.query(`select * from ${contacts} where id = $1`, [Number(id)])).rows[0];
  else if (ctx.method === 'GET') ctx.body = (await pool.query(`select * from ${contacts} order by id asc limit 100`)).rows;
  else if (ctx.method === 'POST') {
    const b = ctx.request.body as { first_name: string; last_name: string; email: string };
    ctx.body = (
      await pool.query(`insert into ${contacts} (first_name, last_name, email) values ($1, $2, $3) returning *`, [
        b.first_name,
        b.last_name,
        b.email,
      ])
    ).rows[0];
  }
}

// An event category with its sub-categories (id, name, introduction; by priority, then id), as
// Lectern answers GET /api/v2/event/categories/:id, in one statement (BENCH_MODE=one only).
const categories = `"${schema}".categories`;
const categoryJson = `select json_build_object('id', c.id, 'name', c.name, 'introduction', c.introduction, 'sub_categories',
  coalesce((select json_agg(json_build_object('id', s.id, 'name', s.name, 'introduction', s.introduction) order by s.priority, s.id)
    from ${categories} s where s.parent_id = c.id), '[]'::json)) as record from ${categories} c where c.id = $1`;

app.use(async (ctx, next) => {
  const m = /^\/api\/v2\/event\/categories\/(\d+)$/.exec(ctx.path);
  if (!m || !one) return next();
  ctx.body = (await pool.query(categoryJson, [Number(m[1])])).rows[0]?.record;
});

app.use(async (ctx) => {
  const m = /^\/api\/v2\/crm\/contacts(?:\/(\d+))?$/.exec(ctx.path);
  if (!m) return;
  if (one) return oneStatement(ctx, m[1]);
  if (ctx.method === 'GET' && m[1])
    ctx.body = await inTx(async (c) => (await c.query('select * from contacts where id = $1', [Number(m[1])])).rows[0]);
  else if (ctx.method === 'GET')
    ctx.body = await inTx(async (c) => (await c.query('select * from contacts order by id asc limit 100')).rows);
  else if (ctx.method === 'POST') {
    const b = ctx.request.body as { first_name: string; last_name: string; email: string };
    ctx.body = await inTx(
      async (c) =>
        (
          await c.query('insert into contacts (first_name, last_name, email) values ($1, $2, $3) returning *', [
            b.first_name,
            b.last_name,
            b.email,
          ])
        ).rows[0],
    );
  }
});

http.createServer(app.callback()).listen(Number(process.env.PORT), '127.0.0.1');
