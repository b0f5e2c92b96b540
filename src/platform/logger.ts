import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** Longest text of any one field of a logged error (a message may carry a statement with 70,000 parameters). */
const MAX_ERROR_TEXT = 2000;

const clip = (v: unknown) =>
  typeof v === 'string' && v.length > MAX_ERROR_TEXT
    ? `${v.slice(0, MAX_ERROR_TEXT)}... [${v.length - MAX_ERROR_TEXT} more characters]`
    : v;

/**
 * Errors as logged: pino's standard form, with every text field cut to a bounded prefix and
 * bound values left out (they are request data, and may be tens of thousands of them).
 */
function boundedError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  if (!out || typeof out !== 'object') return out;
  const bounded: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(out)) if (k !== 'bindings' && k !== 'parameters') bounded[k] = clip(v);
  return bounded;
}

/**
 * Structured JSON logs on stdout (or `destination`). Credentials never reach a log line: the
 * redaction list covers every header and field that can carry a secret; errors are bounded.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, name = 'lectern', destination: 1 | 2 | DestinationStream = 1): Logger {
  return pino(
    {
      name,
      level: config.logLevel,
      serializers: { err: boundedError },
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
    typeof destination === 'number' ? pino.destination({ fd: destination, sync: destination === 2 }) : destination,
  );
}
