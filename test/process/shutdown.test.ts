import net from 'node:net';
import test from 'ava';
import { freePort } from '../../src/platform/util/net.js';
import { hex, request, spawnTs, waitFor } from '../helpers/harness.js';

test('when web gets SIGTERM, then it stops accepting, finishes the in-flight request and exits 0', async (t) => {
  const port = await freePort();
  const web = spawnTs('src/web.ts', [], { PORT: String(port), HOST: '127.0.0.1', QUEUE_PREFIX: `t${hex()}` });
  await waitFor(async () => (await request(port, { path: '/healthz' }).catch(() => undefined))?.status === 200, 'web to listen', 30000, 200);

  // A request in flight: headers and half the body sent, the rest after SIGTERM.
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const body = JSON.stringify({ hello: 'world' });
  socket.write(`POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
  socket.write(body.slice(0, 5));
  let response = '';
  socket.on('data', (c: Buffer) => (response += c.toString()));
  const ended = new Promise((r) => socket.once('close', r));
  await new Promise((r) => setTimeout(r, 200));

  const stoppedAt = Date.now();
  web.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  await t.throwsAsync(request(port, { path: '/healthz' }), undefined, 'new connections are refused');

  socket.write(body.slice(5));
  await ended;
  t.regex(response, /^HTTP\/1\.1 404 [\s\S]*\{"error":/, 'the in-flight request got its full answer');
  const result = await web.done;
  t.is(result.code, 0);
  t.true(Date.now() - stoppedAt < 30000, 'within Heroku\'s 30 s');
});

test('when web gets SIGTERM, then a keep-alive connection gets its in-flight answer with Connection: close and is closed, so the drain ends at once', async (t) => {
  const port = await freePort();
  // A long drain allowance: the process must not need it.
  const web = spawnTs('src/web.ts', [], { PORT: String(port), HOST: '127.0.0.1', QUEUE_PREFIX: `t${hex()}`, SHUTDOWN_TIMEOUT_MS: '20000' });
  await waitFor(async () => (await request(port, { path: '/healthz' }).catch(() => undefined))?.status === 200, 'web to listen', 30000, 200);

  // One keep-alive connection: a first request answered, then a second in flight (half its body sent).
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let received = '';
  socket.on('data', (c: Buffer) => (received += c.toString()));
  const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now())));
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await waitFor(async () => received.includes('{"status":"ok"}'), 'the first answer', 5000, 20);
  t.regex(received, /connection: keep-alive/i, 'a keep-alive connection');
  received = '';
  const body = JSON.stringify({ hello: 'world' });
  socket.write(`POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
  await new Promise((r) => setTimeout(r, 200));

  const stoppedAt = Date.now();
  web.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  socket.write(body.slice(5));
  const closedAt = await closed;
  t.regex(received, /^HTTP\/1\.1 404 /, 'the in-flight request got its answer');
  t.regex(received, /\r\nconnection: close\r\n/i, 'telling the client not to reuse the connection');
  const result = await web.done;
  t.is(result.code, 0);
  t.true(closedAt - stoppedAt < 5000, `the server closed the connection after that answer (${closedAt - stoppedAt} ms)`);
  t.true(Date.now() - stoppedAt < 10000, 'and exited without waiting for its drain allowance');
});

test('when the worker process gets SIGTERM, then it closes its workers and exits 0', async (t) => {
  const worker = spawnTs('workers/main.ts', [], { QUEUE_PREFIX: `t${hex()}`, LOG_LEVEL: 'info' });
  await waitFor(async () => /workers started/.test(worker.output().stdout), 'worker to start', 30000, 200);
  const stoppedAt = Date.now();
  worker.child.kill('SIGTERM');
  const result = await worker.done;
  t.is(result.code, 0, `exited by ${result.signal ?? 'code'}; its last output: ${result.stdout.slice(-1500)}${result.stderr.slice(-1500)}`);
  t.regex(result.stdout, /shutting down/);
  t.true(Date.now() - stoppedAt < 30000);
});
