import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Knex } from '../../platform/db/knex.js';
import { ACCOUNT_FREE_FAILURES, LOGIN_LIMITS_STORE, MAX_WAIT_S, waitAfter } from '../users/index.js';

/**
 * Client authentication at the token endpoint, slowed as password guesses are (PasswordGuard)
 * where that protects something: RFC 6749 §2.3.1 asks for protection against brute force
 * wherever a client secret is checked. It tells a client with a wrong secret to stop rather than
 * hammer, and keeps one source's guesses from being checked faster than one at a time.
 *
 * - Failures count per client *and address*: from the address that keeps failing, after
 *   {@link CLIENT_FREE_FAILURES} failures each further failure is answered 429 with a wait, 2 s,
 *   then 4, 8... up to 15 minutes. The same client from any other address, and every other
 *   client from this one, is not slowed at all.
 * - Unlike a password, the right secret is accepted even during a wait. A client secret is 256
 *   random bits: no number of guesses finds it, so refusing it would protect nothing, while it
 *   would let anyone behind the same address (a NAT, an automation platform's shared egress) who
 *   knows a client id lock that client out for up to 15 minutes.
 * - Ids that name no active client count together, per address: trying many ids from one source
 *   slows it the same way for unknown ids only, and stores one count, whatever the ids tried.
 * - Attempts on one count run one at a time in this process, so a burst is checked no faster than
 *   one by one. A token issued clears its count; counts last an hour from the first failure, in
 *   `platform.login_limits` (shared by every process, keyed under the deployment's QUEUE_PREFIX).
 */

export const CLIENT_FREE_FAILURES = ACCOUNT_FREE_FAILURES;
const WINDOW_S = 3600;
/** The client part of the key for ids that name no active client. */
const UNKNOWN_CLIENT = '?';

/** What the guarded attempt found: a token issued, the credentials refused, or neither (another error). */
export type ClientAuthOutcome = 'authenticated' | 'refused' | 'other';

export type Guarded<T> = { throttled: false; value: T } | { throttled: true; retryAfterS: number };

/** One count's attempts in this process: the last one queued. */
interface Queue {
  last: Promise<void>;
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
    return this.inTurn(key, async () => {
      const [wait, failed] = await Promise.all([this.waits.get(key), this.failures.get(key)]);
      const waitingMs = wait && wait.consumedPoints > 1 ? wait.msBeforeNext : 0;
      const { outcome, value } = await attempt();
      if (outcome === 'authenticated') {
        // Best effort: the token is issued (a refresh token already rotated), so a failure to
        // forget the count must not turn the answer into an error the client would retry.
        if (failed) await this.failures.delete(key).catch(() => undefined);
        if (waitingMs > 0) await this.waits.delete(key).catch(() => undefined);
        return { throttled: false, value };
      }
      if (outcome !== 'refused') return { throttled: false, value };
      const count = await this.failures.penalty(key);
      if (waitingMs > 0) return { throttled: true, retryAfterS: Math.ceil(waitingMs / 1000) };
      const next = waitAfter(count.consumedPoints, CLIENT_FREE_FAILURES);
      if (next === 0) return { throttled: false, value };
      await this.waits.block(key, next);
      return { throttled: true, retryAfterS: next };
    });
  }

  /** Runs `fn` after every attempt already queued on `key` in this process. */
  private async inTurn<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const queue = this.queues.get(key) ?? { last: Promise.resolve() };
    const mine = queue.last.then(() => fn());
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
