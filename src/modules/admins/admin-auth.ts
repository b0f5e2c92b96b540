import type { Knex } from '../../platform/db/knex.js';
import { PLATFORM_SCHEMA } from '../../platform/tenancy/tenant.js';
import { UnauthorizedError } from '../../platform/errors.js';
import { bindLog } from '../../kit/http/request-id.js';
import type { AppMiddleware } from '../../kit/http/context.js';
import { guardedCheck, parseBasic, VerifiedCredentials, type PasswordGuard } from '../users/index.auth.js';
import { adminByEmail } from './admins.data.js';

/**
 * HTTP Basic authentication of a platform administrator (`platform.admins`, created with
 * `npm run cli -- admins:create`), for the ops pages such as the queue dashboard; through the
 * same password guard as every other password check.
 */
export function platformAdminAuth(knex: Knex, passwords: PasswordGuard, cacheTtlMs = 5 * 60_000): AppMiddleware {
  const verified = new VerifiedCredentials(cacheTtlMs);
  return async (ctx, next) => {
    const creds = parseBasic(ctx.get('authorization'));
    const refuse = () => {
      ctx.set('WWW-Authenticate', 'Basic realm="Lectern platform admin", charset="UTF-8"');
      return new UnauthorizedError('Platform administrator credentials are required', 'invalid_credentials');
    };
    if (!creds) throw refuse();
    const admin = await adminByEmail(knex, creds.email);
    const key = verified.keyOf(PLATFORM_SCHEMA, creds.email, creds.password);
    if (!admin || !verified.has(key, admin.password_hash)) {
      if (!(await guardedCheck(ctx, passwords, `platform:${creds.email}`, admin?.password_hash, creds.password)) || !admin) throw refuse();
      verified.remember(key, admin.password_hash);
    }
    bindLog(ctx, { adminId: admin.id });
    await next();
  };
}
