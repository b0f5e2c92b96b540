import test from 'ava';
import { createKnex, type Knex } from '../../src/platform/db/knex.js';
import { createTenant, dropTenant } from '../../src/platform/tenancy/provision.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { hex } from '../helpers/harness.js';

/**
 * Reads without an explicit transaction (withTenant's `autocommit`): each statement goes with the
 * tenant's settings in one extended-protocol batch, one round trip. What they answer must be what
 * the same statements answer in a transaction, for every kind of value; nothing outlives the
 * statement on the connection.
 */
let knex: Knex;
let a: Tenant;
let b: Tenant;
test.serial.before(async () => {
  // One connection: whatever a statement left behind would be seen by the next.
  knex = createKnex(process.env.DATABASE_URL!, { poolMax: 1, applicationName: 'lectern-test-autocommit' });
  a = await createTenant(knex, { slug: `t-acr-${hex(3)}`, name: 'A' });
  b = await createTenant(knex, { slug: `t-acrb-${hex(3)}`, name: 'B' });
  await withTenant(knex, a, (db) => db('contacts').insert({ first_name: 'Ann', last_name: "O'Brien \\ back\\slash", email: 'ann@a.test' }));
  await withTenant(knex, b, (db) => db('contacts').insert({ first_name: 'Bob', last_name: 'B', email: 'bob@b.test' }));
});
test.after.always(async () => {
  for (const t of [a, b]) if (t) await dropTenant(knex, t.slug).catch(() => undefined);
  await knex?.destroy();
});

const read = <T>(tenant: Tenant, fn: (db: Knex) => Promise<T>) => withTenant(knex, tenant, fn, { readOnly: true, autocommit: true });
const inTransaction = <T>(tenant: Tenant, fn: (db: Knex) => Promise<T>) => withTenant(knex, tenant, fn, { readOnly: true });

const VALUES: [string, unknown][] = [
  ['quote', "it's"],
  ['backslashes', 'a\\b\\\\c\\'],
  ['quote after backslash', "\\'; drop table contacts; --"],
  ['dollar quoting', '$$ $1 $tag$'],
  ['question marks', 'why? ?? \\?'],
  ['unicode', 'Zoë 日本 🎓'],
  ['empty', ''],
  ['number', 42.5],
  ['negative', -7],
  ['bigint', 9007199254740993n],
  ['boolean', true],
  ['null', null],
  ['date', new Date('2026-03-01T12:34:56.789Z')],
  ['array of ints', [1, 2, 3]],
  ['array of strings', ["x'y", 'a,b', 'q"uote', '{braces}', 'NULL']],
  ['object (JSON)', { a: "it's", b: [1, null], c: { d: '\\' } }],
];

for (const [label, value] of VALUES) {
  test(`when a value is ${label}, then the read answers what a transaction answers`, async (t) => {
    const cast = Array.isArray(value)
      ? typeof value[0] === 'number'
        ? 'int[]'
        : 'text[]'
      : typeof value === 'object' && value && !(value instanceof Date)
        ? 'jsonb'
        : value instanceof Date
          ? 'timestamptz'
          : 'text';
    const sql = `select ?::${cast} as v, pg_typeof(?::${cast})::text as t`;
    const bindings = [value, value] as Knex.RawBinding[];
    const expected = await inTransaction(a, (db) => db.raw(sql, bindings));
    const got = await read(a, (db) => db.raw(sql, bindings));
    t.deepEqual(got.rows, expected.rows);
  });
}

test('when values are compared in a where clause, then they match as in a transaction', async (t) => {
  const hostile = ["O'Brien \\ back\\slash", "' or '1'='1", "\\' or 1=1 --"];
  for (const last of hostile) {
    const expected = await inTransaction(a, (db) => db('contacts').where({ last_name: last }).select('first_name'));
    const got = await read(a, (db) => db('contacts').where({ last_name: last }).select('first_name'));
    t.deepEqual(got, expected, last);
  }
  t.deepEqual(await read(a, (db) => db('contacts').where({ last_name: "O'Brien \\ back\\slash" }).pluck('first_name')), ['Ann']);
  t.deepEqual(await read(a, (db) => db('contacts').where({ last_name: "' or '1'='1" }).pluck('first_name')), []);
  t.deepEqual(await read(a, (db) => db('contacts').whereIn('id', [1, 2, 3]).pluck('first_name')), ['Ann']);
  t.deepEqual(
    await read(a, (db) =>
      db('contacts')
        .whereRaw('email = any(?)', [['ann@a.test', 'x']])
        .pluck('first_name'),
    ),
    ['Ann'],
  );
});

test('when reads of two tenants share one connection, then each sees only its own schema, and nothing stays set after a statement', async (t) => {
  t.deepEqual(await read(a, (db) => db('contacts').pluck('first_name')), ['Ann']);
  t.deepEqual(await read(b, (db) => db('contacts').pluck('first_name')), ['Bob']);
  const after = await knex.raw(
    `select current_setting('search_path') as path, current_setting('transaction_read_only') as ro, current_setting('jit') as jit`,
  );
  t.notRegex(after.rows[0].path, /tenant_/);
  t.is(after.rows[0].ro, 'off');
});

