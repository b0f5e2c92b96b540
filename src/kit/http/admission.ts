import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../../platform/errors.js';
import type { AppContext, AppMiddleware } from './context.js';

/** The methods that write: a tenant's share of the intake counts these, never reads. */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface AdmissionOptions {
  /** Writes a web process admits per second, shared by the tenants writing (0: no limit). */
  writesPerSecond: number;
  /** How long after its last write a tenant still counts as writing (and so takes a share). */
  activeWindowMs: number;
}

/** The answer of {@link WriteAdmission.admit}: go on, or refuse with 429 after this many seconds. */
export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * Fair shares of a web process's write intake between tenants (ADMISSION_WRITES_PER_SECOND,
 * ADMISSION_ACTIVE_WINDOW_MS). Each tenant has a bucket of `writesPerSecond` points a second
 * (rate-limiter-flexible's in-memory limiter, keyed by tenant); a write costs as many points as
 * there are tenants writing (those with a write asked for in the last `activeWindowMs`, itself
 * included). So a lone tenant may use the whole capacity, and while N tenants write each is
 * admitted at most 1/N of it: one tenant's flood cannot take the CPU the others' writes need.
 * Past its share a write is refused before anything is read or written (no half-written order),
 * with the seconds to wait until the tenant's next second begins.
 */
export class WriteAdmission {
  private readonly limiter: RateLimiterMemory | undefined;
  /** Tenant id → when it last asked to write (ms). */
  private readonly lastWrite = new Map<number, number>();
  private lastPrune = 0;

  constructor(private readonly opts: AdmissionOptions) {
    this.limiter =
      opts.writesPerSecond > 0
        ? new RateLimiterMemory({ keyPrefix: 'write_admission', points: opts.writesPerSecond, duration: 1 })
        : undefined;
  }

  /** Tenants that asked to write within the window (the asking one included, as it asks now). */
  writing(tenantId: number, now = Date.now()): number {
    this.lastWrite.set(tenantId, now);
    const since = now - this.opts.activeWindowMs;
    // Forget quiet tenants at most every window, so the count stays a walk over the writing ones.
    if (now - this.lastPrune >= this.opts.activeWindowMs) {
      this.lastPrune = now;
      for (const [id, at] of this.lastWrite) if (at < since) this.lastWrite.delete(id);
    }
    let n = 0;
    for (const at of this.lastWrite.values()) if (at >= since) n++;
    return n;
  }

  async admit(tenantId: number): Promise<Admission> {
    if (!this.limiter) return { ok: true };
    const cost = Math.min(this.writing(tenantId), this.opts.writesPerSecond);
    const res = await this.limiter.consume(String(tenantId), cost).catch((r: unknown) => {
      if (r instanceof RateLimiterRes) return r;
      throw r;
    });
    if (res.consumedPoints <= this.opts.writesPerSecond) return { ok: true };
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
  }
}

/**
 * REST writes (POST, PUT, PATCH, DELETE under `when`) of the request's tenant, admitted at its
 * fair share: past it, 429 `rate_limited` with `Retry-After` (the REST error body, as the other
 * 429s answer). Runs after the tenant is resolved and before authentication and the route.
 */
export function writeAdmission(admission: WriteAdmission, when: (ctx: AppContext) => boolean): AppMiddleware {
  return async (ctx, next) => {
    const tenant = ctx.state.tenant;
    if (!tenant || !WRITE_METHODS.has(ctx.method) || !when(ctx)) return next();
    const admitted = await admission.admit(tenant.id);
    if (!admitted.ok) {
      ctx.set('Retry-After', String(admitted.retryAfterSeconds));
      throw new AppError(
        429,
        'rate_limited',
        `Too many writes for this instance while others are writing; try again in ${admitted.retryAfterSeconds} s`,
        { retryAfterSeconds: admitted.retryAfterSeconds },
      );
    }
    return next();
  };
}
