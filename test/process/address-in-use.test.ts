import net from 'node:net';
import test from 'ava';
import { logsForPeople } from '../../src/platform/logger.js';
import { hex, runTs } from '../helpers/harness.js';

/**
 * A second `npm start` (or web process) on a port that is taken says so in one line, naming the
 * port and how to choose another, and exits non-zero: no stack, and before it spends seconds
 * starting a database and migrating. Its logs, written to a pipe as here, stay JSON lines.
 */

/** A server holding a port, as a first Lectern would. */
async function holdPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const oneLine = (port: number, command: string) =>
  new RegExp(
    `^lectern: port ${port} is already in use .*choose another port: PORT=${port + 1} ${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n$`,
  );

test('when the port of the web process is taken, then it says which port and how to choose another, in one line, and exits non-zero', async (t) => {
  const held = await holdPort();
  t.teardown(held.close);
  const web = await runTs('src/web.ts', [], { PORT: String(held.port), QUEUE_PREFIX: `t${hex()}`, LOG_LEVEL: 'info' });
  t.is(web.code, 1);
  t.regex(web.stderr, oneLine(held.port, 'npm run start:web'));
  t.notRegex(web.stderr + web.stdout, /EADDRINUSE|\n\s+at /);
  // Piped, not a terminal: whatever it logged is JSON, one object a line.
  for (const line of web.stdout.split('\n').filter(Boolean)) t.notThrows(() => JSON.parse(line), line);
});

test('when the port of npm start is taken, then it says so before starting anything, and exits non-zero', async (t) => {
  const held = await holdPort();
  t.teardown(held.close);
  // Its own data folder: were it to start an embedded PostgreSQL, it would create one there.
  const start = await runTs('src/start.ts', [], { PORT: String(held.port), QUEUE_PREFIX: `t${hex()}`, LOG_LEVEL: 'info' });
  t.is(start.code, 1);
  t.regex(start.stderr, oneLine(held.port, 'npm start'));
  t.notRegex(start.stdout, /migrat|embedded PostgreSQL/, 'nothing started before the port was checked');
});

test('when logs go to a terminal outside production, then they are for people; to a pipe, to stderr or in production, JSON', (t) => {
  t.true(logsForPeople('development', 1, true));
  t.true(logsForPeople('test', 1, true));
  t.false(logsForPeople('development', 1, false), 'a pipe or a file');
  t.false(logsForPeople('development', 1, undefined), 'no terminal at all');
  t.false(logsForPeople('production', 1, true));
  t.false(logsForPeople('development', 2, true), 'stderr (the CLI logs there; its stdout is its answer)');
  t.false(logsForPeople('development', { write: () => undefined }, true), 'a stream of the caller');
});
