import { createApp } from './app/web.js';
import { loadConfig } from './platform/config.js';
import { startHttpServer } from './kit/http/server.js';
import { checkPortFree, listenError } from './kit/http/port.js';
import { exitOnBootError, onShutdownSignal } from './platform/process.js';
import { createRuntime } from './app/runtime.js';

/** How this process is started (`node dist/src/web.js` behind it), for the message of a taken port. */
const WEB_COMMAND = 'npm run start:web';

/** The `web` process: Koa only. It never migrates (that is the `release` process). */
async function main(): Promise<void> {
  const config = loadConfig();
  await checkPortFree(config.port, config.host, WEB_COMMAND);
  const rt = await createRuntime(config, 'web');
  const http = await startHttpServer(createApp(rt), config.port, config.host, config).catch(async (err: unknown) => {
    await rt.close();
    throw listenError(err, config.port, WEB_COMMAND);
  });
  // Before saying it listens: a SIGTERM that comes before a handler is installed kills the
  // process at once (the signal's default), without draining anything.
  onShutdownSignal(rt.log, async () => {
    await http.close(config.shutdownTimeoutMs, config.shutdownIdleGraceMs);
    await rt.close();
  });
  rt.log.info({ port: http.port, queueBackend: rt.queues.kind }, 'web listening');
}

main().catch(exitOnBootError);
