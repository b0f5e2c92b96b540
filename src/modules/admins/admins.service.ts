import type { Knex } from '../../platform/db/knex.js';
import { ConflictError } from '../../platform/errors.js';
import { PLATFORM_SCHEMA } from '../../platform/tenancy/tenant.js';
import { parseOrThrow } from '../../platform/util/validation.js';
import { hashPassword } from '../users/password.js';
import { credentialsInput } from '../users/users.service.js';

/** Creates a platform administrator (ops: queue dashboard). Not a user of any tenant. */
export async function createPlatformAdmin(knex: Knex, input: { email: string; password: string }): Promise<{ id: number; email: string }> {
  const { email, password } = parseOrThrow(credentialsInput, input, 'administrator');
  if (await knex(`${PLATFORM_SCHEMA}.admins`).whereRaw('lower(email) = ?', [email]).first()) {
    throw new ConflictError(`An administrator with email ${email} already exists`, 'admin_exists');
  }
  const [row] = await knex(`${PLATFORM_SCHEMA}.admins`).insert({ email, password_hash: await hashPassword(password) }).returning<{ id: number }[]>('id');
  return { id: row!.id, email };
}
