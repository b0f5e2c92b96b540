import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/**
 * Structured JSON logs on stdout. Credentials never reach a log line: the redaction list
 * covers every header and field that can carry a secret.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, name = 'lectern', destination: 1 | 2 = 1): Logger {
  return pino(
    {
    name,
    level: config.logLevel,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.client_secret',
        '*.access_token',
        '*.refresh_token',
        '*.token',
      ],
      censor: '[redacted]',
    },
    },
    pino.destination({ fd: destination, sync: destination === 2 }),
  );
}
