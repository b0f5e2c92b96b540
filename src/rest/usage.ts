import type { Knex } from '../db/knex.js';
import type { Logger } from '../logger.js';
import { PLATFORM_SCHEMA } from '../tenancy/tenant.js';

/**
 * Counts legacy REST calls per tenant, user, endpoint and day, so a tenant admin can see who
 * still calls the retired API. Counts are summed in memory and flushed every few seconds with
 * one upsert per key, instead of a write on every request (which would also contend on the same
 * row under load). A crash loses at most the last interval's counts.
 */
export class LegacyUsageRecorder {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly knex: Knex,
    private readonly log: Logger,
    private readonly everyMs = 5000,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.everyMs);
    this.timer.unref();
  }

  record(tenantId: number, userId: number | null, endpoint: string): void {
    const day = new Date().toISOString().slice(0, 10);
    const key = JSON.stringify([tenantId, userId ?? 0, endpoint, day]);
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
  }

  async flush(): Promise<void> {
    if (!this.pending.size) return;
    const batch = this.pending;
    this.pending = new Map();
    const rows = [...batch].map(([key, calls]) => {
      const [tenant_id, user_id, endpoint, day] = JSON.parse(key) as [number, number, string, string];
      return { tenant_id, user_id, endpoint, day, calls };
    });
    try {
      await this.knex(`${PLATFORM_SCHEMA}.legacy_usage`)
        .insert(rows)
        .onConflict(['tenant_id', 'user_id', 'endpoint', 'day'])
        .merge({ calls: this.knex.raw('legacy_usage.calls + excluded.calls'), last_called_at: this.knex.fn.now() });
    } catch (err) {
      // Put the counts back for the next attempt rather than lose them.
      for (const [k, n] of batch) this.pending.set(k, (this.pending.get(k) ?? 0) + n);
      this.log.warn({ err: { message: (err as Error).message } }, 'legacy usage flush failed');
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
