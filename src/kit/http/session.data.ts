import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { PLATFORM_SCHEMA } from '../../platform/tenancy/tenant.js';

/**
 * Browser sessions of Lectern's own pages (`platform.web_sessions`), stored under the hash of the
 * cookie's random id. The only file that names the table; session.ts is the store that uses it.
 */
export class WebSession extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.web_sessions`;
  static override idColumn = 'id_hash';

  declare id_hash: string;
  declare data: unknown;
  declare expires_at: Date;
  declare updated_at: Date;
}

const TABLE = WebSession.tableName;

/** The data of a session that has not expired. */
export async function sessionData(db: Db, idHash: string): Promise<unknown> {
  const row = await db(TABLE).where({ id_hash: idHash }).where('expires_at', '>', db.fn.now()).first<{ data: unknown } | undefined>('data');
  return row?.data;
}

/** Writes a session (a new one, or the new data and expiry of an existing one). */
export async function saveSession(db: Db, idHash: string, data: unknown, expiresAt: Date): Promise<void> {
  await db(TABLE)
    .insert({ id_hash: idHash, data: JSON.stringify(data), expires_at: expiresAt, updated_at: db.fn.now() })
    .onConflict('id_hash')
    .merge();
}

export async function deleteExpiredSessions(db: Db): Promise<void> {
  await db(TABLE).where('expires_at', '<', db.fn.now()).delete();
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db(TABLE).where({ id_hash: idHash }).delete();
}
