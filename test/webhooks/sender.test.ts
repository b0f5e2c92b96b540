import test from 'ava';
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  addressRefusal,
  closeWebhookAgents,
  deliverJson,
  parseAllowance,
  type AddressAllowance,
  type SenderOptions,
} from '../../src/modules/webhooks/webhook-http.js';

/**
 * The outbound webhook sender (src/modules/webhooks/webhook-http.ts) against real HTTP servers on
 * 127.0.0.1. No test here may send a packet anywhere else, and none relies on the guard under test
 * for that: the tripwire below wraps every socket connect in this process and throws before a
 * connection to a non-loopback address is made, recording it so the test fails loudly.
 */

// ---- tripwire: every TCP connect in this process, and what a name resolved to ----
type Attempt = { host: string; port: number; socket: net.Socket };
const attempts: Attempt[] = [];
const tripped: string[] = [];
const isLoopback = (ip: string): boolean => ip.startsWith('127.') || ip === '::1' || ip.toLowerCase().startsWith('::ffff:127.');
const realConnect = net.Socket.prototype.connect;
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
function tripwireLookup(host: string, inner: net.LookupFunction): net.LookupFunction {
  return (hostname, options, callback) =>
    inner(hostname, options, ((err, address, family) => {
      const list = typeof address === 'string' ? [address] : (address ?? []).map((a) => a.address);
      const outside = err ? undefined : list.find((a) => !isLoopback(a));
      if (outside) {
        tripped.push(`${host} -> ${outside}`);
        callback(new Error(`tripwire: ${host} resolved to ${outside}, outside loopback; not connecting`), '', 0);
        return;
      }
      callback(err, address, family);
    }) as LookupCallback);
}
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const first = args[0];
  const options = (Array.isArray(first) ? first[0] : first) as (net.TcpNetConnectOpts & { path?: string }) | undefined;
  if (options && typeof options === 'object' && !options.path) {
    const host = options.host ?? 'localhost';
    attempts.push({ host, port: Number(options.port), socket: this });
    if (net.isIP(host)) {
      if (!isLoopback(host)) {
        tripped.push(host);
        throw new Error(`tripwire: a connect to ${host}, outside loopback`);
      }
    } else {
      options.lookup = tripwireLookup(host, options.lookup ?? (dns.lookup as unknown as net.LookupFunction));
    }
  }
  return (realConnect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof realConnect;

test.after.always(async (t) => {
  net.Socket.prototype.connect = realConnect;
  await closeWebhookAgents();
  t.deepEqual(tripped, [], 'no connect outside loopback was even attempted');
});

// ---- helpers ----
type Received = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
type Receiver = { url: string; port: number; connections: number; requests: Received[]; close: () => Promise<void> };

/** A real HTTP server on 127.0.0.1 that counts TCP connections and records each request. */
async function receiver(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Receiver> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      answer(req, res);
    });
  });
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const state: Receiver = {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: 0,
    requests: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

const loopbackAllowed: AddressAllowance = { loopback: true, cidrs: [] };
const nothingAllowed: AddressAllowance = { loopback: false, cidrs: [] };
const opts = (extra: Partial<SenderOptions> = {}): SenderOptions => ({ timeoutMs: 5000, allow: loopbackAllowed, ...extra });
const body = JSON.stringify({ metadata: { webhook_id: 'Webhook:1' }, payload: { data: { echo: 'hi' } } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A resolver stub: answers every name with the given addresses and records what it was asked. */
function stubLookup(addresses: string[]): { lookup: net.LookupFunction; asked: string[] } {
  const asked: string[] = [];
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    asked.push(hostname);
    const all = addresses.map((address) => ({ address, family: net.isIP(address) }));
    const cb = callback as LookupCallback;
    if (options.all) process.nextTick(() => cb(null, all));
    else process.nextTick(() => cb(null, all[0]!.address, all[0]!.family));
  };
  return { lookup, asked };
}

// ---- delivery ----
test.serial('when loopback is allowed, then the JSON body is POSTed with its headers and the 2xx answer is kept', async (t) => {
  const r = await receiver((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'));
  t.teardown(r.close);
  const out = await deliverJson(`${r.url}/hooks/in?x=1#frag`, body, { 'webhook-id': 'msg_1', 'Content-Type': 'text/plain' }, opts());
  t.like(out, { ok: true, status: 200, responseExcerpt: 'thanks', error: null, retryable: false });
  t.true(out.durationMs >= 0 && out.durationMs < 5000);
  t.is(r.requests.length, 1);
  const got = r.requests[0]!;
  t.is(got.method, 'POST');
  t.is(got.url, '/hooks/in?x=1');
  t.is(got.body, body);
  t.is(got.headers['content-type'], 'application/json', 'the caller cannot send another content type');
  t.is(got.headers['user-agent'], 'Lectern-Webhooks/1');
  t.is(got.headers['webhook-id'], 'msg_1');
});

test.serial('when loopback is not allowed, then a loopback URL is refused and the receiver sees no connection', async (t) => {
  const r = await receiver((_req, res) => res.end('should not happen'));
  t.teardown(r.close);
  const before = attempts.length;
  const out = await deliverJson(`${r.url}/hook`, body, {}, opts({ allow: nothingAllowed }));
  t.like(out, { ok: false, status: null, responseExcerpt: null, retryable: false });
  t.is(out.error, 'refused: 127.0.0.1 is a loopback address');
  // The system resolver names localhost too: refused after resolution, again without a connection.
  const named = await deliverJson(`http://localhost:${r.port}/hook`, body, {}, opts({ allow: nothingAllowed }));
  t.like(named, { ok: false, status: null, retryable: false });
  t.is(named.error, 'refused: localhost resolves to a loopback address');
  await sleep(100);
  t.is(r.connections, 0);
  t.is(r.requests.length, 0);
  t.false(
    attempts.slice(before).some((a) => net.isIP(a.host) && a.port === r.port),
    'the socket was never asked to connect to the literal address',
  );
});

test.serial('when an allowance lists a CIDR, then addresses inside it are delivered to and others still refused', async (t) => {
  const r = await receiver((_req, res) => res.writeHead(204).end());
  t.teardown(r.close);
  const viaCidr = await deliverJson(`${r.url}/hook`, body, {}, opts({ allow: parseAllowance('127.0.0.0/8') }));
  t.like(viaCidr, { ok: true, status: 204, responseExcerpt: '' });
  const elsewhere = await deliverJson(`${r.url}/hook`, body, {}, opts({ allow: parseAllowance('127.0.1.0/24') }));
  t.like(elsewhere, { ok: false, status: null, retryable: false, error: 'refused: 127.0.0.1 is a loopback address' });
  t.is(r.connections, 1);
});

// ---- classification ----
test.serial(
  'when an address is private, loopback, link-local, metadata, unspecified or CGNAT (v4, v6 or mapped), then it is refused',
  (t) => {
    const refused: Record<string, RegExp> = {
      '10.1.2.3': /private/,
      '172.16.0.1': /private/,
      '172.31.255.255': /private/,
      '192.168.1.1': /private/,
      '169.254.169.254': /link-local.*metadata/,
      '127.0.0.1': /loopback/,
      '127.255.0.9': /loopback/,
      '::1': /loopback/,
      'fe80::1': /link-local/,
      'fc00::1': /private/,
      'fd12:3456::1': /private/,
      '::ffff:10.0.0.1': /IPv4-mapped.*10\.0\.0\.1.*private/,
      '::ffff:127.0.0.1': /IPv4-mapped.*loopback/,
      '::ffff:169.254.169.254': /metadata/,
      '0.0.0.0': /unspecified/,
      '::': /unspecified/,
      '100.64.0.1': /carrier-grade NAT/,
      '255.255.255.255': /broadcast/,
      '224.0.0.1': /multicast/,
      'ff02::1': /multicast/,
      '240.0.0.1': /reserved/,
      '192.0.2.10': /reserved/,
      '2001:db8::1': /reserved/,
      'fec0::1': /reserved/,
      '::7f00:1': /IPv4-compatible/,
      '2002:a00:1::1': /6to4.*10\.0\.0\.1.*private/,
      '2002:7f00:1::': /6to4.*loopback/,
      '2001:0:4136:e378:8000:63bf:f5ff:fffe': /Teredo.*10\.0\.0\.1.*private/,
      '64:ff9b::a9fe:a9fe': /NAT64.*169\.254\.169\.254/,
      '64:ff9b:1::1': /NAT64/,
      'not-an-address': /not an IP address/,
      '': /not an IP address/,
    };
    for (const [address, why] of Object.entries(refused)) {
      const reason = addressRefusal(address, nothingAllowed);
      t.truthy(reason, `${address} is refused`);
      t.regex(reason ?? '', why, address);
      t.true((reason ?? '').startsWith('refused: '), address);
    }
    t.is(addressRefusal('10.0.0.5', nothingAllowed), 'refused: 10.0.0.5 is a private address');
  },
);

test.serial('when an address is public, then it is accepted (classification only, nothing is sent)', (t) => {
  for (const address of [
    '8.8.8.8',
    '1.1.1.1',
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
    '64:ff9b::808:808',
  ]) {
    t.is(addressRefusal(address, nothingAllowed), null, address);
  }
});

test.serial('when the allowance names loopback or a CIDR, then exactly those addresses pass', (t) => {
  for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1'])
    t.is(addressRefusal(address, loopbackAllowed), null, address);
  for (const address of ['0.0.0.0', '::', '10.0.0.1', '169.254.169.254'])
    t.truthy(addressRefusal(address, loopbackAllowed), `${address} stays refused`);
  const allow = parseAllowance('10.1.0.0/16, fd00:1::/32');
  t.is(addressRefusal('10.1.200.3', allow), null);
  t.is(addressRefusal('::ffff:10.1.200.3', allow), null, 'a mapped address matches its IPv4 CIDR');
  t.is(addressRefusal('fd00:1:2::3', allow), null);
  t.regex(addressRefusal('10.2.0.1', allow) ?? '', /private/);
  t.regex(addressRefusal('127.0.0.1', allow) ?? '', /loopback/);
});

test.serial('when the allowance setting is parsed, then loopback, CIDRs and single addresses are read and a bad entry throws', (t) => {
  t.deepEqual(parseAllowance(''), { loopback: false, cidrs: [] });
  t.deepEqual(parseAllowance(' loopback , 10.1.0.0/16,,'), { loopback: true, cidrs: ['10.1.0.0/16'] });
  t.deepEqual(parseAllowance('LOOPBACK,10.9.8.7,fd00::/8,::ffff:0:0/96'), {
    loopback: true,
    cidrs: ['10.9.8.7/32', 'fd00::/8', '::ffff:0:0/96'],
  });
  t.deepEqual(parseAllowance('none'), { loopback: false, cidrs: [] });
  t.throws(() => parseAllowance('loopback,banana'), { message: /"banana".*loopback.*CIDR/ });
  t.throws(() => parseAllowance('10.0.0.0/33'), { message: /"10\.0\.0\.0\/33"/ });
  t.throws(() => parseAllowance('10.0.0/8'), { message: /"10\.0\.0\/8"/ }, 'no shorthand IPv4 forms');
  t.throws(() => parseAllowance('fd00::/129'), { message: /fd00::\/129/ });
});

// ---- the guard at connect time ----
test.serial(
  'when a name resolves to a private or metadata address, then it is refused after resolution, before any connection',
  async (t) => {
    for (const [address, why] of [
      ['10.0.0.7', 'a private address'],
      ['169.254.169.254', 'a link-local address (cloud metadata)'],
      ['fd00::7', 'a private (unique local) address'],
    ] as const) {
      const stub = stubLookup([address]);
      const before = attempts.length;
      const out = await deliverJson('http://hooks.example.test/in', body, {}, opts({ allow: loopbackAllowed, lookup: stub.lookup }));
      t.deepEqual(stub.asked, ['hooks.example.test'], 'the stub resolver was consulted');
      t.like(out, { ok: false, status: null, retryable: false, error: `refused: hooks.example.test resolves to ${why}` });
      t.deepEqual(
        attempts.slice(before).filter((a) => a.host !== 'hooks.example.test'),
        [],
        'the socket never got an address',
      );
    }
  },
);

test.serial(
  'when a name resolves to several addresses and one is private, then the name is refused (no falling through to the others)',
  async (t) => {
    const stub = stubLookup(['8.8.8.8', '10.0.0.7']);
    const out = await deliverJson('https://mixed.example.test/in', body, {}, opts({ lookup: stub.lookup }));
    t.like(out, { ok: false, status: null, retryable: false, error: 'refused: mixed.example.test resolves to a private address' });
  },
);

test.serial(
  'when a stub resolves a name to 127.0.0.1 and loopback is allowed, then the delivery reaches the loopback server',
  async (t) => {
    const r = await receiver((_req, res) => res.writeHead(202).end('queued'));
    t.teardown(r.close);
    const stub = stubLookup(['127.0.0.1']);
    const out = await deliverJson(`http://receiver.example.test:${r.port}/in`, body, {}, opts({ lookup: stub.lookup }));
    t.like(out, { ok: true, status: 202, responseExcerpt: 'queued' });
    t.deepEqual(stub.asked, ['receiver.example.test']);
    t.is(r.requests[0]?.headers.host, `receiver.example.test:${r.port}`);
  },
);

test.serial('when the URL host is a literal private or metadata address, then it is refused at once: no lookup, no socket', async (t) => {
  const stub = stubLookup(['127.0.0.1']);
  for (const [url, address] of [
    ['http://10.0.0.1/hook', '10.0.0.1'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['http://[fd00::1]:8080/hook', 'fd00::1'],
    ['http://[::ffff:10.0.0.1]/hook', '::ffff:a00:1'],
    ['https://192.168.0.1/hook', '192.168.0.1'],
    ['http://0x0a.0.0.1/hook', '10.0.0.1'],
  ] as const) {
    const before = attempts.length;
    const out = await deliverJson(url, body, {}, opts({ allow: loopbackAllowed, lookup: stub.lookup }));
    t.like(out, { ok: false, status: null, retryable: false }, url);
    t.true((out.error ?? '').startsWith(`refused: ${address} is `), `${url}: ${out.error}`);
    t.true(out.durationMs < 500, `${url} refused at once (${out.durationMs} ms)`);
    t.deepEqual(attempts.slice(before), [], `${url}: no socket was asked to connect`);
  }
  t.deepEqual(stub.asked, [], 'a literal address is never resolved');
});

// ---- answers, limits and failures ----
test.serial('when the receiver redirects, then the redirect is not followed and the 3xx is a retryable failure', async (t) => {
  const r = await receiver((req, res) => {
    if (req.url === '/moved') res.writeHead(302, { location: '/elsewhere' }).end();
    else res.writeHead(200).end('followed');
  });
  t.teardown(r.close);
  const out = await deliverJson(`${r.url}/moved`, body, {}, opts());
  t.like(out, { ok: false, status: 302, retryable: true });
  t.regex(out.error ?? '', /302.*redirect.*not followed/);
  t.deepEqual(
    r.requests.map((q) => q.url),
    ['/moved'],
  );
});

test.serial('when the receiver answers 500 or 429, then the delivery is retryable; 410 is not', async (t) => {
  const r = await receiver((req, res) => {
    const status = Number(req.url?.slice(1));
    res.writeHead(status).end(`status ${status}`);
  });
  t.teardown(r.close);
  const five = await deliverJson(`${r.url}/500`, body, {}, opts());
  t.like(five, { ok: false, status: 500, retryable: true, responseExcerpt: 'status 500', error: 'HTTP 500' });
  const many = await deliverJson(`${r.url}/429`, body, {}, opts());
  t.like(many, { ok: false, status: 429, retryable: true });
  const notFound = await deliverJson(`${r.url}/404`, body, {}, opts());
  t.like(notFound, { ok: false, status: 404, retryable: true });
  const gone = await deliverJson(`${r.url}/410`, body, {}, opts());
  t.like(gone, { ok: false, status: 410, retryable: false, responseExcerpt: 'status 410' });
  t.regex(gone.error ?? '', /410 Gone/);
});

test.serial('when the receiver never answers, then the attempt times out after timeoutMs and is retryable', async (t) => {
  const r = await receiver(() => {
    /* never answers */
  });
  t.teardown(r.close);
  const out = await deliverJson(`${r.url}/hang`, body, {}, opts({ timeoutMs: 300 }));
  t.like(out, { ok: false, status: null, responseExcerpt: null, retryable: true });
  t.regex(out.error ?? '', /^timed out after 300 ms/);
  t.true(out.durationMs >= 280 && out.durationMs < 2000, `${out.durationMs} ms`);
});

test.serial(
  'when the receiver sends its status and then stalls the body, then the status decides and the wait ends at timeoutMs',
  async (t) => {
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    t.teardown(r.close);
    const out = await deliverJson(`${r.url}/stall`, body, {}, opts({ timeoutMs: 300 }));
    t.like(out, { ok: true, status: 200, responseExcerpt: 'partial', error: null, retryable: false });
    t.true(out.durationMs >= 280 && out.durationMs < 2000, `${out.durationMs} ms`);
  },
);

test.serial('when the response is 200 KB, then the excerpt is its first 1 KB', async (t) => {
  const big = 'x'.repeat(200 * 1024);
  const r = await receiver((_req, res) => res.writeHead(200).end(big));
  t.teardown(r.close);
  const out = await deliverJson(`${r.url}/big`, body, {}, opts());
  t.like(out, { ok: true, status: 200, error: null });
  t.is(out.responseExcerpt, big.slice(0, 1024));
});

test.serial(
  'when the response never ends, then reading stops near 64 KB and the connection is closed, well before the timeout',
  async (t) => {
    let written = 0;
    let closedByClient = false;
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'y');
      // Bounded: at most 64 MB, written as fast as the client reads; never ends by itself.
      const pump = (): void => {
        while (written < 64 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => {
        closedByClient = true;
      });
      pump();
    });
    t.teardown(r.close);
    const before = attempts.length;
    const out = await deliverJson(`${r.url}/endless`, body, {}, opts({ timeoutMs: 5000 }));
    t.like(out, { ok: true, status: 200, error: null });
    t.is(out.responseExcerpt, 'y'.repeat(1024));
    t.true(out.durationMs < 2500, `returned after ${out.durationMs} ms, not at the timeout`);
    await sleep(100);
    t.true(closedByClient, 'the sender destroyed the response stream');
    // The kernel's loopback buffers take megabytes whatever the client does; what the sender read
    // off its own socket is what the limit bounds (64 KB, plus undici's one read-ahead buffer).
    const sockets = [
      ...new Set(
        attempts
          .slice(before)
          .filter((a) => a.port === r.port)
          .map((a) => a.socket),
      ),
    ];
    const [reader, ...others] = sockets.sort((a, b) => b.bytesWritten - a.bytesWritten);
    t.log(`the server wrote ${written} bytes; the sender read ${reader?.bytesRead}`);
    t.true(reader!.bytesRead >= 64 * 1024 && reader!.bytesRead <= 64 * 1024 + 128 * 1024, `the sender read ${reader?.bytesRead} bytes`);
    t.true(reader!.destroyed);
    // undici (nodejs/undici#5845) opens one spurious connection after a response is aborted mid-body
    // and drops it unused: it must carry nothing, above all not the POST again.
    t.true(others.length <= 1);
    for (const other of others) t.is(other.bytesWritten, 0, 'a spurious connection after the abort sends nothing');
    t.is(r.requests.length, 1, 'delivered once');
  },
);

test.serial(
  'when a multi-byte character straddles the 1 KB cut, then the excerpt ends before it instead of with a broken one',
  async (t) => {
    const r = await receiver((_req, res) => res.writeHead(500).end('€'.repeat(1000)));
    t.teardown(r.close);
    const out = await deliverJson(`${r.url}/euro`, body, {}, opts());
    t.is(out.responseExcerpt, '€'.repeat(341));
  },
);

test.serial('when the port is closed, then the attempt fails as a refused connection and is retryable', async (t) => {
  const r = await receiver(() => undefined);
  const url = r.url;
  await r.close();
  const out = await deliverJson(`${url}/closed`, body, {}, opts());
  t.like(out, { ok: false, status: null, responseExcerpt: null, error: 'connection refused', retryable: true });
});

test.serial('when two deliveries go to one receiver, then the second reuses the pooled connection', async (t) => {
  const r = await receiver((_req, res) => res.writeHead(200).end('ok'));
  t.teardown(r.close);
  t.like(await deliverJson(`${r.url}/a`, body, {}, opts()), { ok: true });
  // undici hands the socket back to its pool a tick after the body ends; sent at once, the
  // second request would open a connection of its own.
  await sleep(20);
  t.like(await deliverJson(`${r.url}/b`, body, {}, opts()), { ok: true });
  t.is(r.connections, 1);
});

test.serial('when the name does not resolve, then the attempt fails as a DNS error and is retryable', async (t) => {
  const lookup: net.LookupFunction = (hostname, _options, callback) =>
    process.nextTick(() =>
      (callback as LookupCallback)(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), ''),
    );
  const out = await deliverJson('https://nowhere.example.test/in', body, {}, opts({ lookup }));
  t.like(out, { ok: false, status: null, retryable: true, error: 'DNS: nowhere.example.test not found' });
});

test.serial('when the URL is not an http(s) URL, then the outcome says so and is not retryable', async (t) => {
  for (const url of ['not a url', 'ftp://127.0.0.1/x', 'file:///etc/passwd', 'javascript:alert(1)', 'http://user:secret@127.0.0.1:9/x']) {
    const out = await deliverJson(url, body, {}, opts());
    t.like(out, { ok: false, status: null, retryable: false }, url);
    t.regex(out.error ?? '', /^bad URL: /, url);
    t.false((out.error ?? '').includes('secret'), 'a credential is not repeated in the error');
  }
});

test.serial('when the options are wrong, then deliverJson throws: a programming error, not an outcome', async (t) => {
  await t.throwsAsync(() => deliverJson('http://127.0.0.1:9/', body, {}, opts({ timeoutMs: 0 })), { message: /timeoutMs/ });
  await t.throwsAsync(() => deliverJson('http://127.0.0.1:9/', body, { 'x-bad': 'a\r\nb' }, opts()), { message: /header/i });
});
