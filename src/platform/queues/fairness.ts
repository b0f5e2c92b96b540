/**
 * Fair turns between tenants on a shared queue, from BullMQ's own job priority.
 *
 * Every tenant's jobs of a queue share one queue (or one shard of it), which BullMQ serves in
 * order: a tenant that places 10,000 orders would make everyone else's order wait behind them.
 * BullMQ's open-source edition has no per-group limits (groups are BullMQ Pro), but it serves a
 * lower priority number first (1 is the highest) and, among equal numbers, in the order added.
 * So each job is given the priority `1 + jobs its tenant added to that queue in the last
 * 10 seconds`: a tenant placing an order now and then gets a small number and overtakes a flooding
 * tenant's backlog (numbered up to its flood's size); it waits for a free worker slot, not for
 * the flood. A tenant's own jobs run in the order added while its rate grows; once the window
 * slides on they may not (a job added after a flood ebbs gets a smaller number than the flood's
 * last ones), which is fine for jobs that do not depend on each other, as Lectern's do not.
 * Under an overload that lasts, the jobs of the busiest tenants wait longest: that is the point.
 *
 * The count is kept in the process that adds the job (a web process after commit, a worker's
 * relay or reconciler): with several web processes each counts the share that reached it, which
 * ranks a flood the same way. BullMQ keeps a job's priority through retries (backoff promotes it
 * back into the prioritized set with its number); a stalled job is put back at the head of the
 * queue instead, ahead of every prioritized job.
 *
 * A job added without a priority is served before every prioritized one, so every job Lectern
 * adds goes through {@link TenantShare.priority}.
 */

/** BullMQ's highest priority number (2^21 - 1): a larger one is refused. */
export const MAX_PRIORITY = 2 ** 21 - 1;

/**
 * How far back a tenant's adds count. The jobs a flood adds before its count passes a steady
 * tenant's (rate x window) still go first: with a minute, a tenant placing 5 orders a second
 * (number ~300) waited behind a flood's first 300 jobs, about a second on one worker slot
 * (`npm run bench -- fairness --workers 1 --worker-concurrency 1`: quiet p99 903 ms). Ten
 * seconds is still long enough to rank a flood that has already been queued for a while below
 * every steady tenant.
 */
const WINDOW_SECONDS = 10;

/** Jobs added per second over the last window, for one tenant on one queue. */
interface Window {
  /** counts[i]: jobs added in the second seconds[i] (slot i = second mod the window). */
  counts: number[];
  seconds: number[];
  total: number;
}

export class TenantShare {
  private readonly windows = new Map<string, Window>();
  private adds = 0;

  /** Counts a job `tenantId` adds to `queue` now, and answers the priority to give it. */
  priority(queue: string, tenantId: number, now = Date.now()): number {
    const second = Math.floor(now / 1000);
    const key = `${queue}:${tenantId}`;
    let w = this.windows.get(key);
    if (!w) {
      w = { counts: new Array<number>(WINDOW_SECONDS).fill(0), seconds: new Array<number>(WINDOW_SECONDS).fill(0), total: 0 };
      this.windows.set(key, w);
    }
    expire(w, second);
    const before = w.total;
    const slot = second % WINDOW_SECONDS;
    w.seconds[slot] = second;
    w.counts[slot] = (w.counts[slot] ?? 0) + 1;
    w.total++;
    // Forget tenants gone quiet, so the map holds the tenants of the last window only.
    if (++this.adds % 10_000 === 0) this.forgetIdle(second);
    return Math.min(MAX_PRIORITY, 1 + before);
  }

  private forgetIdle(second: number): void {
    for (const [key, w] of this.windows) {
      expire(w, second);
      if (w.total === 0) this.windows.delete(key);
    }
  }
}

/** Drops the seconds that fell out of the window ending at `second`. */
function expire(w: Window, second: number): void {
  for (let i = 0; i < WINDOW_SECONDS; i++) {
    const count = w.counts[i] ?? 0;
    if (count && (w.seconds[i] ?? 0) <= second - WINDOW_SECONDS) {
      w.total -= count;
      w.counts[i] = 0;
    }
  }
}
