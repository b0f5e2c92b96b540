import { createTransport } from 'nodemailer';
import type { Logger } from './logger.js';

/** A plain-text e-mail notice (a webhook that failed or was disabled, for instance). */
export interface Notice {
  to: string[];
  subject: string;
  text: string;
}

/** What became of one notice. `error` is one line with no credentials or SMTP URL in it. */
export interface SendResult {
  sent: boolean;
  via: 'smtp' | 'log';
  error?: string;
}

/** Sends notices over SMTP, or logs them when no SMTP server is configured. */
export interface Mailer {
  /** Never rejects: a failure is `{ sent: false, error }`, and is logged as a warning. */
  send(notice: Notice): Promise<SendResult>;
  /** Releases the transport; a later `send` resolves as not sent. */
  close(): void;
}

export interface MailerOptions {
  /** `SMTP_URL`: `smtp://` or `smtps://`, credentials as `user:pass@` (percent-encoded). Unset: notices go to the log. */
  smtpUrl: string | undefined;
  /** Sender address (`Name <address>` allowed). */
  from: string;
  log: Logger;
  /**
   * Each of connect, greeting and an idle socket may take this long (default 10 s), a whole send
   * three times it: nodemailer's own defaults (2 and 10 minutes) would let one dead SMTP server
   * hold a worker for a quarter of an hour.
   */
  timeoutMs?: number;
}

/** Recipients per notice: enough for a team, too few for a notice to become a mailing. */
export const MAX_RECIPIENTS = 20;
const MAX_SUBJECT = 200;
const MAX_ERROR = 300;
/** Longest text logged when there is no SMTP server (a log line stays bounded). */
const MAX_LOGGED_TEXT = 8000;

// One @, nothing that an address parser reads as a second address, a display name, a comment
// or a header break (commas, semicolons, angle brackets, quotes, parentheses, whitespace).
const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*$/u;

/** Usable recipients: trimmed, well-formed, first spelling of each (case-insensitive), at most 20. */
function recipients(to: unknown[]): { list: string[]; dropped: number } {
  const seen = new Set<string>();
  const list: string[] = [];
  let dropped = 0;
  for (const raw of to) {
    const address = typeof raw === 'string' ? raw.trim() : '';
    if (!ADDRESS.test(address) || address.length > 254) {
      dropped++;
      continue;
    }
    const key = address.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    if (list.length < MAX_RECIPIENTS) list.push(address);
    else dropped++;
  }
  return { list, dropped };
}

/** One line: a header break would otherwise be folded or refused by the transport. */
function subjectLine(subject: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const line = subject.replace(/\s*[\r\n]+\s*/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
  return line.length > MAX_SUBJECT ? `${line.slice(0, MAX_SUBJECT - 3)}...` : line;
}

/** The spellings of the SMTP URL's secrets that an error message could carry. */
function secretsOf(url: URL, smtpUrl: string): string[] {
  const user = safeDecode(url.username);
  const pass = safeDecode(url.password);
  const secrets = [smtpUrl, url.password, pass];
  if (pass) {
    // What AUTH PLAIN and AUTH LOGIN put on the wire, should a server quote its input back.
    secrets.push(Buffer.from(pass).toString('base64'), Buffer.from(`\0${user}\0${pass}`).toString('base64'));
  }
  // Longest first, so a secret containing another is removed whole.
  return secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A send failure as one bounded line, with the URL and credentials cut out. */
function describe(err: unknown, secrets: string[]): string {
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  let text = typeof e.message === 'string' ? e.message : String(err);
  for (const s of secrets) text = text.split(s).join('[redacted]');
  text = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  if (typeof e.code === 'string' && !text.startsWith(e.code)) text = `${e.code}: ${text}`;
  return text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR - 3)}...` : text;
}

/**
 * Notices by e-mail. With `smtpUrl`, plain-text mail through nodemailer from `from`; without it,
 * each notice is logged at info (recipients, subject, text) and reported as `{ sent: false, via: 'log' }`.
 * Throws only here, for an `smtpUrl` that is not an smtp:// or smtps:// URL (the message never repeats it).
 */
export function createMailer(opts: MailerOptions): Mailer {
  const { smtpUrl, from, log } = opts;
  const timeoutMs = opts.timeoutMs ?? 10_000;

  let url: URL | undefined;
  if (smtpUrl) {
    try {
      url = new URL(smtpUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) {
      throw new Error('SMTP_URL must be an smtp:// or smtps:// URL with a host (smtp://user:pass@host:587)');
    }
  }
  const secrets = url && smtpUrl ? secretsOf(url, smtpUrl) : [];
  const transport =
    url &&
    createTransport({
      url: smtpUrl,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      // Notices are text we compose: nothing in one may make the sender read a file or a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  let closed = false;

  async function send(notice: Notice): Promise<SendResult> {
    const subject = subjectLine(String(notice.subject ?? ''));
    const { list: to, dropped } = recipients(Array.isArray(notice.to) ? notice.to : []);
    if (dropped > 0) {
      log.warn(
        { subject, dropped, kept: to.length },
        `e-mail notice: ${dropped} recipient(s) left out (malformed, or over ${MAX_RECIPIENTS})`,
      );
    }
    if (to.length === 0) {
      log.info({ subject }, 'e-mail notice not sent: no address to send it to');
      return { sent: false, via: 'log' };
    }
    if (!transport) {
      const text = String(notice.text ?? '');
      log.info(
        { to, subject, text: text.length > MAX_LOGGED_TEXT ? `${text.slice(0, MAX_LOGGED_TEXT)}...` : text },
        'e-mail notice (no SMTP_URL set: logged, not sent)',
      );
      return { sent: false, via: 'log' };
    }
    if (closed) return failed(to, subject, 'mailer closed');
    try {
      const info = await transport.sendMail({
        from,
        to,
        subject,
        text: String(notice.text ?? ''),
        signal: AbortSignal.timeout(3 * timeoutMs),
      });
      const rejected = Array.isArray(info.rejected) ? info.rejected.length : 0;
      if (rejected > 0) log.warn({ subject, rejected }, 'e-mail notice: the SMTP server refused some recipients');
      return { sent: true, via: 'smtp' };
    } catch (err) {
      return failed(to, subject, describe(err, secrets));
    }
  }

  function failed(to: string[], subject: string, error: string): SendResult {
    // Only the cleaned line is logged: nodemailer's error object also carries the command and reply.
    log.warn({ to, subject, error }, 'e-mail notice not sent');
    return { sent: false, via: 'smtp', error };
  }

  return {
    send: (notice) =>
      // The promise never rejects, whatever a caller passes or a transport throws synchronously.
      send(notice).catch((err: unknown) => ({ sent: false, via: transport ? 'smtp' : 'log', error: describe(err, secrets) })),
    close() {
      closed = true;
      transport?.close();
    },
  };
}
