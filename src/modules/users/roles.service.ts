import { z } from 'zod';
import type { Db } from '../../platform/db/knex.js';
import { ConflictError } from '../../platform/errors.js';
import { parseOrThrow } from '../../platform/util/validation.js';
import { insertRole, listRoles as listRoleRows, roleNameTaken } from './users.data.js';

/**
 * Roles are named permission sets. Permissions are `<ENTITY>_VIEW` / `<ENTITY>_EDIT` for each
 * entity of the REST and GraphQL APIs, plus `*` (everything: the built-in `admin`) and `*_VIEW`
 * (every view permission: the built-in `viewer`). A role naming a permission that does not
 * exist is refused, so a typo never silently grants nothing.
 */
export const PERMISSION_ENTITIES = [
  'AUTHORIZED_APPLICATIONS',
  'CAMPAIGN',
  'CATEGORY',
  'COMPANY',
  'CONTACT',
  'COURSE_TEMPLATE',
  'CUSTOM_FIELD',
  'DELEGATE',
  'EVENT',
  'INVOICE',
  'LEARNING_PATH',
  'LOCALE',
  'LOCATION',
  'MARKETING_ACTIVITY',
  'OPPORTUNITY',
  'PORTAL',
  'TAX_TYPE',
  'USER',
  'WEBHOOKS',
] as const;

export const KNOWN_PERMISSIONS: readonly string[] = ['*', '*_VIEW', ...PERMISSION_ENTITIES.flatMap((e) => [`${e}_VIEW`, `${e}_EDIT`])];

const roleInput = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/, { message: 'must be 1-40 lowercase letters, digits, _ or -, starting with a letter' }),
  permissions: z
    .array(z.string())
    .min(1, { message: 'needs at least one permission' })
    .refine((ps) => ps.every((p) => KNOWN_PERMISSIONS.includes(p)), { message: `must be from: ${KNOWN_PERMISSIONS.join(', ')}` }),
});

export async function createRole(
  db: Db,
  input: { name: string; permissions: string[] },
): Promise<{ id: number; name: string; permissions: string[] }> {
  const { name, permissions } = parseOrThrow(roleInput, input, 'role');
  if (await roleNameTaken(db, name)) throw new ConflictError(`Role '${name}' already exists`, 'role_exists');
  return insertRole(db, { name, permissions: [...new Set(permissions)] });
}

export function listRoles(db: Db): Promise<{ id: number; name: string; permissions: string[] }[]> {
  return listRoleRows(db);
}
