import type { ModelObject } from 'objection';
import type { Db, Knex } from '../../platform/db/knex.js';
import { BaseModel } from '../../platform/db/model.js';

/**
 * CRM: a tenant's companies, contacts, campaigns and marketing activities. The models of the
 * `companies`, `contacts`, `campaigns` and `marketing_activities` tables (their REST resources
 * take the table from these models; the REST engine writes their rows); accounts.data.ts reads
 * and writes companies as GraphQL's accounts, with their addresses and merges. Every
 * function takes the transaction first. Dates are `YYYY-MM-DD` and timestamps without a time
 * zone `YYYY-MM-DDTHH:MM:SS` text (see platform/db/knex.ts); NUMERIC arrives as text.
 */

export class Company extends BaseModel {
  static override tableName = 'companies';

  declare id: number;
  declare name: string;
  declare code: string | null;
  declare email: string | null;
  declare tel: string | null;
  declare website: string | null;
  declare address_street: string | null;
  declare address_town: string | null;
  declare address_postcode: string | null;
  declare address_country_id: string | null;
  /** The default postal address's region (a county, a state), province code and contact person (migration 018). */
  declare address_region: string | null;
  declare address_province_code: string | null;
  declare address_contact_person: string | null;
  /** A partner organisation (GraphQL `Account.isPartner`). */
  declare is_partner: boolean;
  declare external_id: string | null;
  declare created_on: string;
}

/** The rows a foreign key of another table points at, for the REST engine's existence check (`company 7 does not exist`): all the access to the table it gives. */
export const COMPANY_ROWS = { table: Company.tableName, label: 'company' } as const;

export class Contact extends BaseModel {
  static override tableName = 'contacts';

  declare id: number;
  declare first_name: string | null;
  declare middle_name: string | null;
  declare last_name: string | null;
  declare salutation: string | null;
  declare job_title: string | null;
  declare department: string | null;
  declare organisation: string | null;
  declare company_id: number | null;
  declare account_id: number | null;
  declare email: string | null;
  declare tel: string | null;
  declare mobile: string | null;
  declare fax: string | null;
  declare address_unit: string | null;
  declare address_street: string | null;
  declare address_locality: string | null;
  declare address_town: string | null;
  declare address_region: string | null;
  declare address_postcode: string | null;
  declare address_country_id: string | null;
  declare membership_number: string | null;
  declare contract_notes: string | null;
  declare created_on: string;
  declare created_by_id: number | null;
  declare import_ref: string | null;
  declare external_id: string | null;
  declare marketing_activity_id: number | null;
  declare source1: string | null;
  declare source2: string | null;
  declare lms_bio: string | null;
  declare tutor_bio: string | null;
  declare notes: string | null;
  declare inactive: boolean;
  declare dormant: boolean | null;
  declare dont_mail: boolean;
  declare no_third_party: boolean | null;
  declare is_admin: number;
  declare is_tutor: boolean;
  declare is_staff: boolean;
  declare is_deleted: boolean;

  declare company?: Company | null;

  static override get relationMappings() {
    return {
      company: { relation: BaseModel.BelongsToOneRelation, modelClass: Company, join: { from: 'contacts.company_id', to: 'companies.id' } },
    };
  }
}

/** The rows a foreign key of another table points at, for the REST engine's existence check (`contact 7 does not exist`): all the access to the table it gives. */
export const CONTACT_ROWS = { table: Contact.tableName, label: 'contact' } as const;

export class Campaign extends BaseModel {
  static override tableName = 'campaigns';

  declare id: number;
  declare name: string;
  declare description: string | null;
  declare company_id: number | null;
  declare currency: string | null;
  declare tag_id: number | null;
  declare tag: string | null;
  declare start_date: string | null;
  declare end_date: string | null;
  declare target_contacts: number | null;
  declare target_conversions: number | null;
  declare target_submissions: number | null;
  declare target_sales: string | null;
  declare actual_contacts: number;
  declare actual_conversions: number;
  declare actual_submissions: number;
  declare is_finished: boolean;
  declare contributions: unknown[];
  declare created_on: string;
}

/** The rows a foreign key of another table points at, for the REST engine's existence check (`campaign 7 does not exist`): all the access to the table it gives. */
export const CAMPAIGN_ROWS = { table: Campaign.tableName, label: 'campaign' } as const;

export class MarketingActivity extends BaseModel {
  static override tableName = 'marketing_activities';

  declare id: number;
  declare name: string;
  declare description: string;
  declare campaign_id: number;
  declare type_id: number | null;
  declare type: string | null;
  declare purpose_id: number | null;
  declare purpose: string | null;
  declare company_id: number | null;
  declare currency: string | null;
  declare cost: string | null;
  declare date: string | null;
  declare actual_contacts: number;
  declare actual_conversions: number;
  declare actual_submissions: number;
  declare target_contacts: number | null;
  declare target_conversions: number | null;
  declare target_submissions: number | null;
  declare target_sales: string | null;
  declare is_finished: boolean;
  declare region_categories: unknown[];
  declare courses: unknown[];
  declare created_on: string;

