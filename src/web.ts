import { createApp } from './app/web.js';
import { loadConfig } from './platform/config.js';
import { startHttpServer } from './kit/http/server.js';
import { exitOnBootError, onShutdownSignal } from './platform/process.js';
import { createRuntime } from './app/runtime.js';

/** The `web` process: Koa only. It never migrates (that is the `release` process). */
async function main(): Promise<void> {
  const config = loadConfig();
  const rt = await createRuntime(config, 'web');
  const http = await startHttpServer(createApp(rt), config.port, config.host, config);
  // Before saying it listens: a SIGTERM that comes before a handler is installed kills the
  // process at once (the signal's default), without draining anything.
  onShutdownSignal(rt.log, async () => {
    await http.close(config.shutdownTimeoutMs, config.shutdownIdleGraceMs);
    await rt.close();
  });
  rt.log.info({ port: http.port, queueBackend: rt.queues.kind }, 'web listening');
}

main().catch(exitOnBootError);
