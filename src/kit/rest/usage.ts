import type { Knex } from '../../platform/db/knex.js';
import type { Logger } from '../../platform/logger.js';
import { addUsage } from './usage.data.js';

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

  private day = { name: '', endsAt: 0 };

  /** Today's UTC date, worked out again only when the day changes (this runs on every REST call). */
  private today(): string {
    const now = Date.now();
    if (now >= this.day.endsAt) {
      const d = new Date(now);
      this.day = { name: d.toISOString().slice(0, 10), endsAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) };
    }
    return this.day.name;
  }

  record(tenantId: number, userId: number | null, endpoint: string): void {
    // Endpoints are route templates (`GET /api/v2/crm/contacts/:id`): they never contain a tab.
    const key = `${tenantId}\t${userId ?? 0}\t${this.today()}\t${endpoint}`;
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
  }

  async flush(): Promise<void> {
    if (!this.pending.size) return;
    const batch = this.pending;
    this.pending = new Map();
    const rows = [...batch].map(([key, calls]) => {
      const [tenant, user, day, endpoint] = key.split('\t') as [string, string, string, string];
      return { tenant_id: Number(tenant), user_id: Number(user), endpoint, day, calls };
    });
    try {
      await addUsage(this.knex, rows);
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
