import { RateLimiterPostgres, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Knex } from '../../db/knex.js';
import { PLATFORM_SCHEMA, type Tenant } from '../../tenancy/tenant.js';
import { withTenant } from '../../tenancy/with-tenant.js';
import { hasControlCharacter } from '../../util/text.js';
import { verifyPasswordOrDummy } from './password.js';

/**
 * Signing a tenant user in on Lectern's pages (OAuth sign-in, Control Panel), with a bound on
 * guessing: after 5 failed attempts on one account, or 20 from one address, in 15 minutes,
 * that account (or address) waits 15 minutes. The counts live in PostgreSQL, so every web
 * process sees the same ones. Messages never say whether an email exists: an unknown email
 * costs a real password verification and counts like a wrong password.
 */

export interface SignedInUser {
  id: number;
  email: string;
  permissions: string[];
}

export type SignInResult = { ok: true; user: SignedInUser } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'throttled'; retryAfterS: number };

const WINDOW_S = 15 * 60;
const ACCOUNT_FAILURES = 5;
const ADDRESS_FAILURES = 20;

export class SignIn {
  private readonly perAccount: RateLimiterPostgres;
  private readonly perAddress: RateLimiterPostgres;

  constructor(private readonly knex: Knex) {
    const store = { storeClient: knex, storeType: 'knex', schemaName: PLATFORM_SCHEMA, tableName: 'login_limits', tableCreated: true, clearExpiredByTimeout: false };
    this.perAccount = new RateLimiterPostgres({ ...store, keyPrefix: 'account', points: ACCOUNT_FAILURES, duration: WINDOW_S, blockDuration: WINDOW_S });
    this.perAddress = new RateLimiterPostgres({ ...store, keyPrefix: 'address', points: ADDRESS_FAILURES, duration: WINDOW_S, blockDuration: WINDOW_S });
  }

  async attempt(tenant: Tenant, emailInput: string, password: string, address: string): Promise<SignInResult> {
    // No account has such an email (a NUL, a line break, a novel): refused like a wrong password,
    // costing the same verification, counted for the address only (there is no account to count).
    const email = emailInput.trim().toLowerCase();
    if (email.length > 254 || hasControlCharacter(email)) {
      await verifyPasswordOrDummy(undefined, password);
      await this.perAddress.penalty(address);
      const wait = await this.waitFor('', address);
      return wait > 0 ? { ok: false, reason: 'throttled', retryAfterS: wait } : { ok: false, reason: 'invalid' };
    }
    const accountKey = `${tenant.id}:${email}`;
    const waiting = await this.waitFor(accountKey, address);
    if (waiting > 0) return { ok: false, reason: 'throttled', retryAfterS: waiting };

    const user = await withTenant(this.knex, tenant, (db) =>
      db('users as u')
        .join('roles as r', 'r.id', 'u.role_id')
        .whereRaw('lower(u.email) = ?', [email])
        .where('u.is_active', true)
        .first<{ id: number; email: string; password_hash: string | null; permissions: string[] } | undefined>('u.id', 'u.email', 'u.password_hash', 'r.permissions'),
    );
    if (!(await verifyPasswordOrDummy(user?.password_hash, password)) || !user) {
      await Promise.all([this.perAccount.penalty(accountKey), this.perAddress.penalty(address)]);
      const now = await this.waitFor(accountKey, address);
      return now > 0 ? { ok: false, reason: 'throttled', retryAfterS: now } : { ok: false, reason: 'invalid' };
    }
    await this.perAccount.delete(accountKey);
    return { ok: true, user: { id: user.id, email: user.email, permissions: user.permissions } };
  }

  /** Seconds the account or address must still wait (0: it may try). */
  private async waitFor(accountKey: string, address: string): Promise<number> {
    const [account, addr] = await Promise.all([this.perAccount.get(accountKey), this.perAddress.get(address)]);
    const blocked = (res: RateLimiterRes | null, points: number) => (res && res.consumedPoints >= points ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : 0);
    return Math.max(blocked(account, ACCOUNT_FAILURES), blocked(addr, ADDRESS_FAILURES));
  }
}
