import crypto from 'node:crypto';
import test from 'ava';
import * as client from 'openid-client';
import { ClientAuthGuard } from '../../src/modules/oauth/client-auth-guard.js';
import { createServiceClient, type CreatedClient } from '../../src/modules/oauth/clients.service.js';
import { request, type HttpResult } from '../helpers/harness.js';
import { oauthFixture, type OAuthFixture } from '../helpers/oauth.js';

/**
 * Failed client authentication at `POST /oauth/token` is throttled as password guesses are:
 * per client *and address*, so a client from its own address is never held up by guesses made
 * elsewhere, nor by another client's failures. Each test sends from loopback addresses of its own
 * (127.x.y.z), as counts are kept per address; the counts are under this runtime's QUEUE_PREFIX.
 */
let f: OAuthFixture;
const run = crypto.randomInt(2, 250);
let n = 0;
/** A loopback address no other test of this run uses. */
const address = () => `127.${run}.${Math.floor(++n / 250)}.${(n % 250) + 2}`;

test.serial.before(async () => {
  f = await oauthFixture('ocat');
  await f.addUser(f.tenant, 'svc@ocat.test', 'viewer');
});
test.after.always(async () => f?.close());

const newClient = (label: string): Promise<CreatedClient> =>
  createServiceClient(f.ctx.rt.knex, f.tenant, { name: `${label} ${crypto.randomBytes(3).toString('hex')}`, serviceUser: 'svc@ocat.test' });