  declare campaign?: Campaign;

  static override get relationMappings() {
    return {
      campaign: {
        relation: BaseModel.BelongsToOneRelation,
        modelClass: Campaign,
        join: { from: 'marketing_activities.campaign_id', to: 'campaigns.id' },
      },
    };
  }
}

/** The rows a foreign key of another table points at, for the REST engine's existence check (`marketing activity 7 does not exist`): all the access to the table it gives. */
export const MARKETING_ACTIVITY_ROWS = { table: MarketingActivity.tableName, label: 'marketing activity' } as const;

/** A contact as GraphQL shows it (who placed an order, who an invoice is for, an instructor, a list's row). */
export type ContactCard = Pick<
  Contact,
  | 'id'
  | 'first_name'
  | 'middle_name'
  | 'last_name'
  | 'email'
  | 'organisation'
  | 'company_id'
  | 'is_admin'
  | 'is_tutor'
  | 'is_staff'
  | 'created_on'
>;

/**
 * SQL over a contact row `t` (in a list's statement): the name of its account (company), for the
 * GraphQL contacts list's `accountName` filter.
 */
export const CONTACT_ACCOUNT_NAME_SQL = `(select c.name from ${Company.tableName} c where c.id = t.company_id)`;

/**
 * The staff roles a contact can hold, by name (compared without regard to case), as the flags of
 * its row hold them: an Instructor teaches (`is_tutor`), an Administrator administers events
 * (`is_admin` > 0). Any other name is a role no contact holds.
 */
const STAFF_ROLES: Readonly<Record<string, string>> = { instructor: 't.is_tutor', administrator: '(t.is_admin > 0)' };

/** Keeps the contacts `t` of a list's statement that hold one of these staff roles (`holding`), or none of them. */
export function whereStaffRoles(q: Knex.QueryBuilder, names: readonly string[], holding: boolean): void {
  const held = names.map((n) => STAFF_ROLES[n.toLowerCase()]).filter((c) => c !== undefined);
  const any = held.length ? `(${held.join(' or ')})` : 'false';
  q.whereRaw(holding ? any : `not ${any}`);
}

/** The contacts with these ids, whole rows (contacts gone since are missing). */
export function contactsByIds(db: Db, ids: readonly number[]): Promise<Contact[]> {
  return db(Contact.tableName).whereIn('id', ids as number[]);
}

/** Contacts' names and emails, by id (the people of an event). */
export function contactNames(db: Db, ids: readonly number[]): Promise<Pick<Contact, 'id' | 'first_name' | 'last_name' | 'email'>[]> {
  return db(Contact.tableName)
    .whereIn('id', ids as number[])
    .select('id', 'first_name', 'last_name', 'email');
}

/** Whether a contact has this id. */
export async function contactExists(db: Db, id: number): Promise<boolean> {
  return Boolean(await db(Contact.tableName).where({ id }).first('id'));
}

/** The ids of the first `n` contacts, oldest first. */
export function firstContactIds(db: Db, n: number): Promise<number[]> {
  return db(Contact.tableName).orderBy('id').limit(n).pluck('id');
}

/** Inserts companies; returns their ids, in order. */
export function insertCompanies(db: Db, rows: readonly Partial<Omit<ModelObject<Company>, 'id'>>[]): Promise<Pick<Company, 'id'>[]> {
  return db(Company.tableName).insert(rows).returning<Pick<Company, 'id'>[]>('id');
}

/** Inserts contacts; returns their ids, in order. */
export function insertContacts(db: Db, rows: readonly Partial<Omit<ModelObject<Contact>, 'id'>>[]): Promise<Pick<Contact, 'id'>[]> {
  return db(Contact.tableName).insert(rows).returning<Pick<Contact, 'id'>[]>('id');
}

/** Inserts a campaign; returns its id. */
export async function insertCampaign(db: Db, row: Partial<Omit<ModelObject<Campaign>, 'id'>> & Pick<Campaign, 'name'>): Promise<number> {
  const [inserted] = await db(Campaign.tableName).insert(row).returning<Pick<Campaign, 'id'>[]>('id');
  if (!inserted) throw new Error('campaign insert returned no id');
  return inserted.id;
}

/** Inserts a marketing activity; returns its id. */
export async function insertMarketingActivity(
  db: Db,
  row: Partial<Omit<ModelObject<MarketingActivity>, 'id'>> & Pick<MarketingActivity, 'name' | 'description' | 'campaign_id'>,
): Promise<number> {
  const [inserted] = await db(MarketingActivity.tableName).insert(row).returning<Pick<MarketingActivity, 'id'>[]>('id');
  if (!inserted) throw new Error('marketing activity insert returned no id');
  return inserted.id;
}
