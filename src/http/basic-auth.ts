import crypto from 'node:crypto';
import type { Knex } from '../db/knex.js';
import { PLATFORM_SCHEMA } from '../tenancy/tenant.js';
import { UnauthorizedError } from '../errors.js';
import { verifyPasswordOrDummy } from '../modules/users/password.js';
import { hasControlCharacter } from '../util/text.js';
import { tenantOf, type AppMiddleware } from './context.js';
import { bindLog } from './request-id.js';
import { dbOf } from './tenant-transaction.js';

export interface AuthenticatedUser {
  id: number;
  email: string;
  companyId: number | null;
  permissions: string[];
}

declare module './context.js' {
  interface AppState {
    user?: AuthenticatedUser;
  }
}

interface UserRow {
  id: number;
  email: string;
  password_hash: string | null;
  company_id: number | null;
  permissions: string[];
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
 * HTTP Basic authentication of a user of the request's tenant (legacy REST API), read in the
 * request's transaction. Missing or
 * wrong credentials, or credentials of another tenant, get 401 with `WWW-Authenticate: Basic`.
 */
export function basicAuth(cacheTtlMs = 5 * 60_000): AppMiddleware {
  const verified = new VerifiedCredentials(cacheTtlMs);
  return async (ctx, next) => {
    const tenant = tenantOf(ctx);
    const creds = parseBasic(ctx.get('authorization'));
    const fail = () => {
      ctx.set('WWW-Authenticate', `Basic realm="${tenant.slug}", charset="UTF-8"`);
      return new UnauthorizedError('Valid HTTP Basic credentials of a user of this instance are required', 'invalid_credentials');
    };
    if (!creds) throw fail();
    const { rows } = await dbOf(ctx).raw<{ rows: UserRow[] }>(USER_BY_EMAIL, [creds.email]);
    const user = rows[0];
    if (!(await checkPassword(verified, verified.keyOf(tenant.schema, creds.email, creds.password), user?.password_hash, creds.password)) || !user) throw fail();
    ctx.state.user = { id: user.id, email: user.email, companyId: user.company_id, permissions: user.permissions };
    bindLog(ctx, { userId: user.id });
    await next();
  };
}

/**
 * Verifies a password against a stored hash, remembering a success in `cache` under `key`.
 * Unknown users (no hash) cost one real argon2 verification too, so timing does not tell
 * which emails exist.
 */
export async function checkPassword(cache: VerifiedCredentials, key: string, passwordHash: string | null | undefined, password: string): Promise<boolean> {
  if (passwordHash && cache.has(key, passwordHash)) return true;
  if (!(await verifyPasswordOrDummy(passwordHash, password))) return false;
  cache.remember(key, passwordHash!);
  return true;
}

// Runs on every REST request: plain SQL, so no query builder is compiled each time.
const USER_BY_EMAIL = `select users.id, users.email, users.password_hash, users.company_id, roles.permissions
  from users join roles on roles.id = users.role_id
  where lower(users.email) = ? and users.is_active limit 1`;

/**
 * HTTP Basic authentication of a platform administrator (`platform.admins`, created with
 * `npm run cli -- admins:create`), for the ops pages such as the queue dashboard.
 */
export function platformAdminAuth(knex: Knex, cacheTtlMs = 5 * 60_000): AppMiddleware {
  const verified = new VerifiedCredentials(cacheTtlMs);
  return async (ctx, next) => {
    const creds = parseBasic(ctx.get('authorization'));
    const admin = creds
      ? await knex(`${PLATFORM_SCHEMA}.admins`).whereRaw('lower(email) = ?', [creds.email]).first<{ id: number; password_hash: string } | undefined>('id', 'password_hash')
      : undefined;
    if (!creds || !(await checkPassword(verified, verified.keyOf(PLATFORM_SCHEMA, creds.email, creds.password), admin?.password_hash, creds.password))) {
      ctx.set('WWW-Authenticate', 'Basic realm="Lectern platform admin", charset="UTF-8"');
      throw new UnauthorizedError('Platform administrator credentials are required', 'invalid_credentials');
    }
    bindLog(ctx, { adminId: admin!.id });
    await next();
  };
}
