import type { Knex } from '../../platform/db/knex.js';
import { ConflictError } from '../../platform/errors.js';
import { parseOrThrow } from '../../platform/util/validation.js';
import { hashPassword, credentialsInput } from '../users/index.js';
import { adminEmailTaken, insertAdmin } from './admins.data.js';

/** Creates a platform administrator (ops: queue dashboard). Not a user of any tenant. */
export async function createPlatformAdmin(knex: Knex, input: { email: string; password: string }): Promise<{ id: number; email: string }> {
  const { email, password } = parseOrThrow(credentialsInput, input, 'administrator');
  if (await adminEmailTaken(knex, email)) {
    throw new ConflictError(`An administrator with email ${email} already exists`, 'admin_exists');
  }
  const id = await insertAdmin(knex, { email, password_hash: await hashPassword(password) });
  return { id, email };
}
