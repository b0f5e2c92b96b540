import type { Db, Knex } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { assertTenantSchema } from '../../platform/tenancy/slug.js';

/**
 * A tenant's users and roles: the only file that names the `users` and `roles` tables. Every
 * function takes the transaction first (its `search_path` is the tenant's), except the one
 * statement REST Basic auth runs before a transaction opens, which names the tenant's schema.
 */

export class Role extends BaseModel {
  static override tableName = 'roles';

  declare id: number;
  declare name: string;
  /** `<ENTITY>_VIEW` / `<ENTITY>_EDIT`, `*`, `*_VIEW` (see roles.service.ts). */
  declare permissions: string[];
  declare created_at: Date;
}

export class User extends BaseModel {
  static override tableName = 'users';

  declare id: number;
  /** Stored lower case. */
  declare email: string;
  /** argon2id; null for a user that cannot sign in with a password. */
  declare password_hash: string | null;
  declare role_id: number;
  declare contact_id: number | null;
  declare company_id: number | null;
  declare is_active: boolean;
  declare password_changed_at: Date;
  declare created_at: Date;

  declare role?: Role;

  static override get relationMappings() {
    return {
      role: { relation: BaseModel.BelongsToOneRelation, modelClass: Role, join: { from: 'users.role_id', to: 'roles.id' } },
    };
  }
}

/** An active user with the permissions of their role: who a request, a page or a token acts as. */
export interface ActiveUser {
  id: number;
  email: string;
  password_hash: string | null;
  company_id: number | null;
  permissions: string[];
}

// Runs on every REST and GraphQL request: plain SQL, so no query builder is compiled each time.
// A schema name is validated to [a-z][a-z0-9_]*: it stands in the statement as an identifier.
const activeUserSql = (
  schema: string | undefined,
  key: 'email' | 'id',
) => `select users.id, users.email, users.password_hash, users.company_id, roles.permissions
  from ${schema ? `"${assertTenantSchema(schema)}".users join "${schema}".roles` : 'users join roles'} on roles.id = users.role_id
  where ${key === 'email' ? 'lower(users.email) = ?' : 'users.id = ?'} and users.is_active limit 1`;
const IN_TRANSACTION = { email: activeUserSql(undefined, 'email'), id: activeUserSql(undefined, 'id') };

/**
 * The active user whose id is `idSql` (a trusted column reference of the statement it goes in, such
 * as `w.owner_user_id`) with their role's permissions, as one JSON value of an {@link ActiveUser}
 * without its password hash, or null when there is none or they are not active: for a read that
 * needs its user in the same statement (a webhook delivery runs as its owner).
 */
export function activeUserJsonSql(idSql: string): string {
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/.test(idSql)) throw new Error(`not a column reference: ${idSql}`);
  return `(select json_build_object('id', users.id, 'email', users.email, 'company_id', users.company_id, 'permissions', roles.permissions)
  from users join roles on roles.id = users.role_id where users.id = ${idSql} and users.is_active)`;
}

/**
 * The active user with this email (lower case) or id, with the permissions of their role; undefined
 * when there is none or they are not active. On a tenant transaction; or, with `schema`, on any
 * connection (REST Basic auth reads the user before the request's transaction opens, so a flood of
 * password guesses holds no pooled connection while argon2 runs).
 */
export async function activeUserWithPermissions(
  db: Db,
  by: { email: string } | { id: number },
  schema?: string,
): Promise<ActiveUser | undefined> {
  const key = 'email' in by ? 'email' : 'id';
  const sql = schema ? activeUserSql(schema, key) : IN_TRANSACTION[key];
  const { rows } = await db.raw<{ rows: ActiveUser[] }>(sql, ['email' in by ? by.email : by.id]);
  return rows[0];
}

/** An active user named by id or by email (any case): a service user a client acts as. */
export function findActiveUser(db: Db, idOrEmail: number | string): Promise<Pick<User, 'id' | 'email'> | undefined> {
  return (
    typeof idOrEmail === 'number'
      ? db(User.tableName).where({ id: idOrEmail })
      : db(User.tableName).whereRaw('lower(email) = lower(?)', [idOrEmail])
  )
    .where({ is_active: true })
    .first<Pick<User, 'id' | 'email'> | undefined>('id', 'email');
}

/** The active users with their role's name, by email (the users a client can act as). */
export async function activeUsersWithRole(db: Db): Promise<{ id: number; email: string; role: string }[]> {
  return User.query(db)
    .joinRelated('role')
    .where('users.is_active', true)
    .orderBy('users.email')
    .select('users.id', 'users.email', 'role.name as role')
    .castTo<{ id: number; email: string; role: string }[]>();
}

/** Whether a user has this email, in any case (`email` lower case). */
export async function userEmailTaken(db: Db, email: string): Promise<boolean> {
  return Boolean(await db(User.tableName).whereRaw('lower(email) = ?', [email]).first());
}

/** Inserts a user; returns its id. */
export async function insertUser(db: Db, row: Pick<User, 'email' | 'password_hash' | 'role_id'>): Promise<number> {
  const [inserted] = await db(User.tableName).insert(row).returning<{ id: number }[]>('id');
  if (!inserted) throw new Error('user insert returned no id');
  return inserted.id;
}

/** Makes a user the person of a contact (`users.contact_id`: their full name is the contact's): seeds. */
export async function setUserContact(db: Db, userId: number, contactId: number | null): Promise<void> {
  await db(User.tableName).where({ id: userId }).update({ contact_id: contactId });
}

/** The emails of the users with these ids (users gone since are missing). */
export function userEmails(db: Db, ids: number[]): Promise<Pick<User, 'id' | 'email'>[]> {
  return db(User.tableName).whereIn('id', ids).select('id', 'email');
}

/** The id of the role with this name. */
export function roleIdByName(db: Db, name: string): Promise<Pick<Role, 'id'> | undefined> {
  return db(Role.tableName).where({ name }).first<Pick<Role, 'id'> | undefined>();
}

export async function roleNameTaken(db: Db, name: string): Promise<boolean> {
  return Boolean(await db(Role.tableName).where({ name }).first('id'));
}

export async function insertRole(db: Db, row: Pick<Role, 'name' | 'permissions'>): Promise<Pick<Role, 'id' | 'name' | 'permissions'>> {
  const [inserted] = await db(Role.tableName).insert(row).returning(['id', 'name', 'permissions']);
  return inserted;
}

export function listRoles(db: Db): Promise<Pick<Role, 'id' | 'name' | 'permissions'>[]> {
  return db(Role.tableName).orderBy('id').select('id', 'name', 'permissions');
}

/** A user as GraphQL's `users` shows it: who they are, never their password. */
export type UserCard = Pick<User, 'id' | 'email' | 'contact_id' | 'is_active'>;

const CARD = ['id', 'email', 'contact_id', 'is_active'] as const;

/** Users by id (a page's batch; those gone are missing). */
export function userCardsByIds(db: Db, ids: readonly number[]): Promise<UserCard[]> {
  return db(User.tableName)
    .whereIn('id', ids as number[])
    .select(...CARD);
}

/** The active users, as the rows of a list's statement (its filters and page apply to them): no password hash is read. */
export function activeUserCards(db: Db): Knex.QueryBuilder {
  return db(User.tableName)
    .where({ is_active: true })
    .select(...CARD);
}

/** The id of the user of this contact, or null when the contact has none (a named delegate's answer carries it). */
export async function userIdOfContact(db: Db, contactId: number): Promise<number | null> {
  const user = await db(User.tableName).where({ contact_id: contactId }).first<Pick<User, 'id'> | undefined>('id');
  return user?.id ?? null;
}
