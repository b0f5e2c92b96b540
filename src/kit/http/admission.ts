import { performance } from 'node:perf_hooks';
import { AppError } from '../../platform/errors.js';
import type { AppMiddleware } from './context.js';

/** The methods that write: a tenant's share of the intake counts these, never reads. */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface AdmissionOptions {
  /** Writes a web process admits per second, shared by the tenants writing (0: no limit). */
  writesPerSecond: number;
  /** How long after its last write a tenant still counts as writing (and so takes a share). */
  activeWindowMs: number;
  /** Longest a write past its tenant's share waits for its turn before it is refused (0: never waits). */
  maxWaitMs: number;
}

/**
 * The answer of {@link WriteAdmission.admit}: go on after `waitMs` (0: at once), or refuse with
 * 429 after this many seconds.
 */
export type Admission = { ok: true; waitMs: number } | { ok: false; retryAfterSeconds: number };

/** Admitted writes over the last second, in tenths of a second. */
class LastSecond {
  private readonly counts = new Array<number>(10).fill(0);
  private readonly tenths = new Array<number>(10).fill(-Infinity);

  add(now: number): void {
    const tenth = Math.floor(now / 100);
    const slot = tenth % 10;
    if (this.tenths[slot] !== tenth) {
      this.tenths[slot] = tenth;
      this.counts[slot] = 0;
    }
    this.counts[slot]!++;
  }

  sum(now: number): number {
    const oldest = Math.floor(now / 100) - 9;
    let n = 0;
    for (let i = 0; i < 10; i++) if (this.tenths[i]! >= oldest) n += this.counts[i]!;
    return n;
  }
}

interface Writer {
  /** When it last asked to write (ms). */
  askedAt: number;
  /** Its writes admitted over the last second. */
  admitted: LastSecond;
  /** When its next write is due at its rate (the pacing's theoretical arrival time, ms). */
  dueAt: number;
}

/**
 * Fair shares of a web process's write intake between tenants (ADMISSION_WRITES_PER_SECOND,
 * ADMISSION_ACTIVE_WINDOW_MS, ADMISSION_MAX_WAIT_MS).
 *
 * A tenant writing alone (nobody else asked to write within `activeWindowMs`) is never held back.
 * While several write, each tenant's writes are paced at its rate: its fair share
 * (`writesPerSecond` / the tenants writing), or what the others leave of `writesPerSecond` over
 * the last second when that is more (capacity nobody else asks for is not held back), and at
 * least one a second. A write within its rate goes at once; one past it waits for its turn, so a
 * flood's writes come in evenly spread over the second instead of all together at its start; one
 * whose turn is more than `maxWaitMs` away is refused (429, with an estimate of the seconds to
 * wait), and takes no turn. The pacing is the generic cell rate algorithm: each tenant's next
 * write is due one interval (1 s / its rate) after the last one admitted, with one interval of
 * slack for the write that arrives early. A quiet tenant's occasional write is due at once: it never waits for a
 * flood. Counts are kept in memory, per process: the CPU they protect is the process's own.
 */
export class WriteAdmission {
  private readonly writers = new Map<number, Writer>();
  private readonly all = new LastSecond();
  private lastPrune = -Infinity;

  constructor(private readonly opts: AdmissionOptions) {}

  /** Tenants that asked to write within the window (the asking one included, as it asks now). */
  private writing(now: number): number {
    const since = now - this.opts.activeWindowMs;
    // Forget quiet tenants at most once a window, so the map holds the writing ones (and those
    // whose turns reach past the window, which they still hold).
    if (now - this.lastPrune >= this.opts.activeWindowMs) {
      this.lastPrune = now;
      for (const [id, w] of this.writers) if (w.askedAt < since && w.dueAt < now) this.writers.delete(id);
    }
    let n = 0;
    for (const w of this.writers.values()) if (w.askedAt >= since) n++;
    return n;
  }

  /**
   * Whether `tenantId`'s write may go now, after a wait, or is refused. `now` is a monotonic
   * clock in ms (a wall clock stepped back would leave every turn that far ahead).
   */
  admit(tenantId: number, now = performance.now()): Admission {
    const rate = this.opts.writesPerSecond;
    if (rate <= 0) return { ok: true, waitMs: 0 };
    let w = this.writers.get(tenantId);
    if (!w) {
      w = { askedAt: now, admitted: new LastSecond(), dueAt: now };
      this.writers.set(tenantId, w);
    }
    w.askedAt = now;
    const writing = this.writing(now);
    if (writing === 1) {
      // Alone: no pacing, and no debt carried into the next time others write.
      w.dueAt = now;
      return this.admitted(w, now, 0);
    }
    const others = this.all.sum(now) - w.admitted.sum(now);
    const myRate = Math.max(1, rate / writing, rate - others);
    const interval = 1000 / myRate;
    const due = Math.max(w.dueAt, now);
    const waitMs = Math.max(0, Math.ceil(due - interval - now));
    // Refused: asked again after this, its turn would be within the wait at the present rate (an
    // estimate: the rate moves as others start or stop writing).
    if (waitMs > this.opts.maxWaitMs)
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((waitMs - this.opts.maxWaitMs) / 1000)) };
    w.dueAt = due + interval;
    return this.admitted(w, now, waitMs);
  }

  /** Counts a write admitted now (its turn taken, if it waits for it) and answers it. */
  private admitted(w: Writer, now: number, waitMs: number): Admission {
    w.admitted.add(now);
    this.all.add(now);
    return { ok: true, waitMs };
  }
}

/**
 * Writes (POST, PUT, PATCH, DELETE) of the request's tenant, admitted at its fair share: a write
 * past it waits for its turn (at most ADMISSION_MAX_WAIT_MS), and one further past gets 429
 * `rate_limited` with `Retry-After` (the REST error body, as the other 429s answer). A write whose
 * client went away while it waited is dropped: nothing is written for an order nobody waits to
 * hear about. The REST API runs it after authentication (a caller without the tenant's
 * credentials cannot spend its share) and before the request's transaction.
 */
export function writeAdmission(admission: WriteAdmission): AppMiddleware {
  return async (ctx, next) => {
    const tenant = ctx.state.tenant;
    if (!tenant || !WRITE_METHODS.has(ctx.method)) return next();
    const admitted = admission.admit(tenant.id);
    if (!admitted.ok) {
      ctx.set('Retry-After', String(admitted.retryAfterSeconds));
      throw new AppError(
        429,
        'rate_limited',
        `Too many writes for this instance while others are writing; try again in ${admitted.retryAfterSeconds} s`,
        { retryAfterSeconds: admitted.retryAfterSeconds },
      );
    }
    if (admitted.waitMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, admitted.waitMs));
      if (ctx.req.socket.destroyed) {
        // Metrics and the log say what happened: 499, the client closed the request (nginx's convention).
        ctx.status = 499;
        return;
      }
    }
    return next();
  };
}
