import test from 'ava';
import { createKnex, type Knex } from '../../src/platform/db/knex.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { setupTestRuntime, type TestContext } from '../helpers/harness.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';

let ctx: TestContext;
let one: Knex;
let a: Tenant;
let b: Tenant;

test.serial.before(async () => {
  ctx = await setupTestRuntime();
  a = await ctx.freshTenant('leaka');
  b = await ctx.freshTenant('leakb');
  await withTenant(ctx.rt.knex, a, (db) => db('contacts').insert({ first_name: 'Alice', last_name: 'OfA' }));
  await withTenant(ctx.rt.knex, b, (db) =>
    db('contacts').insert([
      { first_name: 'Bob', last_name: 'OfB' },
      { first_name: 'Bea', last_name: 'OfB' },
    ]),
  );
  // A pool of exactly one connection: every transaction below reuses the same session. Straight
  // to PostgreSQL: behind a pooler (the pooled CI run) one client connection is no one session.
  one = createKnex(ctx.rt.directDatabaseUrl, { poolMax: 1, applicationName: 'leak-test' });
});
test.after.always(async () => {
  await one?.destroy();
  await ctx?.cleanup();
});

test.serial('when one pooled connection alternates two tenants, then each sees only its own rows', async (t) => {
  const pids = new Set<number>();
  for (let i = 0; i < 40; i++) {
    const tenant = i % 2 === 0 ? a : b;
    const seen = await withTenant(one, tenant, async (db) => {
      const pid = await db.raw('select pg_backend_pid() as pid');
      pids.add(pid.rows[0].pid);
      return db('contacts').pluck('last_name');
    });
    t.deepEqual([...new Set(seen)], [tenant === a ? 'OfA' : 'OfB'], `iteration ${i}`);
  }
  t.is(pids.size, 1, 'all iterations ran on the same database session');
});

test.serial('when a transaction ends, then its search_path does not outlive it on the connection', async (t) => {
  await withTenant(one, a, (db) => db('contacts').count());
  const path = await one.raw('show search_path');
  t.notRegex(path.rows[0].search_path, /tenant_/);
  // With no tenant, unqualified tenant tables do not exist: the query fails loudly.
  await t.throwsAsync(one('contacts').select('*'), { message: /relation "contacts" does not exist/ });
});

test.serial(
  'when a tenant transaction runs, then PostgreSQL does not JIT-compile its statements (a compile cannot be cancelled), and the setting ends with it',
  async (t) => {
    const inside = await withTenant(one, a, async (db) => (await db.raw(`select current_setting('jit') as jit`)).rows[0].jit);
    t.is(inside, 'off');
    const outside = await one.raw(`select current_setting('jit') as jit`);
    t.is(outside.rows[0].jit, 'on', 'the server default is back once the transaction ended');
  },
);

test.serial('when a tenant transaction fails, then the next one on the connection is not affected', async (t) => {
  await t.throwsAsync(
    withTenant(one, a, async (db) => {
      await db('contacts').insert({ first_name: 'Rolled', last_name: 'Back' });
      throw new Error('boom');
    }),
    { message: 'boom' },
  );
  const names = await withTenant(one, b, (db) => db('contacts').pluck('first_name'));
  t.deepEqual(names.sort(), ['Bea', 'Bob']);
  const aNames = await withTenant(one, a, (db) => db('contacts').pluck('first_name'));
  t.deepEqual(aNames, ['Alice'], 'the failed write was rolled back');
});

test('when a schema name is not a tenant schema, then withTenant refuses it', async (t) => {
  await t.throwsAsync(
    withTenant(one, { schema: 'platform' }, async () => 1),
    { message: /unexpected tenant schema/ },
  );
  await t.throwsAsync(
    withTenant(one, { schema: 'tenant_x"; drop table y; --' }, async () => 1),
    { message: /unexpected tenant schema/ },
  );
});

test.serial(
  "when a query runs on a finished transaction's handle, then it is refused and never reaches the next transaction on the connection",
  async (t) => {
    let stale: Knex | undefined;
    await withTenant(one, a, async (db) => {
      stale = db;
      await db('contacts').count();
    });
    // The same (only) connection now runs tenant b's transaction; the stale handle must not write into it.
    await withTenant(one, b, async () => {
      await t.throwsAsync(stale!('contacts').insert({ first_name: 'Late', last_name: 'Write' }), { message: /transaction .*has ended/ });
      await t.throwsAsync(stale!.raw('select 1'), { message: /has ended/ });
    });
    const everywhere = [
      ...(await withTenant(one, a, (db) => db('contacts').pluck('first_name'))),
      ...(await withTenant(one, b, (db) => db('contacts').pluck('first_name'))),
    ];
    t.false(everywhere.includes('Late'));
  },
);

