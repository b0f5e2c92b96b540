import crypto from 'node:crypto';
import test from 'ava';
import { createPlatformAdmin } from '../../src/modules/admins/admins.service.js';
import { PasswordGuard } from '../../src/modules/users/password-guard.js';
import { createUser } from '../../src/modules/users/users.service.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { request } from '../helpers/harness.js';
import { basic, PASSWORD, restFixture, type RestFixture } from '../helpers/rest.js';

/**
 * One guard for every password check (REST Basic auth, the queue dashboard, the sign-in pages):
 * guessing from one address slows down, progressively, while the same account from elsewhere is
 * never held up; verification never holds a database connection; a flood of checks is bounded.
 * Each test sends from addresses of its own (127.x.y.z), as counts are kept per address.
 */
let f: RestFixture;
const run = crypto.randomInt(2, 250);
let n = 0;
/** A loopback address no other test of this run uses. */
const address = () => `127.${run}.${Math.floor(++n / 250)}.${(n % 250) + 2}`;

test.serial.before(async () => {
  f = await restFixture(
    'pwg',
    { PASSWORD_CHECK_CONCURRENCY: '1', PASSWORD_CHECK_QUEUE: '4', PASSWORD_FAILURES_PER_ADDRESS: '8' },
    {},
    `pwg${crypto.randomBytes(3).toString('hex')}`,
  );
  // Counts of an earlier run that drew the same addresses, within the hour they last.
  await f.ctx.rt.knex('platform.login_limits').where('key', 'like', `%127.${run}.%`).delete();
});
test.after.always(async () => f?.close());

const newUser = async (label: string) => {
  const email = `${label}-${crypto.randomBytes(3).toString('hex')}@pwg.test`;
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => createUser(db, { email, password: PASSWORD, role: 'admin' }));
  return email;
};
const rest = (email: string, password: string, from: string) =>
  f.api('GET', 'crm/contacts', undefined, { headers: { authorization: basic(email, password) }, from });

test.serial(
  'when REST Basic auth is guessed from one address, then after 5 failures that address waits (429, Retry-After), even with the right password',
  async (t) => {
    const email = await newUser('rest');
    const attacker = address();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await rest(email, `wrong-${i}`, attacker)).status);
    t.deepEqual(statuses, [401, 401, 401, 401, 429]);
    const right = await rest(email, PASSWORD, attacker);
    t.is(right.status, 429, right.text);
    t.is(right.json.error.code, 'too_many_attempts');
    t.truthy(Number(right.headers['retry-after']) >= 1);
    // The user, from their own address, is not held up at all.
    t.is((await rest(email, PASSWORD, address())).status, 200);
  },
);

test.serial(
  'when one address tries many accounts, then past its allowance (PASSWORD_FAILURES_PER_ADDRESS) it waits, whatever account it tries next',
  async (t) => {
    const emails = await Promise.all(Array.from({ length: 9 }, (_, i) => newUser(`stuffing${i}`)));
    const source = address();
    const statuses: number[] = [];
    // One wrong password per account: no account is tried twice, the address is the common factor.
    for (const email of emails.slice(0, 8)) statuses.push((await rest(email, 'leaked-password-1', source)).status);
    t.deepEqual(statuses, [401, 401, 401, 401, 401, 401, 401, 429]);
    const next = await rest(emails[8]!, PASSWORD, source);
    t.is(next.status, 429, 'even a right password waits from that address');
    t.is((await rest(emails[8]!, PASSWORD, address())).status, 200, 'other addresses are not affected');
  },
);

test.serial('when the wait is over and the guess is wrong again, then the next wait is longer', async (t) => {
  const email = await newUser('progressive');
  const attacker = address();
  let last;
  for (let i = 0; i < 5; i++) last = await rest(email, `wrong-${i}`, attacker);
  const first = Number(last!.headers['retry-after']);
  await new Promise((r) => setTimeout(r, first * 1000 + 200));
  const again = await rest(email, 'wrong-again', attacker);
  t.is(again.status, 429);
  t.true(Number(again.headers['retry-after']) > first, `${again.headers['retry-after']} after ${first}`);
});

