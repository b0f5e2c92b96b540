import { loadConfig } from '../src/platform/config.js';
import { exitOnBootError, onShutdownSignal } from '../src/platform/process.js';
import { createRuntime } from '../src/app/runtime.js';
import { startWorkers } from '../src/app/workers.js';

/** The `worker` process: BullMQ workers and the outbox relay. Scaled separately from web. */
async function main(): Promise<void> {
  const config = loadConfig();
  const rt = await createRuntime(config, 'worker');
  const running = startWorkers(rt);
  // Before saying it has started: a SIGTERM that comes before a handler is installed kills the
  // process at once (the signal's default), without closing anything.
  onShutdownSignal(rt.log, async () => {
    await running.close();
    await rt.close();
  });
  rt.log.info({ queueBackend: rt.queues.kind, concurrency: config.workerConcurrency }, 'workers started');
}

main().catch(exitOnBootError);
