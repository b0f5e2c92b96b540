import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/platform/util/net.js';
import { waitFor } from './harness.js';

/**
 * A Redis server of the test's own, on a free port, with no persistence (as the machine's CI
 * Redis runs): a test may SIGKILL it and start it again empty without touching anyone else's
 * data. Needs `redis-server` on the PATH.
 */
export const hasRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

export interface PrivateRedis {
  url: string;
  /** SIGKILL: everything it held is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `cluster`: a Redis Cluster of one node holding every slot (for a run with REDIS_CLUSTER=on).
 * It keeps its cluster config (nodes.conf) across a kill, as a cluster node does, so it comes
 * back empty but still holding its slots.
 */
export async function privateRedis(opts: { cluster?: boolean } = {}): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const dir = opts.cluster ? await mkdtemp(path.join(os.tmpdir(), 'lectern-private-redis-')) : undefined;
  let child: ChildProcess | undefined;
  const answers = async () => {
    const probe = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  };
  const clusterState = async (): Promise<{ ok: boolean; slots: number }> => {
    const probe = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      const info = String(await probe.call('CLUSTER', 'INFO'));
      return { ok: /cluster_state:ok/.test(info), slots: Number(/cluster_slots_assigned:(\d+)/.exec(info)?.[1] ?? 0) };
    } finally {
      probe.disconnect();
    }
  };
  const start = async () => {
    // A node alone in its cluster has never learnt its own address (CLUSTER SLOTS would name it
    // ""), so it is told which one to give clients.
    const clusterArgs = dir
      ? ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--dir', dir, '--cluster-announce-ip', '127.0.0.1']
      : [];
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory-policy',
        'noeviction',
        ...clusterArgs,
      ],
      { stdio: 'ignore' },
    );
    await waitFor(answers, 'the private Redis to answer', 10000, 50);
    if (dir) {
      if ((await clusterState()).slots === 0) {
        const probe = new Redis(url, { maxRetriesPerRequest: 0 });
        await probe.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383').finally(() => probe.disconnect());
      }
      await waitFor(async () => (await clusterState()).ok, 'the private Redis Cluster to be ok', 10000, 50);
    }
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  const stop = async () => {
    await kill();
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  return { url, kill, start, stop };
}
