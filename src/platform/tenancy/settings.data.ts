import type { Db } from '../db/knex.js';
import { BaseModel } from '../db/model.js';

/**
 * The tenant's settings: one row (`id = 1`, a check constraint) in each tenant schema, written
 * when the tenant is provisioned. The only file that names the `settings` table; every query
 * runs in the transaction passed in, whose `search_path` is the tenant's.
 */
export class Settings extends BaseModel {
  static override tableName = 'settings';

  declare id: number;
  declare name: string;
  declare created_at: Date;
  /** How REST orders proceed from their initial state (migrations/tenant/004_orders.ts). */
  declare order_workflow: 'automatic' | 'manual';
  /** Opt-in capacity check on orders. */
  declare prevent_overbooking: boolean;
}

/** The columns a caller may change (never `id`, there is one row). */
export type SettingsChange = Partial<Pick<Settings, 'name' | 'order_workflow' | 'prevent_overbooking'>>;

/** Writes the tenant's settings row; called once, by provisioning, inside the tenant's transaction. */
export async function insertSettings(db: Db, row: { name: string }): Promise<void> {
  await db(Settings.tableName).insert({ id: 1, name: row.name });
}

/** The tenant's display name (its discovery document). */
export async function settingsName(db: Db): Promise<{ name: string }> {
  return db(Settings.tableName).select('name').first<{ name: string }>();
}

/** The order setup columns of the settings row. */
export async function orderSettingsRow(db: Db): Promise<Pick<Settings, 'order_workflow' | 'prevent_overbooking'>> {
  return db(Settings.tableName).first<Pick<Settings, 'order_workflow' | 'prevent_overbooking'>>('order_workflow', 'prevent_overbooking');
}

/** Changes the given columns of the settings row; the others stay as they are. No-op when empty. */
export async function updateSettings(db: Db, change: SettingsChange): Promise<void> {
  if (Object.keys(change).length) await db(Settings.tableName).update(change);
}
