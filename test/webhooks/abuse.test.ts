import test from 'ava';
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import { attemptDelivery, type DeliveryDeps } from '../../src/modules/webhooks/webhook-delivery.service.js';
import {
  closeWebhookAgents,
  deliverJson,
  parseAllowance,
  type AddressAllowance,
  type DeliveryOutcome,
  type SenderOptions,
} from '../../src/modules/webhooks/webhook-http.js';
import { objectIdOf } from '../../src/modules/webhooks/webhook-types.js';
import { MAX_NOTIFICATION_EMAILS, webhookChange } from '../../src/modules/webhooks/webhooks.rules.js';
import type { WebhookSettings } from '../../src/platform/config.js';
import { createMailer } from '../../src/platform/mail.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';
import { waitFor } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * Webhooks attacked (issue 24, second reading): by an integrator of one tenant who holds
 * WEBHOOKS_EDIT and is careless or hostile, and by a hostile receiver. Each test names the attack
 * and asserts what should hold. A `test.failing` is a defect found here whose fix lies outside this
 * file's reach (the migration, the service, the delivery service): it passes while the defect is
 * there and fails, asking to become a plain test, once it is fixed.
 *
 * No test here may send a packet outside the loopback range, and none relies on the guard under
 * test for that: the tripwire below throws before any socket connects elsewhere, and names are
 * only ever resolved by stubs.
 */

