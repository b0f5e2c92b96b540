import pLimit from 'p-limit';
import { RateLimiterPostgres, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Knex } from '../../platform/db/knex.js';
import { ServiceUnavailableError } from '../../platform/errors.js';
import { LOGIN_LIMITS_STORE } from './login-limits.data.js';
import { verifyPasswordOrDummy } from './password.js';

/**
 * The one check of a password, wherever one is typed or sent: the sign-in pages, REST Basic
 * auth, the queue dashboard. It bounds guessing without letting anyone lock a user out:
 *
 * - Failures are counted per account *and address*: from the address that keeps failing, after
 *   {@link ACCOUNT_FREE_FAILURES} failures each further attempt must wait, 2 s, then 4, 8... up to
 *   {@link MAX_WAIT_S} (an attempt made while waiting is refused without a check, 429). The same
 *   account from any other address is not slowed at all: the real user signs in while an
 *   attacker elsewhere waits.
 * - Failures per address over all accounts (one source trying many accounts) are slowed the same
 *   way after `addressFreeFailures` (PASSWORD_FAILURES_PER_ADDRESS, default 50).
 * - A success clears its account-and-address count. Counts last an hour from the first failure.
 *
 * The counts live in PostgreSQL (`platform.login_limits`), so every web process shares them (keyed
 * under the deployment's QUEUE_PREFIX, as the WebLink limits are).
 * argon2 verification (about 44 ms of CPU) runs at most `concurrency` at a time per process, with
 * at most `queue` waiting: a flood of guesses cannot take every core, and past the queue it is
 * refused (503) rather than piling up. No database connection is held while a check waits or runs.
 */

export const ACCOUNT_FREE_FAILURES = 5;
export const MAX_WAIT_S = 15 * 60;
const WINDOW_S = 3600;

export type PasswordCheck = { ok: true } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'throttled'; retryAfterS: number };

/** Seconds to wait after `failures` failures when the first `free` cost nothing. */
export function waitAfter(failures: number, free: number): number {
  return failures < free ? 0 : Math.min(MAX_WAIT_S, 2 ** (failures - free + 1));
}

export interface PasswordGuardOptions {
  /** argon2 verifications at once in this process. */
  concurrency: number;
  /** Verifications allowed to wait for a turn; more are refused (503). */
  queue: number;
  /** Failures from one address, over all accounts, before that address is slowed. */
  addressFreeFailures: number;
  /** The deployment's namespace (QUEUE_PREFIX): deployments sharing a database count apart. */
  namespace: string;
}

export class PasswordGuard {
  private readonly failures: RateLimiterPostgres;
  private readonly waits: RateLimiterPostgres;
  private readonly turns: ReturnType<typeof pLimit>;

  constructor(
    knex: Knex,
    private readonly opts: PasswordGuardOptions,
  ) {
    const store = { storeClient: knex, storeType: 'knex', ...LOGIN_LIMITS_STORE, clearExpiredByTimeout: false };
    // A count of failures per key for an hour (never "consumed" up: it only counts).
    this.failures = new RateLimiterPostgres({ ...store, keyPrefix: `pw-fail_${opts.namespace}`, points: 1_000_000, duration: WINDOW_S });
    // A key set here must wait until it expires (block() sets it past its one point).
    this.waits = new RateLimiterPostgres({ ...store, keyPrefix: `pw-wait_${opts.namespace}`, points: 1, duration: MAX_WAIT_S });
    this.turns = pLimit(opts.concurrency);
  }

  /**
   * Checks `password` against `passwordHash` for `account` (a key naming it, such as
   * `<tenant id>:<email>`) tried from `address`. With no hash (no such user) a real verification
   * still runs and fails, so timing and answers never tell which accounts exist.
   * Throws {@link ServiceUnavailableError} when too many checks are already waiting.
   */
  async check(account: string, address: string, passwordHash: string | null | undefined, password: string): Promise<PasswordCheck> {
    const keys = { pair: `${account}|${address}`, address };
    const waiting = await this.waitFor(keys);
    if (waiting > 0) return { ok: false, reason: 'throttled', retryAfterS: waiting };

    if (this.turns.pendingCount >= this.opts.queue)
      throw new ServiceUnavailableError('Too many sign-in checks at once; try again in a moment', 'busy');
    const valid = await this.turns(() => verifyPasswordOrDummy(passwordHash, password));
    if (valid && passwordHash) {
      await this.failures.delete(keys.pair);
      return { ok: true };
    }
    const [pair, addr] = await Promise.all([this.failures.penalty(keys.pair), this.failures.penalty(keys.address)]);
    const pairWait = waitAfter(pair.consumedPoints, ACCOUNT_FREE_FAILURES);
    const addressWait = waitAfter(addr.consumedPoints, this.opts.addressFreeFailures);
    await Promise.all([pairWait && this.waits.block(keys.pair, pairWait), addressWait && this.waits.block(keys.address, addressWait)]);
    const wait = Math.max(pairWait, addressWait);
    return wait > 0 ? { ok: false, reason: 'throttled', retryAfterS: wait } : { ok: false, reason: 'invalid' };
  }

  /** Seconds the account from this address (or the address itself) must still wait: 0 when it may try. */
  private async waitFor(keys: { pair: string; address: string }): Promise<number> {
    const [pair, address] = await Promise.all([this.waits.get(keys.pair), this.waits.get(keys.address)]);
    const left = (res: RateLimiterRes | null) =>
      res && res.consumedPoints > 1 && res.msBeforeNext > 0 ? Math.ceil(res.msBeforeNext / 1000) : 0;
    return Math.max(left(pair), left(address));
  }
}
