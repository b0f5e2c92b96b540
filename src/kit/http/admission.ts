import { RateLimiterMemory } from 'rate-limiter-flexible';
import { AppError } from '../../platform/errors.js';
import type { AppMiddleware } from './context.js';

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
 * ADMISSION_ACTIVE_WINDOW_MS), counted per second with rate-limiter-flexible's in-memory
 * limiter: the process's writes, and each tenant's. A write is refused only when all of these
 * hold: another tenant is writing too (asked to write within `activeWindowMs`), the process has
 * admitted more than `writesPerSecond` writes this second, and this tenant more than its fair
 * share of them (`writesPerSecond` / the tenants writing). So a tenant writing alone is never
 * refused, capacity nobody else asks for is not held back, and while several tenants write one
 * tenant's flood cannot take more than its share of the CPU the others' writes need. A refusal
 * comes before anything is read or written (nothing is half-written), with the seconds to wait
 * until the next second begins; refused writes are not counted.
 */
export class WriteAdmission {
  private readonly perTenant: RateLimiterMemory | undefined;
  private readonly total: RateLimiterMemory | undefined;
  /** Tenant id → when it last asked to write (ms). */
  private readonly lastWrite = new Map<number, number>();
  private lastPrune = 0;

  constructor(private readonly opts: AdmissionOptions) {
    if (opts.writesPerSecond > 0) {
      // Counts are never refused by the limiters themselves: the decision is made below.
      const points = Number.MAX_SAFE_INTEGER;
      this.perTenant = new RateLimiterMemory({ keyPrefix: 'write_admission_tenant', points, duration: 1 });
      this.total = new RateLimiterMemory({ keyPrefix: 'write_admission_total', points, duration: 1 });
    }
  }

  /** Tenants that asked to write within the window (the asking one included, as it asks now). */
  writing(tenantId: number, now = Date.now()): number {
    this.lastWrite.set(tenantId, now);
    const since = now - this.opts.activeWindowMs;
    // Forget quiet tenants at most once a window, so the count stays a walk over the writing ones.
    if (now - this.lastPrune >= this.opts.activeWindowMs) {
      this.lastPrune = now;
      for (const [id, at] of this.lastWrite) if (at < since) this.lastWrite.delete(id);
    }
    let n = 0;
    for (const at of this.lastWrite.values()) if (at >= since) n++;
    return n;
  }

  async admit(tenantId: number): Promise<Admission> {
    if (!this.perTenant || !this.total) return { ok: true };
    const writing = this.writing(tenantId);
    const key = String(tenantId);
    const [total, mine] = await Promise.all([this.total.consume('all'), this.perTenant.consume(key)]);
    // At least one write a second each: with more tenants writing than the rate, every tenant's
    // first write of a second is still admitted (a flood cannot take the quiet ones' turns).
    const share = Math.max(1, this.opts.writesPerSecond / writing);
    if (writing === 1 || total.consumedPoints <= this.opts.writesPerSecond || mine.consumedPoints <= share) return { ok: true };
    await Promise.all([this.total.reward('all'), this.perTenant.reward(key)]);
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(mine.msBeforeNext / 1000)) };
  }
}

/**
 * Writes (POST, PUT, PATCH, DELETE) of the request's tenant, admitted at its fair share: past
 * it, 429 `rate_limited` with `Retry-After` (the REST error body, as the other 429s answer). The
 * REST API runs it after authentication (a caller without the tenant's credentials cannot spend
 * its share) and before the request's transaction.
 */
export function writeAdmission(admission: WriteAdmission): AppMiddleware {
  return async (ctx, next) => {
    const tenant = ctx.state.tenant;
    if (!tenant || !WRITE_METHODS.has(ctx.method)) return next();
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
