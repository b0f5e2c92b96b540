import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Knex } from '../../platform/db/knex.js';
import { ACCOUNT_FREE_FAILURES, LOGIN_LIMITS_STORE, MAX_WAIT_S, waitAfter } from '../users/index.js';

/**
 * Client authentication at the token endpoint, bounded as password guesses are (PasswordGuard):
 * RFC 6749 §2.3.1 asks for protection against brute force wherever a client secret is checked.
 * 256-bit secrets cannot be guessed anyway; this keeps a flood of guesses from being checked at
 * all, and tells a client with a wrong secret to stop rather than hammer.
 *
 * - Failures count per client *and address*: from the address that keeps failing, after
 *   {@link CLIENT_FREE_FAILURES} failures each further attempt must wait, 2 s, then 4, 8... up
 *   to 15 minutes, and is refused without a check meanwhile, even with the right secret (as a
 *   password is: else the wait would not slow guessing). The same client from any other address,
 *   and every other client from this one, is not slowed at all: nobody can lock a client out
 *   from elsewhere, and one failing client never holds up its neighbours behind a shared address.
 * - Ids that name no active client count together, per address: trying many ids from one source
 *   slows it the same way for unknown ids only, and stores one count, whatever the ids tried.
 * - Attempts on one count run one at a time in this process, so a burst is checked no faster than
 *   one by one (a burst of 300 has 5 checked, not 300). A token issued clears its count; counts
 *   last an hour from the first failure, in `platform.login_limits` (shared by every process,
 *   keyed under the deployment's QUEUE_PREFIX).
 */

export const CLIENT_FREE_FAILURES = ACCOUNT_FREE_FAILURES;
const WINDOW_S = 3600;
/** The client part of the key for ids that name no active client. */
const UNKNOWN_CLIENT = '?';

/** What the guarded attempt found: a token issued, the credentials refused, or neither (another error). */
export type ClientAuthOutcome = 'authenticated' | 'refused' | 'other';

export type Guarded<T> = { throttled: false; value: T } | { throttled: true; retryAfterS: number };

/** One count's attempts in this process: the last one queued, and the end of a wait seen (epoch ms). */
interface Queue {
  last: Promise<void>;
  waitUntil: number;
}

export interface ClientAuthGuardOptions {
  /** The deployment's namespace (QUEUE_PREFIX): deployments sharing a database count apart. */
  namespace: string;
  /** Whether `clientId` names an active client (no secret check). */
  isClient(clientId: string): Promise<boolean>;
}

export class ClientAuthGuard {
  private readonly failures: RateLimiterPostgres;
  private readonly waits: RateLimiterPostgres;
  /** The attempts in flight on each count in this process. */
  private readonly queues = new Map<string, Queue>();

  constructor(
    knex: Knex,
    private readonly opts: ClientAuthGuardOptions,
  ) {
    const store = { storeClient: knex, storeType: 'knex', ...LOGIN_LIMITS_STORE, clearExpiredByTimeout: false };
    // The same two shapes as the password guard's (a count, and a wait set by block()), under prefixes of their own.
    this.failures = new RateLimiterPostgres({
      ...store,
      keyPrefix: `client-fail_${opts.namespace}`,
      points: 1_000_000,
      duration: WINDOW_S,
    });
    this.waits = new RateLimiterPostgres({ ...store, keyPrefix: `client-wait_${opts.namespace}`, points: 1, duration: MAX_WAIT_S });
  }

  /**
   * Runs `attempt` (one client authentication by `clientId` with a secret, from `address`) unless
   * that client from that address must wait; counts it when it reports the credentials refused.
   * The failure that starts a wait is answered as throttled too, with that wait.
   */
  async attempt<T>(
    clientId: string,
    address: string,
    attempt: () => Promise<{ outcome: ClientAuthOutcome; value: T }>,
  ): Promise<Guarded<T>> {
    const key = `${(await this.opts.isClient(clientId)) ? clientId : UNKNOWN_CLIENT}|${address}`;
    return this.inTurn(key, async (queue) => {
      // A burst queued behind a wait already known is answered without the database.
      const known = queue.waitUntil - Date.now();
      if (known > 0) return { throttled: true, retryAfterS: Math.ceil(known / 1000) };
      const [wait, failed] = await Promise.all([this.waits.get(key), this.failures.get(key)]);
      if (wait && wait.consumedPoints > 1 && wait.msBeforeNext > 0) {
        queue.waitUntil = Date.now() + wait.msBeforeNext;
        return { throttled: true, retryAfterS: Math.ceil(wait.msBeforeNext / 1000) };
      }

      const { outcome, value } = await attempt();
      if (outcome === 'authenticated' && failed) await this.failures.delete(key);
      if (outcome !== 'refused') return { throttled: false, value };
      const count = await this.failures.penalty(key);
      const next = waitAfter(count.consumedPoints, CLIENT_FREE_FAILURES);
      if (next === 0) return { throttled: false, value };
      await this.waits.block(key, next);
      queue.waitUntil = Date.now() + next * 1000;
      return { throttled: true, retryAfterS: next };
    });
  }

  /** Runs `fn` after every attempt already queued on `key` in this process. */
  private async inTurn<T>(key: string, fn: (queue: Queue) => Promise<T>): Promise<T> {
    const queue = this.queues.get(key) ?? { last: Promise.resolve(), waitUntil: 0 };
    const mine = queue.last.then(() => fn(queue));
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    queue.last = settled;
    this.queues.set(key, queue);
    try {
      return await mine;
    } finally {
      // The last one out forgets the queue: the map holds only counts with attempts in flight.
      if (queue.last === settled) this.queues.delete(key);
    }
  }
}