test('when a read tries to write, then PostgreSQL refuses it and nothing is written', async (t) => {
  const err = await t.throwsAsync(read(a, (db) => db('contacts').insert({ first_name: 'X', last_name: 'Y', email: 'x@a.test' })));
  t.regex(err!.message, /read-only transaction/);
  const inTx = await t.throwsAsync(inTransaction(a, (db) => db('contacts').insert({ first_name: 'X', last_name: 'Y', email: 'x@a.test' })));
  t.regex(inTx!.message, /read-only transaction/, 'a read-only transaction refuses it too');
  t.is(Number((await inTransaction(a, (db) => db('contacts').count({ n: '*' })))[0]!.n), 1);
  await t.throwsAsync(
    read(a, (db) => db.transaction(async () => undefined)),
    { message: /cannot open a transaction/ },
  );
});

test('when a value is bytes or holds a NUL, then it answers as in a transaction', async (t) => {
  const bytes = Buffer.from([0, 1, 2, 255]);
  t.deepEqual((await read(a, (db) => db.raw('select ?::bytea as v', [bytes]))).rows, [{ v: bytes }]);
  const nul = 'a\0b';
  const viaParam = await inTransaction(a, (db) => db.raw('select ?::text as v', [nul])).catch((e: Error) => e.message);
  const viaRead = await read(a, (db) => db.raw('select ?::text as v', [nul])).catch((e: Error) => e.message);
  t.is(viaRead, viaParam);
  t.deepEqual(await read(a, (db) => db('contacts').pluck('first_name')), ['Ann'], 'the connection is fine after it');
});

test('when a handle is used after its read ended, then its statements are refused', async (t) => {
  let stale: Knex | undefined;
  await read(a, async (db) => {
    stale = db;
  });
  await t.throwsAsync(stale!('contacts').select('*'), { message: /already complete/ });
});

test.serial(
  'when a read leaves a statement running as it returns, then its connection is not reused until that statement is answered',
  async (t) => {
    // One connection: the next transaction would inherit whatever the stray statement carried.
    await read(a, async (db) => {
      // Sent, and still running when the read returns (as a resolver's, when another field failed first).
      void db.raw('select pg_sleep(0.3)').catch(() => undefined);
      void db.raw('select 1').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
    });
    const seen = await knex.transaction(async (trx) => {
      await trx.raw('select pg_sleep(0.1)');
      return (await trx.raw(`select current_setting('transaction_read_only') as ro, current_setting('search_path') as path`)).rows[0];
    });
    t.is(seen.ro, 'off');
    t.notRegex(seen.path, /tenant_/);
  },
);

test('when raw SQL has a placeholder in a comment, or several statements, then it fails as a bound statement does (no value becomes SQL)', async (t) => {
  const payload = '\nunion all select first_name from contacts --';
  const inComment = (db: Knex) => db.raw('select first_name from contacts -- ?\n where last_name = ?', [payload, 'x']);
  const viaRead = await read(a, inComment).then(
    () => 'answered',
    (e: Error) => e.message,
  );
  t.regex(viaRead, /could not determine data type of parameter|bind message supplies/);
  const several = await read(a, (db) => db.raw('select ? as a; select first_name from contacts', ['v'])).then(
    () => 'answered',
    (e: Error) => e.message,
  );
  t.regex(several, /cannot insert multiple commands into a prepared statement/);
});

test.serial(
  'when a write runs in autocommit, then its one statement commits in its tenant alone; a second statement is refused and no dispatcher is taken',
  async (t) => {
    // A tenant of its own: the other tests count A's contacts.
    const c = await createTenant(knex, { slug: `t-acw-${hex(3)}`, name: 'C' });
    t.teardown(() => dropTenant(knex, c.slug).catch(() => undefined));
    const write = <T>(fn: (db: Knex) => Promise<T>, opts = {}) => withTenant(knex, c, fn, { autocommit: true, ...opts });
    const email = `w-${hex(3)}@c.test`;
    await write((db) => db('contacts').insert({ first_name: 'Wes', last_name: 'W', email }));
    t.is((await inTransaction(c, (db) => db('contacts').where({ email }))).length, 1, 'committed in C');
    t.is((await inTransaction(b, (db) => db('contacts').where({ email }))).length, 0, 'nothing in B');

    const second = `w2-${hex(3)}@c.test`;
    const err = await t.throwsAsync(
      write(async (db) => {
        await db('contacts').insert({ first_name: 'One', last_name: 'O', email: second });
        await db('contacts').where({ email: second }).update({ first_name: 'Two' });
      }),
    );
    t.regex(err?.message ?? '', /A write in autocommit runs exactly one statement$/);
    t.deepEqual(
      (await inTransaction(c, (db) => db('contacts').where({ email: second }))).map((c: { first_name: string }) => c.first_name),
      ['One'],
      'the first statement committed on its own, the second never ran',
    );

    const dispatcher = {} as never;
    await t.throwsAsync(
      write(async () => undefined, { dispatcher }),
      { message: /no commit to dispatch/ },
    );
  },
);
