import { readFile } from 'node:fs/promises';
import type { Knex } from '../../src/platform/db/knex.js';
import { round } from './load.js';

export interface BackendMemory {
  /** Backends measured (a process's pooled connections). */
  connections: number;
  /** Private memory (RssAnon) per backend, MB: mostly its catalog, relation and plan caches. */
  meanMb: number;
  maxMb: number;
  totalMb: number;
  /** Shared memory the backends have touched (RssShmem, shared buffers), MB, the largest: not per connection. */
  sharedMaxMb: number;
}

/**
 * PostgreSQL memory of one process's connections, read from /proc for the backends that
 * pg_stat_activity lists under its application_name (benchmarks run PostgreSQL on the same
 * machine). A backend's own caches cannot be read from another session
 * (pg_backend_memory_contexts shows the caller's only), and RssAnon is what those caches cost the
 * machine. The web process's LISTEN connection is left out: it never runs a tenant's statements.
 * Undefined when /proc does not have them (PostgreSQL elsewhere).
 */
export async function backendMemory(knex: Knex, database: string, applicationName: string): Promise<BackendMemory | undefined> {
  const { rows } = await knex.raw<{ rows: { pid: number; query: string | null }[] }>(
    `select pid, query from pg_stat_activity where datname = ? and application_name = ? and backend_type = 'client backend'`,
    [database, applicationName],
  );
  const anon: number[] = [];
  const shared: number[] = [];
  for (const r of rows) {
    if (/^\s*listen\b/i.test(r.query ?? '')) continue;
    const status = await readFile(`/proc/${r.pid}/status`, 'utf8').catch(() => undefined);
    if (!status) continue;
    anon.push(Number(/RssAnon:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
    shared.push(Number(/RssShmem:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
  }
  if (!anon.length) return undefined;
  const total = anon.reduce((a, b) => a + b, 0);
  return {
    connections: anon.length,
    meanMb: round(total / anon.length, 1),
    maxMb: round(Math.max(...anon), 1),
    totalMb: round(total, 1),
    sharedMaxMb: round(Math.max(...shared), 1),
  };
}
