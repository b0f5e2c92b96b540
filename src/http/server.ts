import http from 'node:http';
import type Koa from 'koa';

export interface RunningServer {
  server: http.Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to `timeoutMs`), then closes. */
  close(timeoutMs: number): Promise<void>;
}

export async function startHttpServer(app: Koa<never> | Koa, port: number, host: string): Promise<RunningServer> {
  const server = http.createServer(app.callback());
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
