import type { Db } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';
import { DEFAULT_ADDRESS_COLUMNS, type AccountColumns, type AddressValues, type PostalAddressUsage } from './accounts.rules.js';
import { Company, Contact } from './crm.data.js';

/**
 * Accounts: the `companies` rows as GraphQL shows them, their billing and shipping addresses
 * (`company_addresses`, the only file naming it) and the merge of two accounts. An account's
 * default postal address is the companies row's own address columns (`address_street` holds its
 * lines, one a line), so REST v2 `crm/companies` and GraphQL read and write the same values.
 *
 * @uses events: a merge moves the events that name the old account in `account_id` (a column no foreign key declares), in one statement
 */

export class CompanyAddress extends BaseModel {
  static override tableName = 'company_addresses';

  declare company_id: number;
  declare usage: 'billing' | 'shipping';
  declare lines: string[];
  declare town: string | null;
  declare region: string | null;
  declare postcode: string | null;
  /** ISO 3166-1 alpha-2. */
  declare country_id: string | null;
  declare province_code: string | null;
  declare contact_person: string | null;
}

/** An account as GraphQL reads it. */
export type AccountRow = Pick<
  Company,
  | 'id'
  | 'name'
  | 'code'
  | 'email'
  | 'tel'
  | 'website'
  | 'is_partner'
  | 'address_street'
  | 'address_town'
  | 'address_region'
  | 'address_postcode'
  | 'address_country_id'
  | 'address_province_code'
  | 'address_contact_person'
  | 'created_on'
>;

const ACCOUNT_COLUMNS = ['id', 'name', 'code', 'email', 'tel', 'website', 'is_partner', ...DEFAULT_ADDRESS_COLUMNS, 'created_on'] as const;

export type CompanyAddressRow = Pick<
  CompanyAddress,
  'company_id' | 'usage' | 'lines' | 'town' | 'region' | 'postcode' | 'country_id' | 'province_code' | 'contact_person'
>;

/** Accounts by id (a page's batch; those gone are missing). */
export function accountRowsByIds(db: Db, ids: readonly number[]): Promise<AccountRow[]> {
  return db(Company.tableName)
    .whereIn('id', ids as number[])
    .select(...ACCOUNT_COLUMNS);
}

/** The billing and shipping addresses of these accounts (a page's batch). */
export function addressesOfAccounts(db: Db, ids: readonly number[]): Promise<CompanyAddressRow[]> {
  return db(CompanyAddress.tableName)
    .whereIn('company_id', ids as number[])
    .orderBy(['company_id', 'usage']);
}

/** Accounts locked for a write, by id (those missing are not there). */
export function lockAccounts(db: Db, ids: readonly number[]): Promise<AccountRow[]> {
  return db(Company.tableName)
    .whereIn('id', ids as number[])
    .orderBy('id')
    .forUpdate()
    .select(...ACCOUNT_COLUMNS);
}

/** Inserts an account; returns it. */
export async function insertAccount(db: Db, columns: AccountColumns & { name: string }): Promise<AccountRow> {
  const [row] = (await db(Company.tableName)
    .insert(columns)
    .returning([...ACCOUNT_COLUMNS])) as AccountRow[];
  return row!;
}

/** Changes the columns given of an account (none: nothing is written). */
export async function updateAccount(db: Db, id: number, columns: Partial<Omit<AccountRow, 'id' | 'created_on'>>): Promise<void> {
  if (Object.keys(columns).length) await db(Company.tableName).where({ id }).update(columns);
}

/** The default address as the companies row keeps it. */
export function defaultAddressColumns(a: AddressValues | null): Partial<AccountRow> {
  return {
    address_street: a?.lines.length ? a.lines.join('\n') : null,
    address_town: a?.town ?? null,
    address_region: a?.region ?? null,
    address_postcode: a?.postcode ?? null,
    address_country_id: a?.country_id ?? null,
    address_province_code: a?.province_code ?? null,
    address_contact_person: a?.contact_person ?? null,
  };
}

/** Sets (or with null removes) an account's address of one usage. */
export async function putAccountAddress(
  db: Db,
  companyId: number,
  usage: PostalAddressUsage,
  address: AddressValues | null,
): Promise<void> {
  if (usage === 'default') return updateAccount(db, companyId, defaultAddressColumns(address));
  if (!address) {
    await db(CompanyAddress.tableName).where({ company_id: companyId, usage }).delete();
    return;
  }
  await db(CompanyAddress.tableName)
    .insert({ company_id: companyId, usage, ...address })
    .onConflict(['company_id', 'usage'])
    .merge();
}

/** A column of this tenant's tables that a foreign key points at `companies(id)` with. */
export interface AccountReference {
  table: string;
  column: string;
}

/**
 * Every column of the tenant's tables whose foreign key references `companies(id)`, read from the
 * catalogue (so a table added later is covered without naming it here), one-column keys only
 * (`companies` has no other kind of key). The tenant's own schema only: the transaction's
 * search_path resolves `companies`.
 */
export async function accountReferences(db: Db): Promise<AccountReference[]> {
  const { rows } = await db.raw<{ rows: AccountReference[] }>(
    `select cl.relname as "table", a.attname as "column"
       from pg_catalog.pg_constraint c
       join pg_catalog.pg_class cl on cl.oid = c.conrelid
       join pg_catalog.pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      where c.contype = 'f' and c.confrelid = to_regclass('companies') and cardinality(c.conkey) = 1
        and cl.relnamespace = (select relnamespace from pg_catalog.pg_class where oid = to_regclass('companies'))
      order by 1, 2`,
  );
  return rows;
}

/**
 * Points every reference to account `from` at account `to`: each column of `references`, and the
 * `account_id` of contacts and events (no foreign key declares those). Addresses must be settled
 * first (`company_addresses` holds one row per account and usage). Returns the rows moved, per
 * `table.column`.
 */
export async function moveAccountReferences(
  db: Db,
  references: readonly AccountReference[],
  from: number,
  to: number,
): Promise<Record<string, number>> {
  const moved: Record<string, number> = {};
  const targets = [...references, { table: Contact.tableName, column: 'account_id' }, { table: 'events', column: 'account_id' }];
  for (const { table, column } of targets) {
    const n = await db(table)
      .where(column, from)
      .update({ [column]: to });
    if (n) moved[`${table}.${column}`] = n;
  }
  return moved;
}

/** Moves account `from`'s address of `usage` to account `to`. */
export async function moveAccountAddress(db: Db, usage: 'billing' | 'shipping', from: number, to: number): Promise<void> {
  await db(CompanyAddress.tableName).where({ company_id: from, usage }).update({ company_id: to });
}

/** Deletes an account (its remaining addresses go with it). */
export async function deleteAccount(db: Db, id: number): Promise<void> {
  await db(Company.tableName).where({ id }).delete();
}