test.serial('when a nested transaction fails inside a tenant transaction, then only its savepoint is rolled back', async (t) => {
  const names = await withTenant(one, a, async (db) => {
    await db('contacts').insert({ first_name: 'Outer', last_name: 'Kept' });
    await t.throwsAsync(
      db.transaction(async (inner) => {
        await inner('contacts').insert({ first_name: 'Inner', last_name: 'Gone' });
        throw new Error('inner boom');
      }),
      { message: 'inner boom' },
    );
    return db('contacts').pluck('first_name');
  });
  t.true(names.includes('Outer'));
  t.false(names.includes('Inner'));
  await withTenant(one, a, (db) => db('contacts').where({ first_name: 'Outer' }).delete());
});

test.serial(
  "when the database ends a transaction's session, then the error surfaces and the pool hands out a working connection next",
  async (t) => {
    await t.throwsAsync(withTenant(one, a, (db) => db.raw('select pg_terminate_backend(pg_backend_pid())')));
    const names = await withTenant(one, a, (db) => db('contacts').pluck('first_name'));
    t.deepEqual(names, ['Alice']);
  },
);

test.serial('when statements run in a tenant transaction, then knex query listeners see them', async (t) => {
  const seen: string[] = [];
  const listen = (q: { sql: string }) => seen.push(q.sql);
  one.on('query', listen);
  try {
    await withTenant(one, a, (db) => db('contacts').where({ first_name: 'Alice' }).first());
  } finally {
    one.off('query', listen);
  }
  t.true(
    seen.some((sql) => /from "contacts"/.test(sql)),
    seen.join('\n'),
  );
});

test.serial(
  'when a savepoint outlives its tenant transaction, then its queries are refused and never reach the next transaction',
  async (t) => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let late: Promise<unknown> | undefined;
    await withTenant(one, a, async (db) => {
      // A nested transaction that keeps going after its parent returned (a forgotten await).
      late = db.transaction(async (sp) => {
        await gate;
        await sp('contacts').insert({ first_name: 'Savepoint', last_name: 'Late' });
      });
    });
    await withTenant(one, b, async () => {
      release();
      await t.throwsAsync(late!, { message: /transaction .*has ended|already complete/ });
    });
    const names = [
      ...(await withTenant(one, a, (db) => db('contacts').pluck('first_name'))),
      ...(await withTenant(one, b, (db) => db('contacts').pluck('first_name'))),
    ];
    t.false(names.includes('Savepoint'));
  },
);

test.serial('when nested transactions run side by side, then they run one after the other and both commit', async (t) => {
  const names = await withTenant(one, a, async (db) => {
    await Promise.all([
      db.transaction(async (sp) => sp('contacts').insert({ first_name: 'Sibling1', last_name: 'S' })),
      db.transaction(async (sp) => sp('contacts').insert({ first_name: 'Sibling2', last_name: 'S' })),
    ]);
    return db('contacts').where({ last_name: 'S' }).orderBy('first_name').pluck('first_name');
  });
  t.deepEqual(names, ['Sibling1', 'Sibling2']);
  await withTenant(one, a, (db) => db('contacts').where({ last_name: 'S' }).delete());
});

test.serial('a tenant transaction hands out no handle that escapes it: withUserParams is refused and listeners stay its own', async (t) => {
  const before = one.listenerCount('query');
  const own: string[] = [];
  await withTenant(one, a, async (db) => {
    t.throws(() => db.withUserParams({}), { message: /Cannot set user params on a transaction/ });
    db.on('query', (q: { sql: string }) => own.push(q.sql));
    await db('contacts').count();
  });
  t.is(one.listenerCount('query'), before, 'the root instance gained no listener');
  t.is(own.length, 1, "the transaction's listener saw its own statement");
  await withTenant(one, a, (db) => db('contacts').count());
  t.is(own.length, 1, "and none of the next transaction's");
});

test.serial(
  'when a statement fails and the caller carries on, then the transaction is reported as rolled back, not committed',
  async (t) => {
    await t.throwsAsync(
      withTenant(one, a, async (db) => {
        await db('contacts').insert({ first_name: 'Lost', last_name: 'Write' });
        await db.raw('select 1/0').catch(() => undefined); // swallowed: PostgreSQL aborted the transaction
        return 'done';
      }),
      { message: /rolled back/ },
    );
    t.false((await withTenant(one, a, (db) => db('contacts').pluck('first_name'))).includes('Lost'));
  },
);

test.serial(
  'when a transaction runs statements in parallel (GraphQL loaders), then they run one at a time, in order, without node-postgres deprecation warnings',
  async (t) => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const results = await withTenant(one, a, (db) =>
        Promise.all(
          Array.from({ length: 20 }, (_, i) => db.raw('select ?::int as n, pg_sleep(0.001)', [i]).then((r) => r.rows[0].n as number)),
        ),
      );
      t.deepEqual(
        results,
        Array.from({ length: 20 }, (_, i) => i),
      );
    } finally {
      await new Promise((r) => setImmediate(r));
      process.off('warning', onWarning);
    }
    t.deepEqual(
      warnings.filter((w) => /already executing a query/.test(w)),
      [],
    );
  },
);
