import { BadRequestError } from '../errors.js';

/**
 * A slug is one DNS label (it is the tenant's host name) and also names the tenant's schema,
 * so it is held to the intersection of both: lowercase letters, digits and inner hyphens.
 * Underscores are refused so two slugs can never map to one schema name.
 */
const SLUG = /^[a-z][a-z0-9-]{0,38}[a-z0-9]$/;
const RESERVED = new Set(['www', 'api', 'auth', 'admin', 'platform', 'public', 'static', 'mail', 'app']);

export function assertValidSlug(slug: string): void {
  if (!SLUG.test(slug) || slug.includes('--')) {
    throw new BadRequestError(
      `Invalid tenant slug '${slug}': use 2-40 lowercase letters, digits and single hyphens, starting with a letter`,
      undefined,
      'invalid_slug',
    );
  }
  if (RESERVED.has(slug)) {
    throw new BadRequestError(`Tenant slug '${slug}' is reserved`, undefined, 'invalid_slug');
  }
}

export function isValidSlug(slug: string): boolean {
  return SLUG.test(slug) && !slug.includes('--') && !RESERVED.has(slug);
}

/** `acme-uk` -> `tenant_acme_uk`. Throws for anything that is not a valid slug. */
export function schemaForSlug(slug: string): string {
  assertValidSlug(slug);
  return `tenant_${slug.replace(/-/g, '_')}`;
}

const SCHEMA = /^tenant_[a-z][a-z0-9_]{0,38}[a-z0-9]$/;

/** Last line of defence before a schema name is used in SQL: only our own shape passes. */
export function assertTenantSchema(schema: string): string {
  if (!SCHEMA.test(schema)) throw new Error(`Refusing unexpected tenant schema name ${JSON.stringify(schema)}`);
  return schema;
}