// ---- tripwire: every TCP connect in this process, and what a name resolved to ----
const tripped: string[] = [];
const sockets: { host: string; port: number }[] = [];
const isLoopback = (ip: string): boolean => ip.startsWith('127.') || ip === '::1' || ip.toLowerCase().startsWith('::ffff:127.');
const realConnect = net.Socket.prototype.connect;
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const first = args[0];
  const options = (Array.isArray(first) ? first[0] : first) as (net.TcpNetConnectOpts & { path?: string }) | undefined;
  if (options && typeof options === 'object' && !options.path) {
    const host = options.host ?? 'localhost';
    sockets.push({ host, port: Number(options.port) });
    if (net.isIP(host) && !isLoopback(host)) {
      tripped.push(host);
      throw new Error(`tripwire: a connect to ${host}, outside loopback`);
    }
    if (!net.isIP(host)) {
      const inner = options.lookup ?? (dns.lookup as unknown as net.LookupFunction);
      options.lookup = (hostname, opts, callback) =>
        inner(hostname, opts, ((err, address, family) => {
          const list = typeof address === 'string' ? [address] : (address ?? []).map((a) => a.address);
          const outside = err ? undefined : list.find((a) => !isLoopback(a));
          if (outside) {
            tripped.push(`${hostname} -> ${outside}`);
            return callback(new Error(`tripwire: ${hostname} resolved to ${outside}`), '', 0);
          }
          callback(err, address, family);
        }) as LookupCallback);
    }
  }
  return (realConnect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof realConnect;

// ---- helpers ----
const nothingAllowed: AddressAllowance = { loopback: false, cidrs: [] };
const loopbackAllowed: AddressAllowance = { loopback: true, cidrs: [] };
const body = JSON.stringify({ metadata: {}, payload: { data: null } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const send = (url: string, extra: Partial<SenderOptions> = {}): Promise<DeliveryOutcome> =>
  deliverJson(url, body, {}, { timeoutMs: 1000, allow: loopbackAllowed, ...extra });

/** A resolver stub answering every name with `addresses`, recording the names asked. */
function stubLookup(addresses: string[]): { lookup: net.LookupFunction; asked: string[] } {
  const asked: string[] = [];
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    asked.push(hostname);
    const all = addresses.map((address) => ({ address, family: net.isIP(address) || 4 }));
    const cb = callback as LookupCallback;
    if (options.all) process.nextTick(() => cb(null, all));
    else process.nextTick(() => cb(null, all[0]?.address ?? '', all[0]?.family ?? 4));
  };
  return { lookup, asked };
}

/** A raw TCP server on 127.0.0.1 that answers each connection with `serve` once the request has arrived. */
async function rawReceiver(serve: (socket: net.Socket) => void): Promise<{ url: string; close(): Promise<void>; open: Set<net.Socket> }> {
  const open = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    let seen = '';
    let served = false;
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      const end = seen.indexOf('\r\n\r\n');
      if (served || end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(seen)?.[1] ?? 0);
      if (seen.length - end - 4 < length) return;
      served = true;
      serve(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/in`,
    open,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes `chunk` to the socket every `everyMs` until it closes. */
function drip(socket: net.Socket, chunk: string | Buffer, everyMs: number): void {
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer);
    socket.write(chunk);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

// ---- the Core API and real workers ----
let f: GraphQLFixture;
let rx: Receiver;
const url = (path: string) => rx.url(path);
const at = (path: string) => rx.at(path);

test.serial.before(async () => {
  rx = await startReceiver();
  f = await graphqlFixture('whabuse', {
    env: { WEBHOOK_ALLOW: 'loopback', WEBHOOK_RETRY_SCHEDULE: '300ms', WEBHOOK_TIMEOUT_MS: '2000', RECONCILE_AFTER_MS: '1500' },
  });
});
test.after.always(async (t) => {
  await f?.close();
  await rx?.close();
  await closeWebhookAgents();
  net.Socket.prototype.connect = realConnect;
  t.deepEqual(tripped, [], 'no connect outside loopback was even attempted');
});

/** This process's workers, with webhook settings of the test's own; closed by the test. */
function workersWith(settings: Partial<WebhookSettings> = {}): RunningWorkers {
  const rt = f.ctx.rt;
  return startWorkers({ ...rt, config: { ...rt.config, webhooks: { ...rt.config.webhooks, ...settings } } });
}

const CREATE = `mutation ($input: WebhookCreateInput!) { webhooks { create(input: $input) { webhook { id } errors { label message value } } } }`;
const UPDATE = `mutation ($input: WebhookUpdateInput!) { webhooks { update(input: $input) { webhook { id url query } errors { label message } } } }`;
const DELIVERIES = `query ($id: ID!) { node(id: $id) { ... on Webhook { lifecycleState
  deliveries(first: 100) { edges { node { id state attempts statusCode error responseExcerpt } } } } } }`;
const ECHO_QUERY = 'query ($objectid: String!) { echo(value: $objectid) }';
const EVENT_TITLE = 'query ($objectid: ID!) { node(id: $objectid) { ... on Event { title } } }';
const EVENT_CREATED = b64('WebhookType:event_created');
const EVENT_UPDATED = b64('WebhookType:event_updated');
const MANUAL_EVENT = b64('WebhookType:manual_event');

/** Creates a webhook through Core GraphQL; answers its id. */
async function createWebhook(token: string, input: Record<string, unknown>): Promise<string> {
  const res = await f.gql(token, CREATE, { input: { webhookTypeId: EVENT_CREATED, query: ECHO_QUERY, ...input } });
  const made = res.json?.data?.webhooks?.create;
  if (!made?.webhook) throw new Error(`create failed: ${res.text}`);
  return made.webhook.id as string;
}

/** The legacy id in a global id (`OutboundHook:7` -> 7). */
const legacy = (id: string) => Number(Buffer.from(id, 'base64').toString('utf8').split(':')[1]);

async function insertEvent(tenant: Tenant, title: string): Promise<number> {
  const [row] = await withTenant(f.ctx.rt.knex, tenant, (db) => db('events').insert({ title }).returning('id'));
  return (row as { id: number }).id;
}

async function disable(token: string, ids: string[]): Promise<void> {
  for (const id of ids) await f.gql(token, UPDATE, { input: { webhookId: id, lifecycleState: 'disabled' } });
}

// =============================================================================================
// (a) SSRF past the guard, at send time (webhook-http.ts): literal forms, names, userinfo

test.serial(
  'when a URL spells a loopback address in decimal, hex, octal, short or IPv6 forms, then it is refused with no socket',
  async (t) => {
    const before = sockets.length;
    for (const url of [
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://0x7f000001/',
      'http://017700000001/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://127.000.000.001/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[0:0:0:0:0:ffff:7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://0/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://127.0.0.1./',
    ]) {
      const out = await send(url, { allow: nothingAllowed, lookup: stubLookup([]).lookup });
      t.like(out, { ok: false, status: null, retryable: false }, url);
      t.regex(out.error ?? '', /^refused: /, `${url}: ${out.error}`);
    }
    t.deepEqual(sockets.slice(before), [], 'no socket was asked to connect');
  },
);

test.serial('when a URL spells a private or metadata address in another form, then it is refused even with loopback allowed', async (t) => {
  const before = sockets.length;
  for (const url of [
    'http://167772161/', // 10.0.0.1
    'http://0x0a000001/',
    'http://012.0.0.1/',
    'http://10.1/',
    'http://[::ffff:a00:1]/',
    'http://[0:0:0:0:0:ffff:a00:1]/',
    'http://[::ffff:169.254.169.254]/latest/meta-data/',
    'http://2852039166/', // 169.254.169.254
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[fe80::1]/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/', // Alibaba metadata (CGNAT range)
    'http://192.168.1.1:6379/',
  ]) {
    const out = await send(url, { lookup: stubLookup([]).lookup });
    t.like(out, { ok: false, status: null, retryable: false }, url);
    t.regex(out.error ?? '', /^refused: /, `${url}: ${out.error}`);
  }
  t.deepEqual(sockets.slice(before), []);
});

test.serial(
  'when a name resolves to a refused address in any form, then the name is refused before a socket gets an address',
  async (t) => {
    for (const answer of [
      ['::ffff:10.0.0.1'],
      ['::ffff:7f00:1'],
      ['0.0.0.0'],
      ['::'],
      ['100.64.0.1'],
      ['fe80::1%eth0'],
      ['169.254.169.254'],
      ['127.0.0.1'],
      ['::1'],
      ['localhost'], // a resolver answering a name: not an address
      ['127.0.0.1', '10.0.0.1'],
    ]) {
      const stub = stubLookup(answer);
      const before = sockets.length;
      const out = await send('http://rebind.example.test/in', { allow: nothingAllowed, lookup: stub.lookup });
      t.like(out, { ok: false, status: null, retryable: false }, answer.join(','));
      t.regex(out.error ?? '', /^refused: /, `${answer.join(',')}: ${out.error}`);
      t.deepEqual(
        sockets.slice(before).filter((s) => net.isIP(s.host)),
        [],
        'the socket never got an address',
      );
    }
    const empty = await send('http://empty.example.test/in', { allow: nothingAllowed, lookup: stubLookup([]).lookup });
    t.like(empty, { ok: false, status: null });
  },
);

test.serial('when the URL hides the host behind userinfo, a backslash or whitespace, then the real host is the one checked', async (t) => {
  const withCredentials = await send('http://evil@127.0.0.1/in', { allow: nothingAllowed });
  t.like(withCredentials, { ok: false, retryable: false, error: 'bad URL: credentials in the URL are not supported' });
  for (const url of [
    'http://127.0.0.1@rebind.example.test/in',
    'http://rebind.example.test\\@127.0.0.1/in',
    'http://rebind.example.test#@127.0.0.1/in',
    ' http://rebind.example.test/in\t',
    'http://rebind.exa\tmple.test/in',
  ]) {
    const stub = stubLookup(['10.0.0.9']);
    const out = await send(url, { allow: loopbackAllowed, lookup: stub.lookup });
    t.regex(
      out.error ?? '',
      /^(refused: rebind\.example\.test resolves to a private address|bad URL)/,
      `${JSON.stringify(url)}: ${out.error}`,
    );
  }
  for (const url of [
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_INFO',
    'ftp://127.0.0.1/',
    'javascript:alert(1)',
    'http:/\\127.0.0.1',
  ]) {
    const out = await send(url, { allow: nothingAllowed });
    t.like(out, { ok: false, status: null, retryable: false }, url);
  }
});

// =============================================================================================
// (a) the create-time rules (webhooks.rules.ts): what is stored is what is sent

test.serial(
  'when a url carries control characters or inner whitespace, then it is a field error (WHATWG would drop them silently)',
  (t) => {
    for (const url of [
      'http://127.0.0.1\t.evil.test/hook', // shown as one host, sent to another
      'http://receiver.test/a\r\nX-Injected: 1',
      'http://receiver.test/a\u0000b',
      'http://receiver.test/a b',
    ]) {
      const { problems, columns } = webhookChange({ url }, false);
      t.is(problems[0]?.field, 'url', JSON.stringify(url));
      t.is(columns.url, undefined);
    }
    t.deepEqual(webhookChange({ url: '  https://receiver.test/hooks?a=1  ' }, false).columns, { url: 'https://receiver.test/hooks?a=1' });
  },
);

test.serial(
  'when config, notificationEmails or emailAddress hold a NUL, then it is a field error (PostgreSQL text and jsonb refuse NUL)',
  (t) => {
    t.is(webhookChange({ config: '{"secret": "a\\u0000b"}' }, false).problems[0]?.field, 'config');
    t.is(webhookChange({ config: '{"a\\u0000": 1}' }, false).problems[0]?.field, 'config');
    t.is(webhookChange({ config: '{"a": [{"b": ["\\u0000"]}]}' }, false).problems[0]?.field, 'config');
    t.deepEqual(webhookChange({ config: '{"a": "\\\\u0000"}' }, false).problems, [], 'an escaped backslash then u0000 is no NUL');
    t.is(webhookChange({ notificationEmails: ['ops\u0000@example.test'] }, false).problems[0]?.field, 'notificationEmails[0]');
    t.is(webhookChange({ emailAddress: 'ops@exa\u0007mple.test' }, false).problems[0]?.field, 'emailAddress');
  },
);

test.serial(
  'when notificationEmails holds 50,000 addresses, then the rules answer in well under a second (it took minutes: a quadratic de-duplication)',
  (t) => {
    const emails = Array.from({ length: 50_000 }, (_, i) => `ops${i}@example.test`);
    const started = performance.now();
    const { problems, columns } = webhookChange({ notificationEmails: emails }, false);
    const took = performance.now() - started;
    t.true(took < 500, `${Math.round(took)} ms`);
    t.is(columns.notification_emails, undefined);
    t.is(problems.length, 1, 'one problem, not one per address');
    t.regex(problems[0]!.message, new RegExp(`at most ${MAX_NOTIFICATION_EMAILS}`));
    // Repeats still collapse: 25 entries naming 20 addresses are 20 addresses.
    const repeated = [
      ...Array.from({ length: 20 }, (_, i) => `a${i}@example.test`),
      'A1@example.test',
      'a2@example.test',
      ' a3@example.test ',
    ];
    t.deepEqual(webhookChange({ notificationEmails: repeated }, false).problems, []);
  },
);

test.serial(
  'when the API is sent a NUL in config, a notification address or the url, then the answer is a field error saying which (it was a bare INVALID_VALUE)',
  async (t) => {
    for (const input of [
      { config: '{"secret": "a\\u0000b"}' },
      { notificationEmails: ['ops\u0000@example.test'] },
      { url: 'http://x.test/\u0000' },
    ]) {
      const res = await f.gql(f.admin, CREATE, {
        input: { name: 'NUL', webhookTypeId: EVENT_CREATED, query: ECHO_QUERY, url: url('/nul'), ...input },
      });
      t.is(res.status, 200, res.text);
      t.falsy(res.json.errors, res.text);
      t.is(res.json.data.webhooks.create.webhook, null);
      t.true(res.json.data.webhooks.create.errors.length > 0, res.text);
      t.notRegex(res.text, /0x00|\\u0000 cannot|invalid byte sequence|insert into|stack/i, 'no internals');
    }
  },
);

const DOCUMENTS = (n: string) =>
  `documents(first: ${n}) { edges { node { id courseTemplates(first: ${n}) { edges { node { id title } } } learningPaths(first: ${n}) { edges { node { id } } } } } }`;

test.serial(
  'when a stored query moves its page sizes into variable defaults ($n: Int = 100), then the cost limit still counts them and refuses it',
  async (t) => {
    const literal = `query ($objectid: ID!) { node(id: $objectid) { id } ${DOCUMENTS('100')} }`;
    const viaDefault = `query ($objectid: ID!, $n: Int = 100) { node(id: $objectid) { id } ${DOCUMENTS('$n')} }`;
    const small = `query ($objectid: ID!, $n: Int = 5) { node(id: $objectid) { id } ${DOCUMENTS('$n')} }`;
    for (const [query, refused] of [
      [literal, true],
      [viaDefault, true],
      [small, false],
    ] as const) {
      const res = await f.gql(f.admin, CREATE, {
        input: { name: 'Costly', webhookTypeId: EVENT_CREATED, url: url('/costly'), query, lifecycleState: 'disabled' },
      });
      const made = res.json.data.webhooks.create;
      if (refused) {
        t.is(made.webhook, null, query);
        t.regex(made.errors[0]?.message ?? '', /query is not a valid query of this API: .*Cost limit/, query);
      } else t.deepEqual(made.errors, [], query);
    }
  },
);

// Found by this attack and fixed (src/kit/graphql/cost.ts withPages): a page size left to a
// variable's declared default counted as DEFAULT_PAGE (20) while the query ran with the default.
test.serial('when a Core request moves its page sizes into variable defaults, then the cost limit still counts them', async (t) => {
  const res = await f.gql(f.admin, `query ($n: Int = 100) { ${DOCUMENTS('$n')} }`);
  t.regex(JSON.stringify(res.json?.errors ?? []), /Cost limit/, res.text.slice(0, 300));
});

// =============================================================================================
// (b) a hostile receiver (webhook-http.ts)

test.serial('when a receiver trickles its headers, a byte at a time, then the attempt ends at the deadline', async (t) => {
  const r = await rawReceiver((s) => {
    s.write('HTTP/1.1 200 OK\r\n');
    drip(s, 'X', 50);
  });
  t.teardown(r.close);
  const out = await send(r.url, { timeoutMs: 800 });
  t.like(out, { ok: false, status: null, retryable: true });
  t.true(out.durationMs < 1500, `${out.durationMs} ms`);
});

test.serial(
  'when a receiver answers 200 and then trickles its body forever, then the attempt ends at the deadline as delivered',
  async (t) => {
    const r = await rawReceiver((s) => {
      s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      drip(s, '1\r\nx\r\n', 50);
    });
    t.teardown(r.close);
    const out = await send(r.url, { timeoutMs: 800 });
    t.like(out, { ok: true, status: 200, error: null });
    t.true(out.durationMs < 1500, `${out.durationMs} ms`);
    await sleep(100);
    t.is(r.open.size, 0, 'the connection was closed, not pooled');
  },
);

test.serial('when a receiver streams an endless body at full speed, then at most 64 KB is read and 1 KB kept', async (t) => {
  const r = await rawReceiver((s) => {
    s.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n');
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const pump = () => {
      while (!s.destroyed && s.write(chunk));
      if (!s.destroyed) s.once('drain', pump);
    };
    pump();
  });
  t.teardown(r.close);
  const out = await send(r.url, { timeoutMs: 3000 });
  t.like(out, { ok: true, status: 200 });
  t.is(out.responseExcerpt?.length, 1024);
  t.true(out.durationMs < 1000, `${out.durationMs} ms`);
  await sleep(100);
  t.is(r.open.size, 0);
});

test.serial('when a receiver answers with 100 KB of headers, then the attempt fails as an invalid answer, quickly', async (t) => {
  const r = await rawReceiver((s) => s.end(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(100_000)}\r\ncontent-length: 0\r\n\r\n`));
  t.teardown(r.close);
  const out = await send(r.url);
  t.like(out, { ok: false, status: null, retryable: true });
  t.true((out.error ?? '').length < 300, out.error ?? '');
});

