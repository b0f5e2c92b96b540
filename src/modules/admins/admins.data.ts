import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { PLATFORM_SCHEMA } from '../../platform/tenancy/tenant.js';

/** Platform administrators (ops), across tenants: the only file that names `platform.admins`. */
export class Admin extends BaseModel {
  static override tableName = `${PLATFORM_SCHEMA}.admins`;

  declare id: number;
  /** Stored lower case (a unique index on lower(email)). */
  declare email: string;
  /** argon2id. */
  declare password_hash: string;
  declare created_at: Date;
}

/** The administrator with this email (lower case), with the hash to check a password against. */
export function adminByEmail(db: Db, email: string): Promise<Pick<Admin, 'id' | 'password_hash'> | undefined> {
  return db(Admin.tableName)
    .whereRaw('lower(email) = ?', [email])
    .first<Pick<Admin, 'id' | 'password_hash'> | undefined>('id', 'password_hash');
}

export async function adminEmailTaken(db: Db, email: string): Promise<boolean> {
  return Boolean(await db(Admin.tableName).whereRaw('lower(email) = ?', [email]).first());
}

/** Inserts an administrator; returns its id. */
export async function insertAdmin(db: Db, row: Pick<Admin, 'email' | 'password_hash'>): Promise<number> {
  const [inserted] = await db(Admin.tableName).insert(row).returning<{ id: number }[]>('id');
  return inserted!.id;
}
