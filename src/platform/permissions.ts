/**
 * Permissions are strings such as `COURSE_TEMPLATE_VIEW`. A role holds a list of them, where
 * `*` grants everything and `*_VIEW` grants every view permission, so the built-in `admin` and
 * `viewer` roles keep covering permissions that later modules add.
 */
import { ForbiddenError } from './errors.js';

export function hasPermission(granted: readonly string[], permission: string): boolean {
  return granted.includes(permission) || granted.includes('*') || (permission.endsWith('_VIEW') && granted.includes('*_VIEW'));
}

/**
 * Refuses (403) a caller whose role lacks `permission`. Checked before anything else is read,
 * so a refusal never reveals whether the record exists.
 */
export function assertPermission(user: { permissions: readonly string[] } | undefined, permission: string): void {
  if (!user || !hasPermission(user.permissions, permission)) {
    throw new ForbiddenError(`Your role does not have the ${permission} permission`, 'permission_denied');
  }
}
