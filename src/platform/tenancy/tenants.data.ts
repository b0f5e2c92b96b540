import type { ModelObject } from 'objection';
import type { Db } from '../db/knex.js';
import { BaseModel } from '../db/model.js';
import { PLATFORM_SCHEMA, type Tenant } from './tenant.js';

/**
 * The tenant registry (`platform.tenants`): one row per tenant, naming its schema. The only file
 * that names the table. A tenant is reachable while its status is `active`.
 */
export class TenantRecord extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.tenants`;

  declare id: number;
  /** The host label (`acme` in `acme.lectern.example`). */
  declare slug: string;
  declare name: string;
  declare schema_name: string;
  declare status: string;
  /** Headline counters refreshed by the tenant-stats job (`tenants:list` shows them). */
  declare stats: Record<string, number>;
  declare stats_updated_at: Date | null;
  declare created_at: Date;
}

export type TenantRow = ModelObject<TenantRecord>;

const TABLE = TenantRecord.tableName;

export const toTenant = (r: Pick<TenantRow, 'id' | 'slug' | 'name' | 'schema_name'>): Tenant => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  schema: r.schema_name,
});

/** An active tenant by slug. */
export function activeTenantBySlug(db: Db, slug: string): Promise<TenantRow | undefined> {
  return db<TenantRow>(TABLE).where({ slug, status: 'active' }).first();
}

/** An active tenant by id. */
export function activeTenantById(db: Db, id: number): Promise<TenantRow | undefined> {
  return db<TenantRow>(TABLE).where({ id, status: 'active' }).first();
}

/** A tenant's id and schema whatever its status (a suspended one keeps its data and its upkeep). */
export async function tenantSchemaById(db: Db, id: number): Promise<{ id: number; schema: string } | undefined> {
  const row = await db<TenantRow>(TABLE).where({ id }).first('id', 'schema_name');
  return row ? { id: row.id, schema: row.schema_name } : undefined;
}

/** The active tenants, oldest first. */
export function activeTenants(db: Db): Promise<TenantRow[]> {
  return db<TenantRow>(TABLE).where({ status: 'active' }).orderBy('id');
}

/** Every tenant whatever its status, oldest first (ops listing). */
export function allTenants(db: Db): Promise<TenantRow[]> {
  return db<TenantRow>(TABLE).orderBy('id');
}

/** Every tenant's slug and schema, oldest first (migrate-all). */
export function tenantSchemas(db: Db): Promise<Pick<TenantRow, 'slug' | 'schema_name'>[]> {
  return db<TenantRow>(TABLE).select('slug', 'schema_name').orderBy('id');
}

/** Whether a tenant (of any status) has this slug. */
export async function tenantSlugTaken(db: Db, slug: string): Promise<boolean> {
  return Boolean(await db(TABLE).where({ slug }).first());
}

/** Registers a tenant; returns its id. */
export async function insertTenant(db: Db, row: Pick<TenantRow, 'slug' | 'name' | 'schema_name'>): Promise<number> {
  const [inserted] = await db(TABLE).insert(row).returning<{ id: number }[]>('id');
  if (!inserted) throw new Error('tenant insert returned no id');
  return inserted.id;
}

export async function deleteTenant(db: Db, slug: string): Promise<void> {
  await db(TABLE).where({ slug }).delete();
}

/** Stores a tenant's headline counters. */
export async function saveTenantStats(db: Db, tenantId: number, stats: object): Promise<void> {
  await db(TABLE)
    .where({ id: tenantId })
    .update({ stats: JSON.stringify(stats), stats_updated_at: db.fn.now() });
}
