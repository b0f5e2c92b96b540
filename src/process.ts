import type { Logger } from './logger.js';

/**
 * Runs `shutdown` once on SIGTERM or SIGINT (Heroku sends SIGTERM and kills after 30 s), then
 * exits. A second signal exits at once.
 */
export function onShutdownSignal(log: Logger, shutdown: (signal: string) => Promise<void>): void {
  let shuttingDown = false;
  const handler = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    shuttingDown = true;
    log.info({ signal }, 'shutting down');
    shutdown(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/** Prints a boot failure plainly (config errors are the common case) and exits non-zero. */
export function exitOnBootError(err: unknown): never {
  const message = err instanceof Error ? (err.name === 'ConfigError' ? err.message : `${err.name}: ${err.message}`) : String(err);
  process.stderr.write(`lectern: ${message}\n`);
  process.exit(1);
}
