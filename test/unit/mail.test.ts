import test from 'ava';
import net from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { createLogger, type Logger } from '../../src/platform/logger.js';
import { createMailer, type Mailer } from '../../src/platform/mail.js';

/**
 * E-mail notices (src/platform/mail.ts) against a real SMTP server from `smtp-server` on
 * 127.0.0.1, and a real pino logger writing into an array. No database, no mocks.
 */

const FROM = 'lectern@example.test';
const USER = 'mailer';
// URL-special characters, so the URL carries it percent-encoded and the server sees it decoded.
const PASSWORD = 's3cr3t:P@ss/w%rd';
const ENCODED_PASSWORD = encodeURIComponent(PASSWORD);

interface Received {
  from: string | false;
  to: string[];
  user: string | undefined;
  headers: Map<string, string>;
  body: string;
}

/** Splits a raw message into unfolded headers (lower-case names) and body. */
function parse(raw: string): Pick<Received, 'headers' | 'body'> {
  const cut = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, cut).replace(/\r\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(cut + 4) };
}

/** A real SMTP server on a random loopback port; `onData` may refuse instead of collecting. */
async function smtpServer(
  options: Partial<SMTPServerOptions> & { refuse?: () => string } = {},
): Promise<{ port: number; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const { refuse, ...rest } = options;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    // The client is 127.0.0.1: a reverse lookup would send a DNS query off the machine.
    disableReverseLookup: true,
    logger: false,
    ...rest,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refuse) return callback(new Error(refuse()));
        received.push({
          from: session.envelope.mailFrom && session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          ...parse(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as net.AddressInfo).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Lectern's own logger (pino, with its redaction) writing JSON lines into an array. */
function capturedLogger(): { log: Logger; lines: () => Record<string, unknown>[]; raw: () => string } {
  const chunks: string[] = [];
  const log = createLogger({ logLevel: 'info' }, 'mail-test', { write: (s: string) => void chunks.push(s) });
  return {
    log,
    raw: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

function closeAfter(t: { teardown: (fn: () => unknown) => void }, mailer: Mailer): Mailer {
  t.teardown(() => mailer.close());
  return mailer;
}

test('when a notice is sent over SMTP, then it arrives as plain text with the right from, to, subject and text', async (t) => {
  const smtp = await smtpServer();
  t.teardown(smtp.close);
  const { log } = capturedLogger();
  const mailer = closeAfter(t, createMailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: FROM, log }));

  const text = 'Webhook "Orders to CRM" failed after 8 attempts.\nLast error: 503 Service Unavailable.';
  const result = await mailer.send({ to: ['ops@example.org', 'dev@example.org'], subject: 'Webhook delivery failed', text });

  t.deepEqual(result, { sent: true, via: 'smtp' });
  t.is(smtp.received.length, 1);
  const m = smtp.received[0]!;
  t.is(m.from, FROM);
  t.deepEqual(m.to, ['ops@example.org', 'dev@example.org']);
  t.is(m.headers.get('from'), FROM);
  t.is(m.headers.get('to'), 'ops@example.org, dev@example.org');
  t.is(m.headers.get('subject'), 'Webhook delivery failed');
  t.regex(m.headers.get('content-type') ?? '', /^text\/plain\b/);
  t.is(m.body.replace(/\r\n/g, '\n').trimEnd(), text);
});

test('when the SMTP URL carries user:pass and the server requires them, then the notice arrives authenticated', async (t) => {
  const smtp = await smtpServer({
    authOptional: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) return callback(null, { user: auth.username });
      return callback(new Error('Invalid username or password'));
    },
  });
  t.teardown(smtp.close);
  const { log } = capturedLogger();
  const mailer = closeAfter(t, createMailer({ smtpUrl: `smtp://${USER}:${ENCODED_PASSWORD}@127.0.0.1:${smtp.port}`, from: FROM, log }));

  const result = await mailer.send({ to: ['ops@example.org'], subject: 'Webhook disabled', text: 'It failed for 5 days.' });

  t.deepEqual(result, { sent: true, via: 'smtp' });
  t.is(smtp.received.length, 1);
  t.is(smtp.received[0]!.user, USER);
  t.deepEqual(smtp.received[0]!.to, ['ops@example.org']);
});

