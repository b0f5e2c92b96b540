import http from 'node:http';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import knexFactory from 'knex';

/**
 * The middle column of `npm run bench -- rest`: a bare Koa server that runs the same SQL as
 * Lectern the way knex's documentation suggests (`knex.transaction()`, the tenant's
 * search_path, the user lookup, the query built with knex), with none of Lectern's own
 * machinery. This against the bare pg server shows what knex costs used that way; Lectern
 * opens its transactions below knex (src/db/transaction.ts) and keeps knex for the queries.
 */
const knex = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL, pool: { min: 0, max: 10 } });
const schema = process.env.BENCH_SCHEMA!;
const app = new Koa();
app.use(bodyParser());

app.use(async (ctx) => {
  const m = /^\/api\/v2\/crm\/contacts(?:\/(\d+))?$/.exec(ctx.path);
  if (!m) return;
  ctx.body = await knex.transaction(async (trx) => {
    await trx.raw(`select set_config('search_path', ?, true)`, [schema]);
    const auth = await trx.raw('select id from users where lower(email) = ?', ['bench@bench.test']);
    if (!auth.rowCount) throw new Error('no user');
    if (ctx.method === 'GET' && m[1])
      return trx('contacts')
        .where({ id: Number(m[1]) })
        .first();
    if (ctx.method === 'GET') return trx('contacts').orderBy('id').limit(100);
    const b = ctx.request.body as { first_name: string; last_name: string; email: string };
    return (await trx('contacts').insert({ first_name: b.first_name, last_name: b.last_name, email: b.email }).returning('*'))[0];
  });
});

process.on('SIGTERM', () => process.exit(0));
http.createServer(app.callback()).listen(Number(process.env.PORT), '127.0.0.1');
