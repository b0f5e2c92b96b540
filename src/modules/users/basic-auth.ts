import crypto from 'node:crypto';
import type { Knex } from '../../platform/db/knex.js';
import { AppError, UnauthorizedError } from '../../platform/errors.js';
import type { PasswordGuard } from './password-guard.js';
import { activeUserWithPermissions, type ActiveUser } from './users.data.js';
import type { Found, ListenedCache } from '../../platform/db/change-listener.js';
import { readWithValue } from '../../platform/db/transaction.js';
import { accessGenerationSql } from '../../platform/tenancy/access-generation.js';
import { AskedPermissions, identityRefusal } from '../../kit/http/cached-identity.js';
import { hasControlCharacter } from '../../platform/util/text.js';
import { tenantOf, type AppContext, type AppMiddleware } from '../../kit/http/context.js';
import { bindLog } from '../../kit/http/request-id.js';

export interface AuthenticatedUser {
  id: number;
  email: string;
  companyId: number | null;
  permissions: string[];
}

declare module '../../kit/http/context.js' {
  interface AppState {
    user?: AuthenticatedUser;
  }
}

/**
 * Remembers successful password checks for a while, keyed by a keyed hash of tenant, email and
 * password (never the password itself). A hit still reads the user row and only counts when the
 * stored hash is the one that was verified, so changing the password forgets it at once.
 */
export class VerifiedCredentials {
  private readonly key = crypto.randomBytes(32);
  private readonly entries = new Map<string, { passwordHash: string; expires: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly max = 10000,
  ) {}

  /** The cache key of a set of credentials: never the password itself. */
  keyOf(schema: string, email: string, password: string): string {
    return crypto.createHmac('sha256', this.key).update(`${schema}\0${email}\0${password}`).digest('base64url');
  }

  has(key: string, passwordHash: string): boolean {
    const e = this.entries.get(key);
    return Boolean(e && e.expires > Date.now() && e.passwordHash === passwordHash);
  }

  remember(key: string, passwordHash: string): void {
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { passwordHash, expires: Date.now() + this.ttlMs });
  }
}

export function parseBasic(header: string): { email: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const email = decoded.slice(0, colon).toLowerCase();
  // No email holds a control character (a NUL would not even reach the database): wrong credentials.
  if (email.length > 254 || hasControlCharacter(email)) return undefined;
  return { email, password: decoded.slice(colon + 1) };
}

/**
 * HTTP Basic authentication of a user of the request's tenant (legacy REST API). Runs before the
 * request's transaction opens: the user comes from `users`, the process's cache of active users
 * by tenant schema, or else is read with one statement of its own; a password that must be
 * verified (no recent success remembered) goes through the password guard, so a flood of guesses
 * holds no pooled connection while argon2 runs, and is slowed like guesses on the sign-in pages.
 * A user from the cache is checked by the request's first statement, in its round trip
 * (ListenedCache.check, see requestDb): a user deactivated, a password changed or a
 * permission taken away since refuses the request, in every process, from the commit on. Missing
 * or wrong credentials, or credentials of another tenant, get 401 with `WWW-Authenticate: Basic`;
 * an address that must wait, 429 with `Retry-After`.
 */
export function basicAuth(knex: Knex, passwords: PasswordGuard, users: ListenedCache<ActiveUser>, cacheTtlMs = 5 * 60_000): AppMiddleware {
  const verified = new VerifiedCredentials(cacheTtlMs);
  return async (ctx, next) => {
    const tenant = tenantOf(ctx);
    const creds = parseBasic(ctx.get('authorization'));
    const fail = () => {
      ctx.set('WWW-Authenticate', `Basic realm="${tenant.slug}", charset="UTF-8"`);
      return new UnauthorizedError('Valid HTTP Basic credentials of a user of this instance are required', 'invalid_credentials');
    };
    if (!creds) throw fail();
    // Cached by the tenant's schema and id (a tenant dropped and made again under the same slug
    // is another tenant): a user of one tenant is never found on another's host.
    const cacheKey = `${tenant.id}:email:${creds.email}`;
    const read = (db: Knex) => activeUserWithPermissions(db, { email: creds.email }, tenant.schema);
    // Read with the generation it is current at, in the same round trip.
    const load = () => readWithValue(knex, accessGenerationSql(tenant.id), read);
    let found: Found<ActiveUser> | undefined = await users.get(tenant.schema, cacheKey, load);
    const key = verified.keyOf(tenant.schema, creds.email, creds.password);
    if (!found || !verified.has(key, found.value.password_hash ?? '')) {
      // A password to verify (44 ms of argon2) is verified against the user as it is now, not as cached.
      if (found?.cached) found = await users.refresh(tenant.schema, cacheKey, load);
      const check = await guardedCheck(ctx, passwords, `${tenant.id}:${creds.email}`, found?.value.password_hash, creds.password);
      if (!check || !found?.value.password_hash) throw fail();
      verified.remember(key, found.value.password_hash);
    }
    const user = found.value;
    const permissions = AskedPermissions.remembering(user.permissions);
    ctx.state.user = { id: user.id, email: user.email, companyId: user.company_id, permissions };
    const check = users.check(tenant.schema, cacheKey, found, read, (fresh) =>
      identityRefusal(user, fresh, permissions, { password: true, unauthenticated: fail }),
    );
    if (check) (ctx.state.checks ??= []).push(check);
    bindLog(ctx, { userId: user.id });
    await next();
  };
}

/**
 * A password check through the guard: true when it holds, false when it does not. An address
 * that must wait gets 429 (`too_many_attempts`) with `Retry-After`; when too many checks are
 * waiting already, 503 with `Retry-After: 1`.
 */
export async function guardedCheck(
  ctx: AppContext,
  passwords: PasswordGuard,
  account: string,
  passwordHash: string | null | undefined,
  password: string,
): Promise<boolean> {
  let check;
  try {
    check = await passwords.check(account, ctx.ip, passwordHash, password);
  } catch (err) {
    if (err instanceof AppError && err.status === 503) ctx.set('Retry-After', '1');
    throw err;
  }
  if (check.ok) return true;
  if (check.reason === 'invalid') return false;
  ctx.set('Retry-After', String(check.retryAfterS));
  throw new AppError(
    429,
    'too_many_attempts',
    `Too many failed attempts from your address: wait ${check.retryAfterS} s before trying again`,
  );
}
