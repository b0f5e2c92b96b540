import http from 'node:http';
import type Koa from 'koa';

export interface RunningServer {
  server: http.Server;
  port: number;
  /**
   * Stops accepting, lets in-flight requests finish (up to `timeoutMs`), closing each
   * connection as its answer ends, then closes.
   */
  close(timeoutMs: number): Promise<void>;
}

export async function startHttpServer(app: Koa<never> | Koa, port: number, host: string): Promise<RunningServer> {
  const handle = app.callback();
  // Responses not yet finished: at shutdown each is told to close its connection when it ends.
  const inFlight = new Set<http.ServerResponse>();
  let closingDown = false;
  const server = http.createServer((req, res) => {
    // A request that arrives on a kept-alive connection during the drain is answered (it was
    // accepted), with `Connection: close`, and its connection ends with the answer.
    if (closingDown) res.shouldKeepAlive = false;
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    return handle(req, res);
  });
  // Behind Heroku's router keep-alive sockets must outlive the router's idle timeout.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
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
    close(timeoutMs) {
      closing ??= new Promise<void>((resolve) => {
        closingDown = true;
        // Connections busy with a request would otherwise stay open after their answer
        // (keep-alive), holding close() until they idle out or the drain allowance ends and
        // they are cut, requests and all. An answer whose head is not sent yet says
        // `Connection: close` and ends its connection; one already streaming ends it after.
        for (const res of inFlight) {
          if (!res.headersSent) res.shouldKeepAlive = false;
          else res.once('finish', () => res.socket?.end());
        }
        const force = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, timeoutMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        // Idle keep-alive sockets would otherwise hold close() open until they time out.
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
