import test from 'ava';
import type { Knex } from '../../src/platform/db/knex.js';
import { PLATFORM_SCHEMA } from '../../src/platform/tenancy/tenant.js';
import { setupTestRuntime, type TestContext } from '../helpers/harness.js';

/**
 * What Citus 12 schema-based sharding needs of a tenant schema (docs/scale.md, "Beyond one
 * PostgreSQL"): the schema moves to a node of its own as a whole, so nothing in it may point at
 * another schema (a foreign key to a platform table, a default calling a platform function, a
 * view over a platform table, a trigger running a function kept elsewhere), and nothing outside
 * may point into it. Checked on the catalog of a freshly provisioned tenant, so it covers every
 * tenant migration however it is written (knex builder or raw SQL).
 */

interface CrossSchemaLink {
  from: string;
  to: string;
  kind: string;
}

/**
 * Every dependency between an object of `schema` and an object of another user schema, either
 * way round, as PostgreSQL records it (pg_depend: constraints, defaults, views' rewrite rules,
 * triggers, sequences owned by columns). Objects of the system schemas are left out: every
 * node has them.
 */
async function crossSchemaLinks(knex: Knex, schema: string): Promise<CrossSchemaLink[]> {
  const { rows } = await knex.raw<{ rows: CrossSchemaLink[] }>(
    `with objects as (
       select 'pg_class'::regclass as classid, c.oid as objid, c.relnamespace as nsp, format('relation %s', c.oid::regclass) as label from pg_class c
       union all select 'pg_proc'::regclass, p.oid, p.pronamespace, format('function %s', p.oid::regprocedure) from pg_proc p
       union all select 'pg_type'::regclass, t.oid, t.typnamespace, format('type %s', t.oid::regtype) from pg_type t
       union all select 'pg_constraint'::regclass, k.oid, coalesce(r.relnamespace, k.connamespace), format('constraint %s on %s', k.conname, k.conrelid::regclass)
         from pg_constraint k left join pg_class r on r.oid = k.conrelid
       union all select 'pg_trigger'::regclass, g.oid, r.relnamespace, format('trigger %s on %s', g.tgname, g.tgrelid::regclass)
         from pg_trigger g join pg_class r on r.oid = g.tgrelid
       union all select 'pg_rewrite'::regclass, w.oid, r.relnamespace, format('rule %s on %s', w.rulename, w.ev_class::regclass)
         from pg_rewrite w join pg_class r on r.oid = w.ev_class
       union all select 'pg_attrdef'::regclass, a.oid, r.relnamespace, format('default of %s.%s', a.adrelid::regclass, a.adnum)
         from pg_attrdef a join pg_class r on r.oid = a.adrelid
     ),
     links as (
       select o1.label as "from", o2.label as "to", d.deptype as kind, o1.nsp as from_nsp, o2.nsp as to_nsp
         from pg_depend d
         join objects o1 on o1.classid = d.classid and o1.objid = d.objid
         join objects o2 on o2.classid = d.refclassid and o2.objid = d.refobjid
       union all
       -- A foreign key's dependency is on the referenced table's unique index and columns; the
       -- constraint itself names both tables, so ask it directly too.
       select format('constraint %s on %s', k.conname, k.conrelid::regclass), format('relation %s', k.confrelid::regclass), 'f', r.relnamespace, f.relnamespace
         from pg_constraint k join pg_class r on r.oid = k.conrelid join pg_class f on f.oid = k.confrelid
        where k.contype = 'f'
     )
     select distinct "from", "to", kind from links
      where from_nsp <> to_nsp
        and (from_nsp = to_regnamespace(:schema) or to_nsp = to_regnamespace(:schema))
        and from_nsp not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace, 'pg_toast'::regnamespace)
        and to_nsp not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace, 'pg_toast'::regnamespace)
      order by 1, 2`,
    { schema },
  );
  return rows;
}

let ctx: TestContext;
test.serial.before(async () => {
  ctx = await setupTestRuntime();
});
test.after.always(async () => ctx?.cleanup());

test.serial('when a tenant is provisioned, then nothing in its schema depends on another schema, nor anything outside on it', async (t) => {
  const tenant = await ctx.freshTenant('citus');
  const links = await crossSchemaLinks(ctx.rt.knex, tenant.schema);
  t.deepEqual(links, [], 'a tenant migration made the schema depend on another one (Citus cannot move it as a whole)');
  // The check looked at a real schema full of objects: tables, the trigger function, keys.
  const { rows } = await ctx.rt.knex.raw<{ rows: { n: number }[] }>(
    `select count(*)::int as n from pg_constraint where contype = 'f' and connamespace = to_regnamespace(?)`,
    [tenant.schema],
  );
  t.true(rows[0]!.n > 20, 'the tenant schema has its own foreign keys');
});

test.serial(
  'when a tenant table gets a foreign key to a platform table, a default from another schema or a trigger function kept elsewhere, then the check names each',
  async (t) => {
    const tenant = await ctx.freshTenant('citusbad');
    const knex = ctx.rt.knex;
    const s = tenant.schema;
    await knex.raw(`alter table ??.events add column owner_tenant_id integer references ${PLATFORM_SCHEMA}.tenants (id)`, [s]);
    const fn = `citus_probe_${s}`;
    await knex.raw(`create function public.?? () returns integer language sql as 'select 1'`, [fn]);
    await knex.raw(`create function public.??() returns trigger language plpgsql as $$ begin return null; end $$`, [`${fn}_t`]);
    try {
      await knex.raw(`alter table ??.contacts add column probe integer default public.??()`, [s, fn]);
      await knex.raw(`create trigger probe after insert on ??.roles for each statement execute function public.??()`, [s, `${fn}_t`]);
      const links = await crossSchemaLinks(knex, s);
      const text = links.map((l) => `${l.from} -> ${l.to}`).join('\n');
      t.regex(text, new RegExp(`constraint events_owner_tenant_id_fkey on ${s}\\.events -> relation ${PLATFORM_SCHEMA}\\.tenants`));
      t.regex(text, new RegExp(`default of ${s}\\.contacts\\.\\d+ -> function ${fn}\\(\\)`));
      t.regex(text, new RegExp(`trigger probe on ${s}\\.roles -> function ${fn}_t\\(\\)`));
    } finally {
      await knex.raw(`drop schema ?? cascade`, [s]);
      await knex.raw(`create schema ??`, [s]);
      await knex.raw(`drop function public.??(), public.??()`, [fn, `${fn}_t`]);
    }
  },
);
