/**
 * Permissions are strings such as `COURSE_TEMPLATE_VIEW`. A role holds a list of them, where
 * `*` grants everything and `*_VIEW` grants every view permission, so the built-in `admin` and
 * `viewer` roles keep covering permissions that later modules add.
 */
export function hasPermission(granted: readonly string[], permission: string): boolean {
  return granted.includes(permission) || granted.includes('*') || (permission.endsWith('_VIEW') && granted.includes('*_VIEW'));
}
