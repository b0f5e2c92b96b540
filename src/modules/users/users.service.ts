import { z } from 'zod';
import { parseOrThrow } from '../../platform/util/validation.js';
import type { Db } from '../../platform/db/knex.js';
import { ConflictError, ValidationError } from '../../platform/errors.js';
import { MIN_PASSWORD_LENGTH, hashPassword } from './password.js';
import { insertUser, roleIdByName, userEmailTaken } from './users.data.js';

/** Sign-in credentials as every account kind takes them: an email (stored lower case) and a password. */
export const credentialsInput = z.object({
  email: z.email({ message: 'must be an email address' }).transform((e) => e.toLowerCase()),
  password: z.string().min(MIN_PASSWORD_LENGTH, { message: `must be at least ${MIN_PASSWORD_LENGTH} characters` }),
});

const createUserInput = credentialsInput.extend({ role: z.string().min(1) });

export interface CreatedUser {
  id: number;
  email: string;
  role: string;
}

/**
 * Creates a user of the current tenant with a hashed password and an existing role.
 * Runs on a tenant transaction (`db`).
 */
export async function createUser(db: Db, input: { email: string; password: string; role: string }): Promise<CreatedUser> {
  const { email, password, role } = parseOrThrow(createUserInput, input, 'user');
  const roleRow = await roleIdByName(db, role);
  if (!roleRow) throw new ValidationError(`Role '${role}' does not exist in this tenant`, { fields: { role: 'unknown role' } });
  if (await userEmailTaken(db, email)) throw new ConflictError(`A user with email ${email} already exists`, 'user_exists');
  const id = await insertUser(db, { email, password_hash: await hashPassword(password), role_id: roleRow.id });
  return { id, email, role };
}