/** Neither the password (either spelling) nor the URL in `text`. */
function assertNoSecret(t: { false: (v: boolean, m?: string) => void }, text: string, url: string) {
  t.false(text.includes(PASSWORD), 'the password');
  t.false(text.includes(ENCODED_PASSWORD), 'the percent-encoded password');
  t.false(text.includes(url), 'the SMTP URL');
  t.false(text.includes(`${USER}:`), 'the credentials part of the URL');
}

test('when the server refuses the message, echoing the password and the URL, then sent is false and neither the answer nor the log carries them', async (t) => {
  let url = '';
  // A server's reply is copied into nodemailer's error: one that quotes what it was given must not leak it.
  const smtp = await smtpServer({
    onAuth: (_auth, _session, callback) => callback(null, { user: USER }),
    refuse: () => `Rejected: ${PASSWORD} ${ENCODED_PASSWORD} ${url}`,
  });
  t.teardown(smtp.close);
  url = `smtp://${USER}:${ENCODED_PASSWORD}@127.0.0.1:${smtp.port}`;
  const logs = capturedLogger();
  const mailer = closeAfter(t, createMailer({ smtpUrl: url, from: FROM, log: logs.log }));

  const result = await mailer.send({ to: ['ops@example.org'], subject: 'Webhook delivery failed', text: 'x' });

  t.false(result.sent);
  t.is(result.via, 'smtp');
  t.truthy(result.error);
  t.notRegex(result.error!, /[\r\n]/, 'one line');
  t.regex(result.error!, /Rejected/, 'says what the server answered');
  assertNoSecret(t, result.error!, url);
  const warning = logs.lines().find((l) => l.level === 40);
  t.truthy(warning, 'a warning is logged');
  t.is(warning!.subject, 'Webhook delivery failed');
  assertNoSecret(t, logs.raw(), url);
  t.is(smtp.received.length, 0);
});

test('when the server refuses the login, then sent is false and the error does not carry the password', async (t) => {
  const smtp = await smtpServer({
    authOptional: false,
    onAuth: (auth, _session, callback) => callback(new Error(`Bad password ${auth.password}`)),
  });
  t.teardown(smtp.close);
  const url = `smtp://${USER}:${ENCODED_PASSWORD}@127.0.0.1:${smtp.port}`;
  const logs = capturedLogger();
  const mailer = closeAfter(t, createMailer({ smtpUrl: url, from: FROM, log: logs.log }));

  const result = await mailer.send({ to: ['ops@example.org'], subject: 'Webhook delivery failed', text: 'x' });

  t.false(result.sent);
  t.is(result.via, 'smtp');
  t.regex(result.error ?? '', /Bad password/);
  assertNoSecret(t, result.error!, url);
  assertNoSecret(t, logs.raw(), url);
  t.is(smtp.received.length, 0);
});

test('when nothing listens on the SMTP port, then send resolves with sent false and an error without the URL', async (t) => {
  const port = await closedPort();
  const url = `smtps://${USER}:${ENCODED_PASSWORD}@127.0.0.1:${port}`;
  const logs = capturedLogger();
  const mailer = closeAfter(t, createMailer({ smtpUrl: url, from: FROM, log: logs.log }));

  const result = await mailer.send({ to: ['ops@example.org'], subject: 'Webhook delivery failed', text: 'x' });

  t.false(result.sent);
  t.is(result.via, 'smtp');
  t.regex(result.error ?? '', /ECONNREFUSED|ECONNECTION/);
  t.notRegex(result.error!, /[\r\n]/);
  assertNoSecret(t, result.error!, url);
  assertNoSecret(t, logs.raw(), url);
  t.true(logs.lines().some((l) => l.level === 40));
});

test('when the SMTP server accepts the connection and never answers, then send gives up after the timeout', async (t) => {
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((s) => void sockets.add(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const port = (silent.address() as net.AddressInfo).port;
  const { log } = capturedLogger();
  const mailer = closeAfter(t, createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, log, timeoutMs: 300 }));

  const started = Date.now();
  const result = await mailer.send({ to: ['ops@example.org'], subject: 's', text: 'x' });

  t.false(result.sent);
  t.truthy(result.error);
  t.true(Date.now() - started < 5000, `gave up after ${Date.now() - started} ms`);
  t.is(sockets.size, 1, 'it did connect');
});

