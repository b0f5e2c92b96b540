import crypto from 'node:crypto';
import { UnauthorizedError } from '../errors.js';
import { hashPassword, verifyPassword } from '../modules/users/password.js';
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
class VerifiedCredentials {
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

function parseBasic(header: string): { email: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { email: decoded.slice(0, colon).toLowerCase(), password: decoded.slice(colon + 1) };
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
    if (!user?.password_hash) {
      // Same cost as a wrong password, so response time does not reveal which emails exist.
      dummyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
      await verifyPassword(await dummyHash, creds.password);
      throw fail();
    }
    const key = verified.keyOf(tenant.schema, creds.email, creds.password);
    if (!verified.has(key, user.password_hash)) {
      if (!(await verifyPassword(user.password_hash, creds.password))) throw fail();
      verified.remember(key, user.password_hash);
    }
    ctx.state.user = { id: user.id, email: user.email, companyId: user.company_id, permissions: user.permissions };
    bindLog(ctx, { userId: user.id });
    await next();
  };
}

// Runs on every REST request: plain SQL, so no query builder is compiled each time.
const USER_BY_EMAIL = `select users.id, users.email, users.password_hash, users.company_id, roles.permissions
  from users join roles on roles.id = users.role_id
  where lower(users.email) = ? and users.is_active limit 1`;

// A real argon2id hash of a random string, made once, to spend equal time on unknown users.
let dummyHash: Promise<string> | undefined;
