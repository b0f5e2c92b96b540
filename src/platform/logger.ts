import { createRequire } from 'node:module';
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
 * How log lines look on a terminal (pino-pretty's options): one line each, the time of day, and a
 * request as `request GET /path 200 3.1ms [tenant]`; colours as pino-pretty decides (a terminal, not NO_COLOR). What the line then leaves out (the process,
 * the host, the request id) is in the JSON lines every other destination gets.
 */
export const PRETTY_OPTIONS = {
  singleLine: true,
  translateTime: 'SYS:HH:MM:ss',
  ignore: 'pid,hostname,name,requestId,method,path,status,ms,tenant',
  messageFormat:
    '{msg}{if method} {method}{end}{if path} {path}{end}{if status} {status}{end}{if ms} {ms}ms{end}{if tenant} [{tenant}]{end}',
};

/** pino-pretty's entry, when it is installed (a dependency for terminals only: without it logs stay JSON). */
export function prettyTarget(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('pino-pretty');
  } catch {
    return undefined;
  }
}

/**
 * Whether logs written to `fd` are for a person: the standard output of a terminal, outside
 * production. Anything else (a pipe, a file, a log drain, production) gets JSON, one object a line.
 */
export function logsForPeople(env: Config['env'] | undefined, fd: 1 | 2 | DestinationStream, isTty = process.stdout.isTTY): boolean {
  return fd === 1 && env !== 'production' && isTty === true;
}

/**
 * Structured JSON logs on stdout (or `destination`). Credentials never reach a log line: the
 * redaction list covers every header and field that can carry a secret; errors are bounded.
 * On a terminal outside production (see {@link logsForPeople}) the lines go through pino-pretty,
 * pino's own prettifier, in its worker thread (a transport), when it is installed.
 */
export function createLogger(
  config: Pick<Config, 'logLevel'> & Partial<Pick<Config, 'env'>>,
  name = 'lectern',
  destination: 1 | 2 | DestinationStream = 1,
): Logger {
  const pretty = logsForPeople(config.env, destination) ? prettyTarget() : undefined;
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
    pretty
      ? pino.transport({ target: pretty, options: { ...PRETTY_OPTIONS, destination: 1 } })
      : typeof destination === 'number'
        ? pino.destination({ fd: destination, sync: destination === 2 })
        : destination,
  );
}
