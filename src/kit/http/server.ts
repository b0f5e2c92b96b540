import http from 'node:http';
import net from 'node:net';
import type Koa from 'koa';

export interface RunningServer {
  server: http.Server;
  port: number;
  /**
   * Stops accepting, lets in-flight requests finish (up to `timeoutMs`), closing each
   * connection as its answer ends, then closes. Idle keep-alive connections stay open for
   * `idleGraceMs`, so a request a client had already sent on one is answered (with
   * `Connection: close`) instead of reset; then they are closed.
   */
  close(timeoutMs: number, idleGraceMs?: number): Promise<void>;
}

export interface HttpTimeouts {
  /** The longest a client may take to send a request's headers (then 408, and the connection closes). */
  headersTimeoutMs: number;
  /** The longest a client may take to send a whole request, headers and body. */
  requestTimeoutMs: number;
}

/** The defaults of HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS (docs/configuration.md, "Processes", says why). */
const DEFAULT_TIMEOUTS: HttpTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 };

/**
 * Heroku's Router 2.0 keeps idle connections to a dyno for up to 90 s and reuses them: the server
 * must keep them longer, so that the router, never the server, closes an idle one (a server
 * closing it as the router sends a request on it fails that request).
 */
const KEEP_ALIVE_TIMEOUT_MS = 95_000;

/** How often Node looks for connections past their headers or request timeout (its default, 30 s, would let a 10 s limit run to 40 s). */
const TIMEOUT_CHECK_MS = 1000;

export async function startHttpServer(
  app: Koa<never> | Koa,
  port: number,
  host: string,
  timeouts: HttpTimeouts = DEFAULT_TIMEOUTS,
): Promise<RunningServer> {
  const handle = app.callback();
  // Responses not yet finished: at shutdown each is told to close its connection when it ends.
  const inFlight = new Set<http.ServerResponse>();
  let closingDown = false;
  // Connections whose current answer will close them (the drain): nothing after it is run.
  const closingSockets = new WeakSet<net.Socket>();
  const server = http.createServer(
    {
      // A kept-alive connection waiting for its next request is not held to these: they count
      // from the first byte of a request.
      headersTimeout: Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs),
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
    (req, res) => {
      if (closingDown) {
        // A request pipelined behind one whose answer says `Connection: close`: the connection
        // ends with that answer, so this one would run and never be answered (a POST stored, the
        // client told nothing). Not run: HTTP/1.1 clients retry a request left unanswered on a
        // closed connection.
        if (closingSockets.has(req.socket)) return;
        // A request that arrives on a kept-alive connection during the drain is answered (it was
        // accepted), with `Connection: close`, and its connection ends with the answer.
        closingSockets.add(req.socket);
        res.shouldKeepAlive = false;
      }
      inFlight.add(res);
      res.once('close', () => inFlight.delete(res));
      return handle(req, res);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  const actualPort = addr && typeof addr === 'object' ? addr.port : port;
  let closing: Promise<void> | undefined;
  return {
    server,
    port: actualPort,
    close(timeoutMs, idleGraceMs = 0) {
      closing ??= new Promise<void>((resolve) => {
        closingDown = true;
        // Connections busy with a request would otherwise stay open after their answer
        // (keep-alive), holding close() until they idle out or the drain allowance ends and
        // they are cut, requests and all. An answer whose head is not sent yet says
        // `Connection: close` and ends its connection; one already streaming ends it after.
        for (const res of inFlight) {
          // The socket now: Node takes it from the response before 'finish' listeners run.
          const socket = res.socket;
          if (socket) closingSockets.add(socket);
          if (!res.headersSent) res.shouldKeepAlive = false;
          else res.once('finish', () => socket?.end());
        }
        const timers: NodeJS.Timeout[] = [];
        let finished = false;
        const done = () => {
          if (finished) return;
          finished = true;
          for (const timer of timers) clearTimeout(timer);
          // http.Server's own close: it also stops the timeout checks (the listener is closed
          // already, so this closes nothing else).
          server.close();
          resolve();
        };
        // Idle keep-alive connections: a client may be writing a request on one right now, not
        // knowing of the shutdown. Closing them at once resets that request (the client cannot
        // tell whether it was processed); kept for the grace, the request is answered with
        // `Connection: close`. After the grace each still idle is closed.
        timers.push(setTimeout(() => server.closeIdleConnections(), Math.min(idleGraceMs, timeoutMs)));
        timers.push(
          setTimeout(() => {
            server.closeAllConnections();
            done();
          }, timeoutMs),
        );
        for (const timer of timers) timer.unref();
        // Stop accepting, and hear when the last connection is gone. net.Server's close, not
        // http.Server's: that one also closes every idle connection at once.
        net.Server.prototype.close.call(server, () => done());
      });
      return closing;
    },
  };
}
