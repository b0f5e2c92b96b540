import { tenantBaseUrl, type Config } from '../platform/config.js';
import type { Knex } from '../platform/db/knex.js';
import { AppError } from '../platform/errors.js';
import type { Tenant } from '../platform/tenancy/tenant.js';
import type { PlatformRuntime } from '../platform/runtime.js';
import { withTenant } from '../platform/tenancy/with-tenant.js';
import type { Flags } from './manifest.js';

/**
 * What every area's commands (`src/cli/<area>.commands.ts`) share: reading flag values, and
 * {@link inTenant}, the one way a command works in a tenant. (Names, summaries and flags are in
 * manifest.ts.)
 */

/** A mistake in the command line: exit 2 with the message (main.ts). */
export class UsageError extends Error {}

export function str(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function intFlag(flags: Flags, name: string): number {
  const v = str(flags, name);
  if (!/^\d{1,10}$/.test(v) || Number(v) < 1 || Number(v) > 2147483647) throw new UsageError(`--${name} must be a whole number (got ${v})`);
  return Number(v);
}

export function boolFlag(flags: Flags, name: string): boolean | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new UsageError(`--${name} must be true or false (got ${String(v)})`);
}

export async function tenantBySlug(rt: PlatformRuntime, slug: string): Promise<Tenant> {
  const tenant = await rt.registry.bySlug(slug);
  if (!tenant) throw new AppError(404, 'tenant_not_found', `No tenant '${slug}'`);
  return tenant;
}

/**
 * Runs `fn` in the transaction of the tenant named by `--tenant`, the same tenant transaction as
 * a web request's (withTenant); jobs it queues go out after commit, before the command returns.
 */
export async function inTenant<T>(rt: PlatformRuntime, flags: Flags, fn: (db: Knex, tenant: Tenant) => Promise<T>): Promise<T> {
  const tenant = await tenantBySlug(rt, str(flags, 'tenant'));
  const result = await withTenant(rt.knex, tenant, (db) => fn(db, tenant), { dispatcher: rt.dispatcher, via: { context: 'cli' } });
  await rt.dispatcher.drain();
  return result;
}

export const restBaseUrl = (config: Config, slug: string) => `${tenantBaseUrl(config, slug)}/api/v2`;
