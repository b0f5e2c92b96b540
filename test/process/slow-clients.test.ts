import net from 'node:net';
import test from 'ava';
import { freePort } from '../../src/platform/util/net.js';
import { hex, request, spawnTs, waitFor } from '../helpers/harness.js';

/**
 * A slow client may hold a connection of the web process only as long as HEADERS_TIMEOUT_MS and
 * REQUEST_TIMEOUT_MS allow; a kept-alive connection waiting for its next request is not a slow
 * client (Heroku's router keeps them for up to 90 s). Small values here, so the tests are quick.
 */

let web: ReturnType<typeof spawnTs>;
let port: number;

test.before(async () => {
  port = await freePort();
  web = spawnTs('src/web.ts', [], {
    PORT: String(port),
    HOST: '127.0.0.1',
    QUEUE_PREFIX: `t${hex()}`,
    HEADERS_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'info',
  });
  await waitFor(
    async () => (await request(port, { path: '/healthz' }).catch(() => undefined))?.status === 200,
    'web to listen',
    30000,
    200,
  );
});
test.after.always(async () => {
  web?.child.kill('SIGTERM');
  await web?.done;
});

/** Opens a connection and writes `first`, then `rest` one byte every 100 ms until the server closes it or `rest` runs out. */
async function dribble(first: string, rest: string) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let received = '';
  socket.on('data', (c: Buffer) => (received += c.toString()));
  socket.on('error', () => undefined);
  const openedAt = Date.now();
  let closed = false;
  const closedAt = new Promise<number>((r) => socket.once('close', () => ((closed = true), r(Date.now()))));
  socket.write(first);
  for (const ch of rest) {
    await new Promise((r) => setTimeout(r, 100));
    if (closed) break;
    socket.write(ch);
  }
  const cutAfter = (await Promise.race([closedAt, new Promise<number>((r) => setTimeout(() => r(Number.NaN), 1000))])) - openedAt;
  socket.destroy();
  return { cutAfter, received: () => received };
}

test('when a client sends its headers too slowly, then it is answered 408 and cut after HEADERS_TIMEOUT_MS', async (t) => {
  // 60 header bytes at 10 a second: 6 s, far past the 1 s allowed.
  const slow = await dribble('POST /healthz HTTP/1.1\r\nHost: localhost\r\n', `X-Slow: ${'a'.repeat(50)}\r\n\r\n`);
  t.true(slow.cutAfter >= 900 && slow.cutAfter < 3000, `cut after ${slow.cutAfter} ms`);
  t.regex(slow.received(), /^HTTP\/1\.1 408 /);
});

test('when a client sends its body too slowly, then it is answered 408 and cut after REQUEST_TIMEOUT_MS', async (t) => {
  const body = JSON.stringify({ slow: 'a'.repeat(60) });
  const slow = await dribble(
    `POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
  );
  t.true(slow.cutAfter >= 1900 && slow.cutAfter < 4000, `cut after ${slow.cutAfter} ms`);
  t.regex(slow.received(), /^HTTP\/1\.1 408 /);
});

test.serial('when a request is cut by the request timeout, then the log says 408 in one line and nothing raw reaches stderr', async (t) => {
  const body = JSON.stringify({ slow: 'b'.repeat(40) });
  await dribble(
    `POST /healthz?cut=1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
  );
  await waitFor(
    async () => web.output().stdout.includes('cut=1') || web.output().stdout.includes('"status":408'),
    'the access log line',
    5000,
    100,
  );
  const lines = web
    .output()
    .stdout.split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; status?: number; path?: string });
  t.true(
    lines.some((l) => l.msg === 'request' && l.status === 408),
    JSON.stringify(lines.filter((l) => l.msg === 'request')),
  );
  t.notRegex(web.output().stderr, /ERR_HTTP_REQUEST_TIMEOUT|\n\s+at /, 'no raw stack on stderr');
});

test('when a kept-alive connection waits longer than HEADERS_TIMEOUT_MS for its next request, then it stays open and serves it', async (t) => {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let received = '';
  let closed = false;
  socket.on('data', (c: Buffer) => (received += c.toString()));
  socket.once('close', () => (closed = true));
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await waitFor(async () => received.includes('{"status":"ok"}'), 'the first answer', 5000, 20);
  received = '';
  await new Promise((r) => setTimeout(r, 3000));
  t.false(closed, 'the idle connection is still open');
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await waitFor(async () => received.includes('{"status":"ok"}'), 'the second answer', 5000, 20);
  t.regex(received, /^HTTP\/1\.1 200 /);
  socket.destroy();
});
