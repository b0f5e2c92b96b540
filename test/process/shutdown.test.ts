import net from 'node:net';
import test from 'ava';
import { freePort } from '../../src/platform/util/net.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { hex, request, setupTestRuntime, spawnTs, waitFor, type TestContext } from '../helpers/harness.js';
import { orderFor, orderSetup, type OrderSetup } from '../helpers/orders.js';
import { basic, PASSWORD } from '../helpers/rest.js';

let ctx: TestContext | undefined;
let orders: OrderSetup;
// A tenant that takes orders, for the test that needs a write; made once, on first use.
async function orderTenant(): Promise<{ ctx: TestContext; orders: OrderSetup }> {
  if (!ctx) {
    ctx = await setupTestRuntime();
    orders = await orderSetup(ctx.rt.knex, await ctx.freshTenant('sigterm'), 'sigterm');
  }
  return { ctx, orders };
}
test.after.always(async () => {
  await ctx?.cleanup();
});

/** What opening a new connection gets: `connected`, or the error code. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** A raw keep-alive connection: everything it received, and when the server closed it. */
async function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const state = { received: '', error: undefined as string | undefined };
  socket.on('data', (c: Buffer) => (state.received += c.toString()));
  socket.on('error', (err: NodeJS.ErrnoException) => (state.error = err.code ?? err.message));
  const closedAt = new Promise<number>((r) => socket.once('close', () => r(Date.now())));
  return { socket, state, closedAt };
}

/** A web process on a free port with `env`, once it answers /healthz. */
async function startWeb(env: Record<string, string>) {
  const port = await freePort();
  const web = spawnTs('src/web.ts', [], { PORT: String(port), HOST: '127.0.0.1', ...env });
  await waitFor(
    async () => (await request(port, { path: '/healthz' }).catch(() => undefined))?.status === 200,
    'web to listen',
    30000,
    200,
  );
  return { web, port };
}

/** A keep-alive connection that has had one answer and is idle now. */
async function idleConnection(port: number) {
  const conn = await rawConnection(port);
  conn.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await waitFor(async () => conn.state.received.includes('{"status":"ok"}'), 'the first answer', 5000, 20);
  return conn;
}