/** A client credentials request, the secret in the form or (basic) in HTTP Basic, from `from`. */
const token = (clientId: string, secret: string, from: string, opts: { basic?: boolean } = {}): Promise<HttpResult> =>
  request(f.port, {
    method: 'POST',
    path: '/oauth/token',
    from,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(opts.basic ? { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` } : {}),
    },
    rawBody: new URLSearchParams({
      grant_type: 'client_credentials',
      ...(opts.basic ? {} : { client_id: clientId, client_secret: secret }),
    }).toString(),
  });

const statusesOf = async (tries: number, attempt: (i: number) => Promise<HttpResult>) => {
  const statuses: number[] = [];
  for (let i = 0; i < tries; i++) statuses.push((await attempt(i)).status);
  return statuses;
};

test.serial(
  'when a client secret is guessed from one address, then after 5 failures its failures wait (429, Retry-After), and the right secret is still accepted there',
  async (t) => {
    const creds = await newClient('Guessed');
    const attacker = address();
    t.deepEqual(await statusesOf(5, (i) => token(creds.clientId, `lcs_wrong-${i}`, attacker)), [400, 400, 400, 400, 429]);
    const wrong = await token(creds.clientId, 'lcs_wrong-again', attacker);
    t.is(wrong.status, 429, wrong.text);
    t.is(wrong.json.error, 'too_many_attempts');
    t.regex(wrong.json.error_description, /try again in \d+ s/);
    t.true(Number(wrong.headers['retry-after']) >= 1, wrong.headers['retry-after']);
    t.is(wrong.headers['cache-control'], 'no-store');
    t.is(wrong.json.access_token, undefined);
    // A 256-bit secret cannot be guessed: the real client behind the same address (a NAT, a
    // shared egress) is not locked out by someone else's failures.
    const right = await token(creds.clientId, creds.clientSecret, attacker);
    t.is(right.status, 200, right.text);
    t.truthy(right.json.access_token);
    t.is((await token(creds.clientId, 'lcs_wrong-after', attacker)).status, 400, 'the count started again');
    // The client, from its own address, is not held up at all.
    const elsewhere = await token(creds.clientId, creds.clientSecret, address());
    t.is(elsewhere.status, 200, elsewhere.text);
  },
);

test.serial(
  'when the secret is guessed with HTTP Basic, then failures are 401 with WWW-Authenticate and the wait is 429 without it',
  async (t) => {
    const creds = await newClient('Basic');
    const attacker = address();
    const answers: HttpResult[] = [];
    for (let i = 0; i < 5; i++) answers.push(await token(creds.clientId, `lcs_wrong-${i}`, attacker, { basic: true }));
    t.deepEqual(
      answers.map((a) => a.status),
      [401, 401, 401, 401, 429],
    );
    t.regex(answers[0]!.headers['www-authenticate'] ?? '', /^Basic/);
    // A challenge would tell the client to send other credentials: it is to wait.
    t.is(answers[4]!.headers['www-authenticate'], undefined);
    t.true(Number(answers[4]!.headers['retry-after']) >= 1);
  },
);

test.serial(
  'when 300 wrong secrets arrive at once, then they are checked one at a time: 4 refused, the rest answered 429 with a wait',
  async (t) => {
    const creds = await newClient('Burst');
    const attacker = address();
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => token(creds.clientId, `lcs_burst-${i}`, attacker)));
    const statuses = answers.map((a) => a.status);
    t.is(statuses.filter((s) => s === 400).length, 4, `checked and refused: ${statuses.filter((s) => s === 400).length}`);
    t.is(statuses.filter((s) => s === 429).length, 296);
    t.true(
      answers.filter((a) => a.status === 429).every((a) => a.json.error === 'too_many_attempts' && Number(a.headers['retry-after']) >= 1),
    );
    t.log(`300 answers in ${Date.now() - started} ms`);
  },
);

test.serial(
  'when attempts on one client and address come while earlier ones are still being checked, then they wait their turn: one check at a time',
  async (t) => {
    // Over HTTP a burst arrives spread out enough to pass without this; a slow check (a busy
    // database, several at once) must not let a burst be checked all at once.
    const guard = new ClientAuthGuard(f.ctx.rt.knex, {
      namespace: `ocat${crypto.randomBytes(3).toString('hex')}`,
      isClient: async () => true,
    });
    const from = address();
    let running = 0;
    let most = 0;
    const slowRefusal = async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 30));
      running--;
      return { outcome: 'refused' as const, value: 'invalid_client' };
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => guard.attempt('lc_burst', from, slowRefusal)));
    t.is(most, 1);
    t.is(results.filter((r) => !r.throttled).length, 4);
    t.true(results.filter((r) => r.throttled).every((r) => r.throttled && r.retryAfterS >= 1));
  },
);

test.serial(
  'when one client fails from an address, then another client from that same address is not held up, and its own failures count apart',
  async (t) => {
    const guessed = await newClient('Failing');
    const other = await newClient('Neighbour');
    const shared = address();
    t.deepEqual(await statusesOf(6, (i) => token(guessed.clientId, `lcs_wrong-${i}`, shared)), [400, 400, 400, 400, 429, 429]);
    const ok = await token(other.clientId, other.clientSecret, shared);
    t.is(ok.status, 200, ok.text);
    t.is((await token(other.clientId, 'lcs_wrong', shared)).status, 400, 'its first failure is checked, not made to wait');
  },
);

test.serial(
  'when unknown client ids are tried from one address, then they count together: past 5 that address waits for unknown ids, and registered clients from it are not held up',
  async (t) => {
    const creds = await newClient('Registered');
    const sprayer = address();
    const ids = Array.from({ length: 6 }, () => `lc_${crypto.randomBytes(16).toString('base64url')}`);
    t.deepEqual(await statusesOf(6, (i) => token(ids[i]!, 'lcs_anything', sprayer)), [400, 400, 400, 400, 429, 429]);
    t.is((await token(creds.clientId, creds.clientSecret, sprayer)).status, 200);
    // One count per address for every unknown id: the table does not grow with the ids tried.
    const keys = await f.ctx.rt.knex('platform.login_limits').where('key', 'like', `%${sprayer}`).pluck('key');
    t.true(
      keys.every((k: string) => !ids.some((id) => k.includes(id))),
      keys.join(', '),
    );
  },
);

test.serial('when a client authenticates after a few failures, then its count starts again', async (t) => {
  const creds = await newClient('Recovering');
  const from = address();
  t.deepEqual(await statusesOf(4, (i) => token(creds.clientId, `lcs_wrong-${i}`, from)), [400, 400, 400, 400]);
  t.is((await token(creds.clientId, creds.clientSecret, from)).status, 200);
  t.deepEqual(await statusesOf(4, (i) => token(creds.clientId, `lcs_again-${i}`, from)), [400, 400, 400, 400]);
});

test.serial(
  'when openid-client meets the wait, then it throws a ResponseBodyError with status 429, error too_many_attempts and the Retry-After header, and the right secret still gets a token',
  async (t) => {
    // openid-client sends from 127.0.0.1; this runtime's counts are its own (QUEUE_PREFIX).
    const creds = await newClient('Library');
    const wrong = await f.configure(creds.clientId, 'lcs_wrong');
    for (let i = 0; i < 4; i++) {
      const e = await t.throwsAsync(client.clientCredentialsGrant(wrong));
      t.is((e as unknown as { error?: string }).error, 'invalid_client');
    }
    await t.throwsAsync(client.clientCredentialsGrant(wrong));
    const err = (await t.throwsAsync(client.clientCredentialsGrant(wrong))) as unknown as client.ResponseBodyError;
    t.true(err instanceof client.ResponseBodyError, String(err));
    t.is(err.status, 429);
    t.is(err.error, 'too_many_attempts');
    t.true(Number(err.response.headers.get('retry-after')) >= 1);
    const right = await f.configure(creds.clientId, creds.clientSecret);
    t.truthy((await client.clientCredentialsGrant(right)).access_token, 'the right secret is still accepted');
  },
);

test.serial('when the wait is over and the secret is wrong again, then the next wait is longer', async (t) => {
  const creds = await newClient('Progressive');
  const from = address();
  let last: HttpResult | undefined;
  for (let i = 0; i < 5; i++) last = await token(creds.clientId, `lcs_wrong-${i}`, from);
  const first = Number(last!.headers['retry-after']);
  await new Promise((r) => setTimeout(r, first * 1000 + 200));
  const again = await token(creds.clientId, 'lcs_wrong-again', from);
  t.is(again.status, 429);
  t.true(Number(again.headers['retry-after']) > first, `${again.headers['retry-after']} after ${first}`);
});