test('when there is no SMTP URL, then the notice is logged at info with its recipients, subject and text, and not sent', async (t) => {
  const logs = capturedLogger();
  const mailer = closeAfter(t, createMailer({ smtpUrl: undefined, from: FROM, log: logs.log }));

  const result = await mailer.send({ to: ['ops@example.org'], subject: 'Webhook disabled: Orders to CRM', text: 'It failed for 5 days.' });

  t.deepEqual(result, { sent: false, via: 'log' });
  const line = logs.lines().find((l) => l.subject === 'Webhook disabled: Orders to CRM');
  t.truthy(line, 'the subject is logged');
  t.is(line!.level, 30, 'at info');
  t.deepEqual(line!.to, ['ops@example.org']);
  t.is(line!.text, 'It failed for 5 days.');
});

test('when a notice has no recipient, then nothing is sent and the log says there was no address', async (t) => {
  const smtp = await smtpServer();
  t.teardown(smtp.close);
  const logs = capturedLogger();
  const mailer = closeAfter(t, createMailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: FROM, log: logs.log }));

  t.deepEqual(await mailer.send({ to: [], subject: 'Webhook disabled', text: 'x' }), { sent: false, via: 'log' });
  // Only unusable strings count as none.
  t.deepEqual(await mailer.send({ to: ['', 'not-an-address', 'a@b@c'], subject: 'Webhook disabled', text: 'x' }), {
    sent: false,
    via: 'log',
  });

  t.is(smtp.received.length, 0);
  const noAddress = logs.lines().filter((l) => /no address/i.test(String(l.msg)));
  t.is(noAddress.length, 2);
  t.is(noAddress[0]!.subject, 'Webhook disabled');
});

test('when recipients repeat, are malformed or are too many, then each good address gets one copy and at most 20 are sent to', async (t) => {
  const smtp = await smtpServer();
  t.teardown(smtp.close);
  const logs = capturedLogger();
  const mailer = closeAfter(t, createMailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: FROM, log: logs.log }));

  const result = await mailer.send({
    to: [
      'ops@example.org',
      ' OPS@Example.org ',
      'no-at-sign',
      'two@at@example.org',
      'a@example.org, evil@example.net',
      'b@example.org\r\nBcc: evil@example.net',
      'Name <evil@example.net>',
      42 as unknown as string,
    ],
    subject: 'Webhook delivery failed',
    text: 'x',
  });
  t.deepEqual(result, { sent: true, via: 'smtp' });
  t.deepEqual(smtp.received[0]?.to, ['ops@example.org']);
  t.true(
    logs.lines().some((l) => l.level === 40),
    'the dropped recipients are logged',
  );

  const many = Array.from({ length: 25 }, (_, i) => `user${i}@example.org`);
  t.deepEqual(await mailer.send({ to: many, subject: 's', text: 'x' }), { sent: true, via: 'smtp' });
  t.deepEqual(smtp.received[1]?.to, many.slice(0, 20));
});

test('when the subject carries a line break, then it cannot add a header or a recipient', async (t) => {
  const smtp = await smtpServer();
  t.teardown(smtp.close);
  const { log } = capturedLogger();
  const mailer = closeAfter(t, createMailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: FROM, log }));

  const result = await mailer.send({ to: ['ops@example.org'], subject: 'Failed\r\nBcc: evil@example.net', text: 'x' });

  t.true(result.sent);
  const m = smtp.received[0]!;
  t.deepEqual(m.to, ['ops@example.org']);
  t.false(m.headers.has('bcc'));
  t.is(m.headers.get('subject'), 'Failed Bcc: evil@example.net');
});

test('when the SMTP URL is not smtp:// or smtps://, then createMailer refuses it without repeating it', (t) => {
  const { log } = capturedLogger();
  const url = `http://${USER}:${ENCODED_PASSWORD}@127.0.0.1:25`;
  const err = t.throws(() => createMailer({ smtpUrl: url, from: FROM, log }));
  t.regex(err!.message, /smtp:\/\/ or smtps:\/\//);
  assertNoSecret(t, err!.message, url);
});

test('when the mailer is closed, then a later send resolves as not sent instead of throwing', async (t) => {
  const smtp = await smtpServer();
  t.teardown(smtp.close);
  const { log } = capturedLogger();
  const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: FROM, log });
  mailer.close();

  const result = await mailer.send({ to: ['ops@example.org'], subject: 's', text: 'x' });

  t.false(result.sent);
  t.is(result.via, 'smtp');
  t.truthy(result.error);
  t.is(smtp.received.length, 0);
});