test.serial(
  'when a receiver answers 101 Switching Protocols, endless 103s, or garbage, then each is an outcome, never a throw or a hang',
  async (t) => {
    const answers: [string, (s: net.Socket) => void][] = [
      ['101', (s) => s.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n')],
      ['103 forever', (s) => drip(s, 'HTTP/1.1 103 Early Hints\r\nlink: </a>; rel=preload\r\n\r\n', 30)],
      ['garbage', (s) => s.end('SSH-2.0-OpenSSH_9.6\r\n\r\n')],
      ['HTTP/0.9', (s) => s.end('hello')],
      ['reset', (s) => s.resetAndDestroy()],
    ];
    for (const [label, serve] of answers) {
      const r = await rawReceiver(serve);
      const out = await send(r.url, { timeoutMs: 800 });
      await r.close();
      t.false(out.ok, label);
      t.true(out.durationMs < 1500, `${label}: ${out.durationMs} ms`);
      t.true(typeof out.error === 'string' && !out.error.includes('\n'), `${label}: ${out.error}`);
    }
  },
);

test.serial('when a receiver answers a body holding NUL bytes, then the kept excerpt holds none (PostgreSQL text cannot)', async (t) => {
  const r = await rawReceiver((s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\nok\u0000\u0000bin'));
  t.teardown(r.close);
  const out = await send(r.url);
  t.like(out, { ok: true, status: 200 });
  t.false(out.responseExcerpt?.includes('\u0000'), JSON.stringify(out.responseExcerpt));
  t.is(out.responseExcerpt?.length, 7);
});

test.serial(
  'when a receiver answers 200 with a binary body (NUL bytes), then the delivery is recorded delivered once, not sent again and again',
  async (t) => {
    const tenant = await f.ctx.freshTenant('whnul');
    const token = await f.tokenFor(tenant, 'admin');
    rx.answers.set('/binary', { status: 200, body: Buffer.from([0x6f, 0x6b, 0x00, 0x01, 0x00]) });
    const id = await createWebhook(token, { name: 'Binary answer', url: url('/binary') });
    const workers = workersWith();
    try {
      await insertEvent(tenant, 'Binary');
      const delivery = await waitFor(async () => {
        const d = (await f.data(token, DELIVERIES, { id })).node.deliveries.edges[0]?.node;
        return d && d.state !== 'pending' ? d : undefined;
      }, 'the delivery to settle');
      t.like(delivery, { state: 'delivered', attempts: 1, statusCode: 200 });
      await sleep(500);
      t.is(at('/binary').length, 1, 'sent once');
    } finally {
      await disable(token, [id]);
      await workers.close();
    }
  },
);

// =============================================================================================
// Cross-tenant, and who may do what

test.serial(
  "when tenant B's admin names tenant A's webhook or delivery ids, then B reaches only its own schema and A's are untouched",
  async (t) => {
    const a = await f.ctx.freshTenant('wha');
    const tokenA = await f.tokenFor(a, 'admin');
    const b = await f.ctx.freshTenant('whb');
    const tokenB = await f.tokenFor(b, 'admin');
    const id = await createWebhook(tokenA, { name: 'A only', url: url('/a-only'), lifecycleState: 'disabled' });
    const probe = await f.gql(tokenB, UPDATE, { input: { webhookId: id, url: url('/stolen-by-b'), query: EVENT_TITLE } });
    t.is(probe.json.data.webhooks.update.webhook, null);
    t.regex(probe.json.data.webhooks.update.errors[0].message, /not found/);
    for (const mutation of [
      `mutation ($id: ID!) { webhooks { delete(webhookId: $id) { deleted errors { message } } } }`,
      `mutation ($id: ID!) { webhooks { rotateSigningSecret(webhookId: $id) { signingSecret errors { message } } } }`,
      `mutation ($id: ID!) { webhooks { sendTest(webhookId: $id) { delivery { id } errors { message } } } }`,
    ]) {
      const res = await f.gql(tokenB, mutation, { id });
      const payload = Object.values(res.json.data.webhooks)[0] as { errors: { message: string }[] };
      t.regex(payload.errors[0]?.message ?? '', /not found/, mutation);
    }
    const resend = await f.gql(
      tokenB,
      `mutation ($id: ID!) { webhooks { resend(deliveryId: $id) { delivery { id } errors { message } } } }`,
      {
        id: b64('WebhookDelivery:1'),
      },
    );
    t.regex(resend.json.data.webhooks.resend.errors[0].message, /not found/);
    t.is((await f.data(tokenB, `query ($id: ID!) { node(id: $id) { id } }`, { id })).node, null);
    t.deepEqual((await f.data(tokenB, 'query { webhooks { edges { node { id } } } }')).webhooks.edges, []);
    const row = await withTenant(f.ctx.rt.knex, a, (db) =>
      db('webhooks')
        .where({ id: legacy(id) })
        .first('url', 'query'),
    );
    t.deepEqual(row, { url: url('/a-only'), query: ECHO_QUERY });
    // B's stored query reading A's event id reads B's schema: the record of that number in B, if any.
    const eventA = await insertEvent(a, 'A secret');
    const echo = await f.data(tokenB, EVENT_TITLE, { objectid: objectIdOf('Event', eventA) });
    t.is(echo.node, null);
  },
);

test.serial(
  'when a user without WEBHOOKS_VIEW reads webhooks, their types or a webhook node, then each is refused and nothing of them is answered',
  async (t) => {
    const outsider = await f.tokenFor(f.tenant, 'whnoview', ['EVENT_VIEW']);
    const id = await createWebhook(f.admin, { name: 'Hidden hook', url: url('/hidden'), lifecycleState: 'disabled' });
    for (const [query, variables] of [
      ['query { webhooks(first: 5) { edges { node { id name url } } } }', {}],
      ['query { webhookTypes(first: 5) { edges { node { id name } } } }', {}],
      ['query ($id: ID!) { node(id: $id) { id ... on Webhook { name url } } }', { id }],
    ] as const) {
      const res = await f.gql(outsider, query, variables);
      t.regex(JSON.stringify(res.json.errors ?? []), /WEBHOOKS_VIEW|FORBIDDEN/, query);
      t.false(res.text.includes('Hidden hook'), query);
      t.false(res.text.includes('/hidden'), query);
    }
    // The same reads with WEBHOOKS_VIEW answer.
    const viewer = await f.tokenFor(f.tenant, 'whview2', ['WEBHOOKS_VIEW']);
    const seen = await f.gql(viewer, 'query ($id: ID!) { node(id: $id) { id ... on Webhook { name } } }', { id });
    t.is(seen.json.data.node.name, 'Hidden hook');
  },
);

test.serial('when a user with WEBHOOKS_VIEW only calls each webhook mutation, then each is refused and nothing changes', async (t) => {
  const viewer = await f.tokenFor(f.tenant, 'whviewer', ['WEBHOOKS_VIEW']);
  const id = await createWebhook(f.admin, { name: 'Viewed', url: url('/viewed'), lifecycleState: 'disabled' });
  for (const [mutation, variables] of [
    [CREATE, { input: { name: 'V', webhookTypeId: EVENT_CREATED, query: ECHO_QUERY, url: url('/v') } }],
    [UPDATE, { input: { webhookId: id, url: url('/v') } }],
    [`mutation ($id: ID!) { webhooks { delete(webhookId: $id) { deleted } } }`, { id }],
    [`mutation ($id: ID!) { webhooks { rotateSigningSecret(webhookId: $id) { signingSecret } } }`, { id }],
    [`mutation ($id: ID!) { webhooks { sendTest(webhookId: $id) { delivery { id } } } }`, { id }],
    [`mutation ($id: ID!) { webhooks { resend(deliveryId: $id) { delivery { id } } } }`, { id: b64('WebhookDelivery:1') }],
    [
      `mutation ($t: ID!, $o: ID!) { webhooks { trigger(webhookTypeId: $t, objectId: $o) { deliveries } } }`,
      { t: MANUAL_EVENT, o: objectIdOf('Event', 1) },
    ],
  ] as const) {
    const res = await f.gql(viewer, mutation, variables);
    t.regex(JSON.stringify(res.json.errors ?? []), /WEBHOOKS_EDIT|FORBIDDEN/, mutation);
  }
  const row = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
    db('webhooks')
      .where({ id: legacy(id) })
      .first('url'),
  );
  t.is(row.url, url('/viewed'));
});

test.serial(
  'when a user with WEBHOOKS_EDIT only creates a webhook whose query reads events, then its deliveries fail saying so',
  async (t) => {
    const editor = await f.tokenFor(f.tenant, 'wheditor', ['WEBHOOKS_VIEW', 'WEBHOOKS_EDIT']);
    const id = await createWebhook(editor, { name: 'Own narrow', url: url('/own-narrow'), query: EVENT_TITLE });
    const workers = workersWith();
    try {
      await insertEvent(f.tenant, 'Not for the editor');
      const d = await waitFor(async () => {
        const n = (await f.data(editor, DELIVERIES, { id })).node.deliveries.edges[0]?.node;
        return n?.state === 'failed' ? n : undefined;
      }, 'the delivery to fail');
      t.regex(d.error, /owner may not read/);
      t.is(at('/own-narrow').length, 0);
    } finally {
      await disable(f.admin, [id]);
      await workers.close();
    }
  },
);

test.serial('when the owner of a webhook is deactivated, then its deliveries fail saying so and nothing is sent', async (t) => {
  const tenant = await f.ctx.freshTenant('whgone');
  const admin = await f.tokenFor(tenant, 'admin');
  const owner = await f.tokenFor(tenant, 'whowner', ['WEBHOOKS_VIEW', 'WEBHOOKS_EDIT', 'EVENT_VIEW']);
  const id = await createWebhook(owner, { name: 'Owner leaves', url: url('/owner-gone'), query: EVENT_TITLE });
  await withTenant(f.ctx.rt.knex, tenant, async (db) => {
    const row = await db('webhooks')
      .where({ id: legacy(id) })
      .first('owner_user_id');
    await db('users').where({ id: row.owner_user_id }).update({ is_active: false });
  });
  const workers = workersWith();
  try {
    await insertEvent(tenant, 'After the owner left');
    const d = await waitFor(async () => {
      const n = (await f.data(admin, DELIVERIES, { id })).node.deliveries.edges[0]?.node;
      return n?.state === 'failed' ? n : undefined;
    }, 'the delivery to fail');
    t.regex(d.error, /no longer an active user/);
    t.is(at('/owner-gone').length, 0);
  } finally {
    await disable(admin, [id]);
    await workers.close();
  }
});

// Found by this attack and fixed (webhooks.service.ts changeWebhook): an update kept the webhook's
// owner, so an editor could read through an administrator's webhook what their role may not.
test.serial(
  "when a user with WEBHOOKS_EDIT only rewrites an admin's webhook (query and url), then it does not read with the admin's permissions",
  async (t) => {
    const editor = await f.tokenFor(f.tenant, 'whwidener', ['WEBHOOKS_VIEW', 'WEBHOOKS_EDIT']);
    const id = await createWebhook(f.admin, { name: 'Admin echo', url: url('/admin-echo') });
    const direct = await f.gql(editor, EVENT_TITLE, { objectid: objectIdOf('Event', 1) });
    t.regex(JSON.stringify(direct.json.errors ?? []), /FORBIDDEN|EVENT_VIEW/, 'the editor may not read events itself');
    const res = await f.gql(editor, UPDATE, { input: { webhookId: id, query: EVENT_TITLE, url: url('/widened') } });
    const workers = workersWith();
    try {
      const event = await insertEvent(f.tenant, 'Board-only plan');
      await waitFor(async () => {
        const rows = await withTenant(f.ctx.rt.knex, f.tenant, (db) =>
          db('webhook_deliveries as d')
            .join('webhook_events as e', 'e.id', 'd.event_id')
            .where({ 'd.webhook_id': legacy(id), 'e.record_id': event })
            .whereNot('d.state', 'pending')
            .select('d.state'),
        );
        return rows.length > 0;
      }, 'the delivery of the new event to settle');
      t.log(`update answered ${JSON.stringify(res.json.data?.webhooks?.update?.errors)}`);
      t.false(
        at('/widened').some((h) => JSON.stringify(h.body.payload).includes('Board-only plan')),
        "the editor's receiver got the event's title, read with the admin's permissions",
      );
    } finally {
      await disable(f.admin, [id]);
      await workers.close();
    }
  },
);

// =============================================================================================
// Data integrity

// Found by this attack and fixed (migration 017, `for key share` in record_webhook_event): the
// capture saw a webhook being deleted and failed the user's own write on the foreign key.
test.serial(
  'when a webhook is deleted while a user changes an event it listens to, then the change still commits (the capture does not fail it)',
  async (t) => {
    const tenant = await f.ctx.freshTenant('whrace');
    const token = await f.tokenFor(tenant, 'admin');
    const id = await createWebhook(token, { name: 'Deleted mid-write', webhookTypeId: EVENT_UPDATED, url: url('/race') });
    const event = await insertEvent(tenant, 'Before');
    const knex = f.ctx.rt.knex;
    const trx = await knex.transaction();
    try {
      await trx.raw(`select set_config('search_path', ?, true)`, [tenant.schema]);
      await trx('webhooks')
        .where({ id: legacy(id) })
        .delete();
      const write = withTenant(knex, tenant, (db) => db('events').where({ id: event }).update({ title: 'After' })).then(
        () => null,
        (err: Error) => err,
      );
      // The write's capture waits on the row the open transaction deleted.
      await waitFor(async () => {
        const { rows } = (await knex.raw(
          `select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and query like 'update "events"%'`,
        )) as { rows: { n: number }[] };
        return rows[0]!.n > 0;
      }, 'the write to wait on the deleted webhook');
      await trx.commit();
      const failed = await write;
      t.is(failed?.message ?? null, null, "the user's write failed");
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
    const row = await withTenant(knex, tenant, (db) => db('events').where({ id: event }).first('title'));
    t.is(row.title, 'After');
  },
);

test.serial(
  'when a webhook is disabled while a user changes an event it listens to, then the change commits and nothing is sent',
  async (t) => {
    const tenant = await f.ctx.freshTenant('whrace2');
    const token = await f.tokenFor(tenant, 'admin');
    const id = await createWebhook(token, { name: 'Disabled mid-write', webhookTypeId: EVENT_UPDATED, url: url('/race2') });
    const event = await insertEvent(tenant, 'Before');
    const knex = f.ctx.rt.knex;
    const trx = await knex.transaction();
    let write: Promise<Error | null>;
    try {
      await trx.raw(`select set_config('search_path', ?, true)`, [tenant.schema]);
      await trx('webhooks')
        .where({ id: legacy(id) })
        .update({ lifecycle_state: 'disabled' });
      write = withTenant(knex, tenant, (db) => db('events').where({ id: event }).update({ title: 'After' })).then(
        () => null,
        (err: Error) => err,
      );
      await sleep(300);
      await trx.commit();
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
    t.is((await write)?.message ?? null, null);
  },
);

test.serial(
  "when a change is made with another search_path (a migration, a script's psql), then it commits and is captured in the record's tenant",
  async (t) => {
    const tenant = await f.ctx.freshTenant('whpath');
    const token = await f.tokenFor(tenant, 'admin');
    const id = await createWebhook(token, {
      name: 'Any path',
      webhookTypeId: EVENT_UPDATED,
      url: url('/any-path'),
      lifecycleState: 'active',
    });
    const event = await insertEvent(tenant, 'Before');
    await f.ctx.rt.knex.transaction(async (trx) => {
      await trx.raw(`select set_config('search_path', 'public', true)`);
      await trx.raw(`update ??.events set title = 'By a migration' where id = ?`, [tenant.schema, event]);
      const { rows } = (await trx.raw('select current_setting(?) as path', ['search_path'])) as { rows: { path: string }[] };
      t.is(rows[0]!.path, 'public', "the caller's search_path is given back");
    });
    const rows = await withTenant(f.ctx.rt.knex, tenant, (db) =>
      db('webhook_deliveries')
        .where({ webhook_id: legacy(id) })
        .select('id'),
    );
    t.is(rows.length, 1);
    await disable(token, [id]);
  },
);

// Found by this attack and fixed (insertManualEvent, unique (webhook_id, event_id)): a second
// firing of one record in one transaction sent the one event twice under two webhook-ids.
test.serial(
  'when a manual type is fired twice for one record in one request, then each webhook gets one delivery of the one event',
  async (t) => {
    const tenant = await f.ctx.freshTenant('whtwice');
    const token = await f.tokenFor(tenant, 'admin');
    await createWebhook(token, { name: 'Manual', webhookTypeId: MANUAL_EVENT, url: url('/manual-twice') });
    const event = await insertEvent(tenant, 'Fired twice');
    const res = await f.gql(
      token,
      `mutation ($t: ID!, $o: ID!) { webhooks { a: trigger(webhookTypeId: $t, objectId: $o) { deliveries errors { message } }
        b: trigger(webhookTypeId: $t, objectId: $o) { deliveries errors { message } } } }`,
      { t: MANUAL_EVENT, o: objectIdOf('Event', event) },
    );
    t.falsy(res.json.errors, res.text);
    const rows = await withTenant(f.ctx.rt.knex, tenant, (db) => db('webhook_deliveries').select('id', 'event_id'));
    t.is(new Set(rows.map((r: { event_id: string }) => r.event_id)).size, 1, 'one event');
    t.is(rows.length, 1, 'one delivery of it');
  },
);

// =============================================================================================
// Resource abuse

// Found by this attack and fixed (payloadOf): the stored query ran without the statement
// timeout every request has.
test.serial('when a stored query runs at delivery, then its transaction has a statement timeout, as a request has', async (t) => {
  const tenant = await f.ctx.freshTenant('whtimeout');
  const token = await f.tokenFor(tenant, 'admin');
  const id = await createWebhook(token, { name: 'Timeout probe', url: url('/timeout-probe') });
  await insertEvent(tenant, 'Probe');
  const row = await withTenant(f.ctx.rt.knex, tenant, (db) =>
    db('webhook_deliveries')
      .where({ webhook_id: legacy(id) })
      .first('id'),
  );
  const rt = f.ctx.rt;
  const mailer = createMailer({ smtpUrl: undefined, from: 'lectern@example.test', log: rt.log });
  const deps: DeliveryDeps = {
    knex: rt.knex,
    log: rt.log,
    // The delivery's own runner seam: reads the setting in the transaction the query would run in.
    runQuery: async (db) => {
      const { rows } = (await db.raw('show statement_timeout')) as { rows: { statement_timeout: string }[] };
      return { data: { statementTimeout: rows[0]!.statement_timeout }, errors: [] };
    },
    mailer,
    settings: { ...rt.config.webhooks, allow: parseAllowance('loopback'), statementTimeoutMs: rt.config.statementTimeoutMs },
    instanceUrl: () => 'http://instance.test',
  };
  try {
    await attemptDelivery(deps, tenant, Number(row.id));
  } finally {
    mailer.close();
  }
  const hit = at('/timeout-probe')[0];
  t.truthy(hit, 'delivered');
  t.not(hit?.body.payload.statementTimeout, '0', 'no statement timeout');
});

// Found by this attack and fixed (attemptDelivery): WEBHOOK_ENDPOINT_CONCURRENCY was counted per
// webhook, so a tenant's several webhooks at one hanging receiver held every slot; now per receiver.
test.serial(
  "when one tenant points four webhooks at one hanging receiver, then another tenant's deliveries still arrive promptly",
  async (t) => {
    const one = await f.ctx.freshTenant('whhog');
    const oneToken = await f.tokenFor(one, 'admin');
    const two = await f.ctx.freshTenant('whquick');
    const twoToken = await f.tokenFor(two, 'admin');
    // The other tenant's receiver is a server of its own: a bound per receiver must not hold it.
    const quick: number[] = [];
    const other = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        quick.push(Date.now());
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/quick`;
    rx.answers.set('/hog', 'hang');
    const hogs: string[] = [];
    for (let i = 0; i < 4; i++) hogs.push(await createWebhook(oneToken, { name: `Hog ${i}`, url: url('/hog') }));
    await createWebhook(twoToken, { name: 'Quick', url: otherUrl });
    const workers = workersWith({ timeoutMs: 5000, concurrency: 8, endpointConcurrency: 2, retryScheduleMs: [300] });
    try {
      await withTenant(f.ctx.rt.knex, one, (db) => db('events').insert(Array.from({ length: 10 }, (_, i) => ({ title: `Hog ${i}` }))));
      // Not a count a fix would change: with a bound per receiver, fewer hang.
      await waitFor(async () => rx.held.size >= 2, 'the hanging receiver to hold requests', 10000, 10);
      await sleep(300);
      const start = Date.now();
      await withTenant(f.ctx.rt.knex, two, (db) => db('events').insert(Array.from({ length: 3 }, (_, i) => ({ title: `Quick ${i}` }))));
      await waitFor(async () => quick.length >= 3, "the other tenant's deliveries", 20000, 10);
      const took = Math.max(...quick) - start;
      t.log(`the other tenant's 3 deliveries took ${took} ms while ${rx.held.size} requests hang`);
      t.true(took < 2500, `the other tenant waited ${took} ms`);
    } finally {
      await disable(oneToken, hogs);
      for (const s of rx.held) s.destroy();
      await workers.close();
      other.closeAllConnections();
      other.close();
    }
  },
);
