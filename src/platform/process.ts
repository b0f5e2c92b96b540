import type { Logger } from './logger.js';

/**
 * A signal this soon after the first is the same Ctrl-C delivered again, not a second press:
 * a terminal signals the whole process group, and `npm start` and tsx each pass the signal on
 * to their child as well, so one Ctrl-C reaches this process two or three times within a few
 * milliseconds.
 */
const SAME_SIGNAL_MS = 1000;

/**
 * Runs `shutdown` once on SIGTERM or SIGINT (Heroku sends SIGTERM and kills after 30 s), then
 * exits. A second signal (a second Ctrl-C, a second or more after the first) exits at once.
 */
export function onShutdownSignal(log: Logger, shutdown: (signal: string) => Promise<void>): void {
  let shuttingDown = false;
  let firstAt = 0;
  const handler = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      if (Date.now() - firstAt < SAME_SIGNAL_MS) return;
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    shuttingDown = true;
    firstAt = Date.now();
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
