import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { round, timeOrders } from './load.js';
import { runScript, serveScript } from './child-script.js';
import type { FloorResult } from './orders-floor.js';

/**
 * The second floor of `npm run bench -- orders`: the same three transactions per order as
 * bench/lib/orders-floor.ts (intake, registration, invoice), written by hand as the least SQL
 * that writes the same rows: each transaction is ONE round trip through pg's simple protocol
 * (`begin; select set_config(search_path...); <one statement of CTEs>; commit`), no knex, no
 * services, no checks beyond what the statement itself does.
 *
 *   1. intake: the order (opportunities), its event line and its outbox row, in one insert of CTEs;
 *   2. registration: the order locked (`for update`), the registration and its delegates (named:
 *      the line's contact and students; unnamed: the rest of the quantity as one row), the order
 *      moved on to `registered`;
 *   3. invoice: the order locked, the invoice, its lines and the payment, the order `completed`.
 *
 * The tenant's triggers (webhook events) fire as they do for Lectern's statements. Left out,
 * unlike Lectern's floor: the reference look-ups (contacts, events and payment type are trusted
 * or found inside the insert), the statement timeout, the request parsing and the checks of the
 * order's state in JavaScript. It is what the database alone needs; Lectern's floor over this
 * one is what Lectern's own functions cost.
 */

export interface SqlFloorInput {
  databaseUrl: string;
  queueNamespace: string;
  tenant: { id: number; schema: string };
  userId: number | null;
  bodies: unknown[];
  warmup: number;
  concurrency: number;
}

const SELF = fileURLToPath(import.meta.url);

/** Runs the hand-written floor in a process of its own and answers its figures. */
export function measureOrdersSqlFloor(input: SqlFloorInput): Promise<FloorResult> {
  return runScript(SELF, input, 'the hand-written orders floor');
}

interface Body {
  contact_id: number;
  items: { event_id: number; price: number; quantity: number; students?: { contact_id: number }[] }[];
  payment: { amount: number; type: string; currency: string };
}

const int = (n: unknown) => {
  if (!Number.isInteger(n)) throw new Error(`not a whole number: ${String(n)}`);
  return String(n);
};
const lit = (s: string) => pg.Client.prototype.escapeLiteral(s);
const money = (n: number) => (Math.round(n * 100) / 100).toFixed(2);

/** The three transactions' texts for one order; the order's id goes into the second and third. */
function transactions(input: SqlFloorInput) {
  if (!/^[a-z_][a-z0-9_]*$/.test(input.tenant.schema)) throw new Error('unexpected schema name');
  const open = `begin; select set_config('search_path', '${input.tenant.schema}', true), set_config('jit', 'off', true);`;
  const tid = int(input.tenant.id);
  const user = input.userId === null ? 'null' : int(input.userId);
  const ns = lit(input.queueNamespace);
  const intake = (body: Body) => {
    const item = body.items[0]!;
    const students = (item.students ?? []).map((s) => int(s.contact_id)).join(',');
    const hash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
    return `${open}
with o as (
  insert into opportunities (state, contact_id, company_id, payment_type_name, payment_type_id, payment_amount, payment_currency,
                             created_by_user_id, request_hash, discarded)
  values ('received', ${int(body.contact_id)}, (select min(id) from companies), ${lit(body.payment.type)},
          (select id from payment_types where lower(name) = lower(${lit(body.payment.type)})), ${money(body.payment.amount)},
          ${lit(body.payment.currency)}, ${user}, '${hash}', '[]')
  returning id),
l as (
  insert into opportunity_lines (opportunity_id, position, kind, event_id, contact_id, student_ids, quantity, unit_price)
  select o.id, 1, 'event', ${int(item.event_id)}, null, array[${students}]::int[], ${int(item.quantity)}, ${money(item.price)} from o),
x as (
  insert into platform.outbox (tenant_id, queue, job_name, job_id, payload, queue_namespace)
  select ${tid}, 'orders', 'process', 'order-${tid}-' || o.id, jsonb_build_object('tenantId', ${tid}, 'orderId', o.id), ${ns} from o)
select id from o; commit;`;
  };
  const register = (id: number) => `${open}
with o as (select id, contact_id, company_id from opportunities where id = ${int(id)} for update),
l as (select position, event_id, quantity, array_remove(array[contact_id] || student_ids, null) as named
        from opportunity_lines where opportunity_id = ${int(id)} and kind = 'event'),
r as (insert into registrations (opportunity_id, contact_id, company_id) select id, contact_id, company_id from o returning id),
d as (
  insert into delegates (event_id, contact_id, num_places, registration_id)
  select s.event_id, s.contact_id, s.num_places, r.id
    from r cross join (
      select l.position, 0 as part, x.k, l.event_id, x.c as contact_id, null::int as num_places
        from l cross join lateral unnest(l.named) with ordinality as x(c, k)
      union all
      select l.position, 1, 0, l.event_id, null, l.quantity - coalesce(cardinality(l.named), 0)
        from l where l.quantity > coalesce(cardinality(l.named), 0)) s
   order by s.position, s.part, s.k)
update opportunities set state = 'registered', completed_on = null, updated_on = (now() at time zone 'utc')
 where id in (select id from o); commit;`;
  const invoice = (id: number) => `${open}
with o as (select id, contact_id, company_id, currency_id, payment_type_id, payment_amount, payment_currency, payment_transaction_code
             from opportunities where id = ${int(id)} for update),
s as (select l.position, l.kind, l.event_id, l.stock_item_id, l.quantity, l.unit_price, e.title, e.start_date, e.currency_code, si.name
        from opportunity_lines l left join events e on e.id = l.event_id left join stock_items si on si.id = l.stock_item_id
       where l.opportunity_id = ${int(id)}),
t as (select coalesce(sum(quantity * unit_price), 0) as total, (select currency_code from s where currency_code is not null order by position limit 1) as cur from s),
i as (
  insert into invoices (opportunity_id, registration_id, contact_id, company_id, currency, total, amount_paid, status)
  select o.id, (select id from registrations where opportunity_id = o.id), o.contact_id, o.company_id,
         coalesce(o.currency_id, o.payment_currency, t.cur), t.total, o.payment_amount,
         case when o.payment_amount <= 0 then 'unpaid' when o.payment_amount >= t.total then 'paid' else 'part_paid' end
    from o, t returning id, currency),
li as (
  insert into invoice_lines (invoice_id, position, description, event_id, stock_item_id, quantity, unit_price, amount)
  select i.id, row_number() over (order by s.position),
         case when s.kind = 'event' then coalesce(s.title, 'Event ' || s.event_id) || coalesce(' (' || s.start_date::text || ')', '')
              else coalesce(s.name, 'Stock item ' || s.stock_item_id) end,
         s.event_id, s.stock_item_id, s.quantity, s.unit_price, s.quantity * s.unit_price
    from i, s),
p as (
  insert into payments (invoice_id, payment_type_id, amount, currency, transaction_code)
  select i.id, o.payment_type_id, o.payment_amount, coalesce(o.payment_currency, i.currency), o.payment_transaction_code
    from i, o where o.payment_amount > 0)
update opportunities set state = 'completed', completed_on = (now() at time zone 'utc'), updated_on = (now() at time zone 'utc')
 where id in (select id from o); commit;`;
  return { intake, register, invoice };
}

