import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { startHttpServer } from './http/server.js';
import { exitOnBootError, onShutdownSignal } from './process.js';
import { createRuntime } from './runtime.js';

/** The `web` process: Koa only. It never migrates (that is the `release` process). */
async function main(): Promise<void> {
  const config = loadConfig();
  const rt = await createRuntime(config, 'web');
  const http = await startHttpServer(createApp(rt), config.port, config.host);
  rt.log.info({ port: http.port, queueBackend: rt.queues.kind }, 'web listening');
  onShutdownSignal(rt.log, async () => {
    await http.close(config.shutdownTimeoutMs);
    await rt.close();
  });
}

main().catch(exitOnBootError);
