import net from 'node:net';
import { ConfigError } from '../../platform/config.js';

/**
 * The answer to a port that cannot be listened on (a second `npm start`, another program on
 * 3000, a port below 1024): one line that names the port and how to choose another, instead of
 * Node's `listen EADDRINUSE` error. `command` is how this process was started (`npm start`).
 */
export function listenError(err: unknown, port: number, command: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const next = port >= 1024 && port < 65535 ? port + 1 : 3000;
  if (code === 'EADDRINUSE')
    return new ConfigError(
      `port ${port} is already in use (by another Lectern, or another program): stop it, or choose another port: PORT=${next} ${command}`,
    );
  if (code === 'EACCES')
    return new ConfigError(`port ${port} needs privileges this user does not have: choose another port: PORT=${next} ${command}`);
  return err;
}

/**
 * Fails with {@link listenError} when `port` on `host` cannot be listened on now: checked before
 * a process spends seconds starting a database and migrating, only to find its port taken. The
 * server's own listen still handles the port being taken in between.
 */
export async function checkPortFree(port: number, host: string, command: string): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err) => reject(listenError(err, port, command)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