type Results = pg.QueryResult | pg.QueryResult[];
const rowsOf = (r: Results, n: number) => (Array.isArray(r) ? r[n]! : r).rows;
const countOf = (r: Results, n: number) => (Array.isArray(r) ? r[n]! : r).rowCount;

async function runSqlFloor(input: SqlFloorInput): Promise<FloorResult> {
  const { bodies, warmup, concurrency } = input;
  const pool = new pg.Pool({ connectionString: input.databaseUrl, max: concurrency, application_name: 'bench-orders-sql-floor' });
  const tx = transactions(input);
  const one = async (body: unknown): Promise<number> => {
    const t0 = performance.now();
    const placed = (await pool.query(tx.intake(body as Body))) as unknown as Results;
    const id = (rowsOf(placed, 2)[0] as { id: number }).id;
    const registered = (await pool.query(tx.register(id))) as unknown as Results;
    if (countOf(registered, 2) !== 1) throw new Error(`order ${id}: the registration updated no order`);
    const invoiced = (await pool.query(tx.invoice(id))) as unknown as Results;
    if (countOf(invoiced, 2) !== 1) throw new Error(`order ${id}: the invoice updated no order`);
    return performance.now() - t0;
  };
  try {
    // Three round trips; each is begin, set_config, one statement and commit in one simple-protocol message.
    return { ...(await timeOrders(bodies, { warmup, concurrency }, one)), statementsPerOrder: 3 };
  } finally {
    await pool.end();
  }
}

await serveScript(import.meta.url, runSqlFloor);

/** What the database's sessions waited on during a phase, from samples of pg_stat_activity and pg_locks. */
export interface WaitSummary {
  samples: number;
  /** Sessions of the bench's database seen active per sample, on average. */
  activePerSample: number;
  /**
   * Sessions in a transaction, by what they were doing: `wait_event_type:wait_event`, `CPU` (active,
   * no wait event), or `idle in transaction` (waiting for its client's next statement), summed over the samples.
   */
  waits: Record<string, number>;
  /** Lock requests not granted, `locktype relation mode` -> how often seen (a relation's name, or a tuple/transactionid). */
  locksWaited: Record<string, number>;
}

/** Samples every `everyMs` until stopped; counts only sessions on `databaseUrl`'s database, not its own. */
export function sampleWaits(databaseUrl: string, everyMs = 20): { stop(): Promise<WaitSummary> } {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-orders-wait-sampler' });
  const summary: WaitSummary = { samples: 0, activePerSample: 0, waits: {}, locksWaited: {} };
  let active = 0;
  let stopped = false;
  const add = (m: Record<string, number>, k: string, n: number) => (m[k] = (m[k] ?? 0) + n);
  const loop = (async () => {
    await client.connect();
    while (!stopped) {
      const { rows } = await client.query<{ w: string; n: number }>(
        `select case when state = 'active' then coalesce(wait_event_type || ':' || wait_event, 'CPU') else state end as w, count(*)::int as n
           from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
            and state in ('active', 'idle in transaction') group by 1`,
      );
      const locks = await client.query<{ k: string; n: number }>(
        `select l.locktype || ' ' || coalesce(c.relname, '') || ' ' || l.mode as k, count(*)::int as n
           from pg_locks l left join pg_class c on c.oid = l.relation
          where not l.granted
          group by 1`,
      );
      summary.samples++;
      for (const r of rows) {
        add(summary.waits, r.w, r.n);
        if (r.w !== 'idle in transaction') active += r.n;
      }
      for (const r of locks.rows) add(summary.locksWaited, r.k.replace(/\s+/g, ' ').trim(), r.n);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop.catch(() => undefined);
      await client.end().catch(() => undefined);
      summary.activePerSample = round(active / Math.max(1, summary.samples), 2);
      const top = (m: Record<string, number>) =>
        Object.fromEntries(
          Object.entries(m)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 12),
        );
      return { ...summary, waits: top(summary.waits), locksWaited: top(summary.locksWaited) };
    },
  };
}