test('when web gets SIGTERM, then it stops accepting, finishes the in-flight request and exits 0', async (t) => {
  const { web, port } = await startWeb({ QUEUE_PREFIX: `t${hex()}` });

  // A request in flight: headers and half the body sent, the rest after SIGTERM.
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const body = JSON.stringify({ hello: 'world' });
  socket.write(
    `POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(body.slice(0, 5));
  let response = '';
  socket.on('data', (c: Buffer) => (response += c.toString()));
  const ended = new Promise((r) => socket.once('close', r));
  await new Promise((r) => setTimeout(r, 200));

  const stoppedAt = Date.now();
  web.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  // A connection of its own: the harness's request() may reuse a kept-alive one, which is served during the idle grace.
  t.is(await connectOutcome(port), 'ECONNREFUSED', 'new connections are refused');

  socket.write(body.slice(5));
  await ended;
  t.regex(response, /^HTTP\/1\.1 404 [\s\S]*\{"error":/, 'the in-flight request got its full answer');
  const result = await web.done;
  t.is(result.code, 0);
  t.true(Date.now() - stoppedAt < 30000, "within Heroku's 30 s");
});

test('when web gets SIGTERM, then a keep-alive connection gets its in-flight answer with Connection: close and is closed, so the drain ends at once', async (t) => {
  // A long drain allowance: the process must not need it.
  const { web, port } = await startWeb({ QUEUE_PREFIX: `t${hex()}`, SHUTDOWN_TIMEOUT_MS: '20000' });

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
  socket.write(
    `POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
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

/**
 * A web process on the orders tenant's database with one idle keep-alive connection (a first GET
 * answered), SIGTERM sent and the shutdown begun: what a client meets writing its next request.
 */
async function idleConnectionAtShutdown(t: { regex: (s: string, r: RegExp, m?: string) => void }) {
  const { ctx, orders } = await orderTenant();
  const { web, port } = await startWeb({ DATABASE_URL: ctx.rt.databaseUrl, QUEUE_PREFIX: ctx.rt.config.queuePrefix, LOG_LEVEL: 'info' });
  const conn = await idleConnection(port);
  t.regex(conn.state.received, /connection: keep-alive/i, 'a keep-alive connection, idle now');
  conn.state.received = '';
  web.child.kill('SIGTERM');
  await waitFor(async () => /shutting down/.test(web.output().stdout), 'the process to start shutting down', 5000, 1);
  /** An order's POST as raw HTTP. */
  const post = (o: object) => {
    const body = JSON.stringify(o);
    return (
      `POST /api/v2/orders HTTP/1.1\r\nHost: ${orders.tenant.slug}.localhost\r\nAuthorization: ${basic(orders.email, PASSWORD)}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    );
  };
  /** How many orders with this external id are stored. */
  const stored = async (o: { external_id: string }) =>
    Number(
      (
        await withTenant(ctx.rt.knex, orders.tenant, (db) =>
          db('opportunities').where({ external_id: o.external_id }).count('* as n').first(),
        )
      )?.n,
    );
  return { orders, web, conn, post, stored };
}

test('when web gets SIGTERM while a keep-alive connection is idle, then a POST written on it moments later gets its full answer with Connection: close and is committed once', async (t) => {
  const { orders, web, conn, post, stored } = await idleConnectionAtShutdown(t);
  // The client writes its next request just after the process began shutting down, as a client
  // that cannot know about the SIGTERM does.
  await new Promise((r) => setTimeout(r, 5));
  const order = orderFor(orders, 1);
  conn.socket.write(post(order));
  await conn.closedAt;
  t.is(conn.state.error, undefined, 'the connection was not reset');
  const [head = '', answer = ''] = conn.state.received.split('\r\n\r\n');
  t.regex(head, /^HTTP\/1\.1 200 /, `the POST was answered: ${conn.state.received.slice(0, 300)}`);
  t.regex(head, /\r\nconnection: close(\r\n|$)/i, 'telling the client not to reuse the connection');
  t.is(Buffer.byteLength(answer), Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]), 'the whole answer');
  t.true(Number(JSON.parse(answer).order_id) > 0);
  t.is(await stored(order), 1, 'the order was stored once');
  t.is((await web.done).code, 0);
});

test('when web gets SIGTERM and two POSTs are pipelined on an idle keep-alive connection, then the first is answered and the second is not run (a client retries an unanswered request; it must not be stored unanswered)', async (t) => {
  const { orders, web, conn, post, stored } = await idleConnectionAtShutdown(t);
  const [first, second] = [orderFor(orders, 101), orderFor(orders, 102)];
  conn.socket.write(post(first) + post(second));
  await conn.closedAt;
  t.is((conn.state.received.match(/^HTTP\/1\.1 /gm) ?? []).length, 1, 'one answer, on a connection that then closes');
  t.regex(conn.state.received, /^HTTP\/1\.1 200 [\s\S]*\r\nconnection: close\r\n/i);
  await web.done;
  t.is(await stored(first), 1, 'the answered order was stored');
  t.is(await stored(second), 0, 'the unanswered one was not run');
});

test('when web gets SIGTERM, then a keep-alive connection that stays idle is closed after the idle grace, and the process exits without waiting for its drain allowance', async (t) => {
  const { web, port } = await startWeb({
    QUEUE_PREFIX: `t${hex()}`,
    SHUTDOWN_TIMEOUT_MS: '20000',
    SHUTDOWN_IDLE_GRACE_MS: '1000',
  });
  const conn = await idleConnection(port);

  const stoppedAt = Date.now();
  web.child.kill('SIGTERM');
  const closedAfter = (await conn.closedAt) - stoppedAt;
  t.true(
    closedAfter >= 900,
    `the idle connection was kept for the grace, for a request already on its way (closed after ${closedAfter} ms)`,
  );
  t.true(closedAfter < 5000, `then closed (after ${closedAfter} ms)`);
  t.is((await web.done).code, 0);
  t.true(Date.now() - stoppedAt < 8000, 'the process did not wait for SHUTDOWN_TIMEOUT_MS');
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