/** Signs in on the Control Panel's page from `from`: the form's CSRF token and cookie first, then the POST. */
async function pageSignIn(email: string, password: string, from: string) {
  const host = `${f.tenant.slug}.localhost`;
  const page = await request(f.port, { path: '/control-panel/login', host, from });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
  const cookie = (page.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  return request(f.port, {
    method: 'POST',
    path: '/control-panel/login',
    host,
    from,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    rawBody: new URLSearchParams({ _csrf: csrf, email, password, next: '/account/applications' }).toString(),
  });
}

test.serial(
  'when an account is guessed on the sign-in pages, then REST from that address waits too, and the user still gets in from elsewhere on both',
  async (t) => {
    const email = await newUser('pages');
    const attacker = address();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await pageSignIn(email, `wrong-${i}`, attacker)).status);
    t.deepEqual(statuses, [401, 401, 401, 401, 429]);
    t.is((await rest(email, PASSWORD, attacker)).status, 429, 'REST from the same address waits');
    // The real user, elsewhere: REST and the pages both let them in.
    const elsewhere = address();
    t.is((await rest(email, PASSWORD, elsewhere)).status, 200);
    const signIn = await pageSignIn(email, PASSWORD, elsewhere);
    t.is(signIn.status, 302, signIn.text.slice(0, 300));
  },
);

test.serial("when the queue dashboard's credentials are guessed, then the same guard slows that address", async (t) => {
  const admin = await createPlatformAdmin(f.ctx.rt.knex, {
    email: `ops-${crypto.randomBytes(3).toString('hex')}@pwg.test`,
    password: PASSWORD,
  });
  const attacker = address();
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++)
    statuses.push(
      (await request(f.port, { path: '/admin/queues', headers: { authorization: basic(admin.email, `wrong-${i}`) }, from: attacker }))
        .status,
    );
  t.deepEqual(statuses, [401, 401, 401, 401, 429, 429]);
  t.is(
    (await request(f.port, { path: '/admin/queues/api/queues', headers: { authorization: basic(admin.email, PASSWORD) }, from: address() }))
      .status,
    200,
  );
});

test.serial(
  'when a flood of wrong passwords arrives, then no database connection waits in a transaction during verification, and checks past the queue are refused with 503',
  async (t) => {
    const email = await newUser('flood');
    const [{ name }] = (await f.ctx.rt.knex.raw(`select current_setting('application_name') as name`)).rows;
    let sampling = true;
    let seenInTransaction = 0;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await f.ctx.rt.knex.raw(
          `select count(*)::int as n from pg_stat_activity where application_name = ? and state = 'idle in transaction'`,
          [name],
        );
        seenInTransaction = Math.max(seenInTransaction, rows[0].n);
        await new Promise((r) => setTimeout(r, 3));
      }
    })();
    // Forty clients at once, each from its own address (none is slowed by the guard's counts).
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => rest(email, `wrong-${i}`, address())));
    sampling = false;
    await sampler;
    t.is(seenInTransaction, 0, 'a connection sat in a transaction while a password was being verified');
    const statuses = answers.map((a) => a.status);
    t.true(
      statuses.every((s) => s === 401 || s === 503),
      statuses.join(','),
    );
    t.true(statuses.includes(503), `some checks past the queue are refused: ${statuses.join(',')}`);
    t.true(answers.filter((a) => a.status === 503).every((a) => Number(a.headers['retry-after']) >= 1));
  },
);

test.serial(
  'when two deployments share a database (their own QUEUE_PREFIX each), then failures counted by one never slow the other',
  async (t) => {
    const opts = { concurrency: 2, queue: 10, addressFreeFailures: 3 };
    const ours = new PasswordGuard(f.ctx.rt.knex, { ...opts, namespace: `pwga${crypto.randomBytes(3).toString('hex')}` });
    const theirs = new PasswordGuard(f.ctx.rt.knex, { ...opts, namespace: `pwgb${crypto.randomBytes(3).toString('hex')}` });
    const from = address();
    for (let i = 0; i < 3; i++) await ours.check(`acct-${i}`, from, null, 'wrong');
    const oursNext = await ours.check('acct-x', from, null, 'wrong');
    t.deepEqual(oursNext.ok ? 'ok' : oursNext.reason, 'throttled', 'the address passed its allowance where it failed');
    const theirsNext = await theirs.check('acct-x', from, null, 'wrong');
    t.deepEqual(theirsNext.ok ? 'ok' : theirsNext.reason, 'invalid', 'the other deployment checked the password instead of making it wait');
  },
);
