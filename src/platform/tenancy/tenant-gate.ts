import pLimit from 'p-limit';
import { ServiceUnavailableError } from '../errors.js';

/**
 * Bounds the database work one tenant has in flight in this process, so no tenant can hold the
 * whole connection pool: a tenant runs at most `perTenant` request transactions at once, and of
 * those at most `perTenantWeblink` for its public, anonymous WebLink API (so a flood of
 * anonymous catalogue requests cannot starve the tenant's own integrations either). Requests past
 * that wait their turn, at most `maxWaiting` per tenant and `maxWaitMs` each; past either they
 * are refused with 503 (`busy`) and nothing of them runs.
 */
export type Lane = 'api' | 'weblink';

export interface TenantGateOptions {
  perTenant: number;
  perTenantWeblink: number;
  maxWaiting: number;
  maxWaitMs: number;
}

export class TenantGate {
  private readonly limits = new Map<string, ReturnType<typeof pLimit>>();

  constructor(private readonly opts: TenantGateOptions) {}

  /** Runs `work` when `tenantId` (in `lane`) has a turn. */
  run<T>(tenantId: number, lane: Lane, work: () => Promise<T>): Promise<T> {
    const own = () => this.take(`t${tenantId}`, this.opts.perTenant, work);
    return lane === 'weblink' ? this.take(`w${tenantId}`, this.opts.perTenantWeblink, own) : own();
  }

  private take<T>(key: string, concurrency: number, work: () => Promise<T>): Promise<T> {
    let limit = this.limits.get(key);
    if (!limit) this.limits.set(key, (limit = pLimit(concurrency)));
    const free = limit.activeCount < concurrency;
    if (!free && limit.pendingCount >= this.opts.maxWaiting) return Promise.reject(busy());
    let givenUp = false;
    let timer: NodeJS.Timeout | undefined;
    const queued = limit(async () => {
      clearTimeout(timer);
      // It gave up waiting already: its turn passes on at once.
      if (givenUp) return undefined as T;
      return work();
    });
    const forget = () => {
      // An idle tenant keeps no entry: the map holds only tenants with work in flight.
      if (limit.activeCount === 0 && limit.pendingCount === 0 && this.limits.get(key) === limit) this.limits.delete(key);
    };
    void queued.then(forget, forget);
    if (free) return queued;
    const waited = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        givenUp = true;
        reject(busy());
      }, this.opts.maxWaitMs);
    });
    return Promise.race([queued, waited]);
  }

  /** Tenants (and WebLink lanes) with work in flight or waiting: for tests and diagnostics. */
  get size(): number {
    return this.limits.size;
  }
}

const busy = () => new ServiceUnavailableError('This instance has too many requests in progress; try again in a moment', 'busy');
