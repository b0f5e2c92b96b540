import { z } from 'zod';
import type { Db } from '../../db/knex.js';
import { ConflictError, ValidationError } from '../../errors.js';
import { MIN_PASSWORD_LENGTH, hashPassword } from './password.js';

const createUserInput = z.object({
  email: z.email({ message: 'must be an email address' }).transform((e) => e.toLowerCase()),
  password: z.string().min(MIN_PASSWORD_LENGTH, { message: `must be at least ${MIN_PASSWORD_LENGTH} characters` }),
  role: z.string().min(1),
});

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
  const parsed = createUserInput.safeParse(input);
  if (!parsed.success) {
    const fields = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message]));
    throw new ValidationError(`Invalid user: ${Object.entries(fields).map(([k, v]) => `${k} ${v}`).join('; ')}`, { fields });
  }
  const { email, password, role } = parsed.data;
  const roleRow = await db('roles').where({ name: role }).first<{ id: number } | undefined>();
  if (!roleRow) throw new ValidationError(`Role '${role}' does not exist in this tenant`, { fields: { role: 'unknown role' } });
  const existing = await db('users').whereRaw('lower(email) = ?', [email]).first();
  if (existing) throw new ConflictError(`A user with email ${email} already exists`, 'user_exists');
  const [row] = await db('users')
    .insert({ email, password_hash: await hashPassword(password), role_id: roleRow.id })
    .returning<{ id: number }[]>('id');
  if (!row) throw new Error('user insert returned no id');
  return { id: row.id, email, role };
}
