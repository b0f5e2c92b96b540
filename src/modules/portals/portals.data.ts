import type { ModelObject } from 'objection';
import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { PLATFORM_SCHEMA } from '../../platform/tenancy/tenant.js';

/**
 * Portals in the platform schema: an instance's published website addresses (domains), each
 * naming one instance. The only file that names the table.
 */

export class Portal extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.portals`;

  declare id: number;
  declare tenant_id: number;
  /** A lower-case host name (portals.rules.ts normalises it). */
  declare domain: string;
  declare created_by: string | null;
  declare created_at: Date;
}

export type PortalRow = ModelObject<Portal>;

const PORTALS = Portal.tableName;

export function portalByDomain(db: Db, domain: string): Promise<PortalRow | undefined> {
  return db<PortalRow>(PORTALS).where({ domain }).first();
}

export function portalById(db: Db, id: number): Promise<PortalRow | undefined> {
  return db<PortalRow>(PORTALS).where({ id }).first();
}

/** Portals by domain: every instance's, or one instance's. */
export function portalRows(db: Db, filter: { tenantId?: number } = {}): Promise<PortalRow[]> {
  const q = db<PortalRow>(PORTALS).orderBy('domain');
  if (filter.tenantId !== undefined) q.where({ tenant_id: filter.tenantId });
  return q;
}

/** Inserts a portal; undefined when the domain is some portal's already (nothing written). */
export async function insertPortal(db: Db, row: Pick<PortalRow, 'tenant_id' | 'domain' | 'created_by'>): Promise<PortalRow | undefined> {
  const [inserted] = await db(PORTALS).insert(row).onConflict('domain').ignore().returning<PortalRow[]>('*');
  return inserted;
}

/** Deletes the portal of a domain (with `tenantId`, only that instance's); the row deleted, or undefined. */
export async function deletePortal(db: Db, domain: string, filter: { tenantId?: number } = {}): Promise<PortalRow | undefined> {
  const q = db<PortalRow>(PORTALS).where({ domain });
  if (filter.tenantId !== undefined) q.where({ tenant_id: filter.tenantId });
  const [deleted] = await q.delete().returning<PortalRow[]>('*');
  return deleted;
}

/** One instance's portals with these ids (a page's batch); another instance's are not among them. */
export function tenantPortalsByIds(db: Db, tenantId: number, ids: readonly number[]): Promise<PortalRow[]> {
  return db<PortalRow>(PORTALS)
    .where({ tenant_id: tenantId })
    .whereIn('id', ids as number[]);
}
