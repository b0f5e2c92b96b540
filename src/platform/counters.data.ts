import type { Knex } from './db/knex.js';
import { BaseModel } from './db/model.js';
import type { Logger } from './logger.js';
import { PLATFORM_SCHEMA } from './tenancy/tenant.js';

/**
 * Durable counters (`platform.counters`, platform migration 010): a worker counts in memory and
 * adds its counts to the table every `flushMs`, so /metrics (served by web processes) reports what
 * every worker did, across restarts. A flush that fails keeps its counts for the next one.
 */
export class DurableCounter extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.counters`;

  /** QUEUE_PREFIX of the processes that count. */
  declare namespace: string;
  declare name: string;
  declare value: string;
}

const TABLE = DurableCounter.tableName;

export class DurableCounters {
  private readonly pending = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly knex: Knex,
    private readonly namespace: string,
    private readonly log: Logger,
    flushMs = 5000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  add(name: string, n = 1): void {
    this.pending.set(name, (this.pending.get(name) ?? 0) + n);
  }

  /** Adds what was counted since the last flush to the table. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (!this.pending.size) return;
      const rows = [...this.pending].map(([name, value]) => ({ namespace: this.namespace, name, value }));
      this.pending.clear();
      try {
        await this.knex(TABLE)
          .insert(rows)
          .onConflict(['namespace', 'name'])
          .merge({ value: this.knex.raw('counters.value + excluded.value') });
      } catch (err) {
        for (const r of rows) this.add(r.name, r.value);
        this.log.warn({ err: { message: (err as Error).message } }, 'could not flush counters; will try again');
      }
    });
    return this.flushing;
  }

  /** Stops flushing, after a last flush. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

/** The counters of a namespace whose names start with `prefix`, by name. */
export async function readCounters(knex: Knex, namespace: string, prefix: string): Promise<Map<string, number>> {
  const rows = await knex(TABLE)
    .where({ namespace })
    .whereLike('name', `${prefix}%`)
    .select<{ name: string; value: string }[]>('name', 'value');
  return new Map(rows.map((r) => [r.name, Number(r.value)]));
}
