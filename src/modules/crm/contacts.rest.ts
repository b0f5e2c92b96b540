import type { FieldDef, Fields } from '../../kit/rest/fields.js';
import { afterWrite, defineResource, restFieldErrors } from '../../kit/rest/resource.js';
import { Contact, COMPANY_ROWS, MARKETING_ACTIVITY_ROWS } from './crm.data.js';
import { contactProblems } from './crm.rules.js';

const text = (name: string, maxLength = 255): [string, FieldDef] => [name, { type: 'string', column: name, maxLength }];

/** The contact record, as the contract's embedded contact lists it, field for field. */
export const CONTACT_FIELDS: Fields = {
  id: { type: 'integer', column: 'id', nullable: false },
  ...Object.fromEntries(
    ['first_name', 'middle_name', 'last_name', 'salutation', 'job_title', 'department', 'organisation'].map((n) => text(n)),
  ),
  company_id: { type: 'integer', column: 'company_id', references: COMPANY_ROWS },
  account_id: { type: 'integer', column: 'account_id' },
  ...Object.fromEntries(['email', 'tel', 'mobile', 'fax'].map((n) => text(n))),
  ...Object.fromEntries(
    ['address_unit', 'address_street', 'address_locality', 'address_town', 'address_region', 'address_postcode', 'address_country_id'].map(
      (n) => text(n),
    ),
  ),
  membership_number: { type: 'string', column: 'membership_number', maxLength: 64 },
  contract_notes: { type: 'string', column: 'contract_notes', maxLength: 10000 },
  created_on: { type: 'datetime', column: 'created_on', writable: false, nullable: false },
  created_by_id: { type: 'integer', column: 'created_by_id', writable: false },
  import_ref: { type: 'string', column: 'import_ref' },
  external_id: { type: 'string', column: 'external_id' },
  marketing_activity_id: { type: 'integer', column: 'marketing_activity_id', references: MARKETING_ACTIVITY_ROWS },
  source1: { type: 'string', column: 'source1' },
  source2: { type: 'string', column: 'source2' },
  lms_bio: { type: 'string', column: 'lms_bio', maxLength: 10000 },
  tutor_bio: { type: 'string', column: 'tutor_bio', maxLength: 10000 },
  notes: { type: 'string', column: 'notes', maxLength: 10000 },
  inactive: { type: 'boolean', column: 'inactive', nullable: false },
  dormant: { type: 'boolean', column: 'dormant' },
  dont_mail: { type: 'boolean', column: 'dont_mail', nullable: false },
  no_third_party: { type: 'boolean', column: 'no_third_party' },
  is_admin: { type: 'integer', column: 'is_admin', nullable: false },
  is_tutor: { type: 'boolean', column: 'is_tutor', nullable: false },
  is_staff: { type: 'boolean', column: 'is_staff', nullable: false },
  is_deleted: { type: 'boolean', column: 'is_deleted', nullable: false },
};

export const contacts = defineResource({
  name: 'Contact',
  path: 'crm/contacts',
  table: Contact.tableName,
  permission: 'CONTACT',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: CONTACT_FIELDS,
  async check(_db, values, existing): Promise<Record<string, string>> {
    const name = (c: 'first_name' | 'last_name' | 'email') => afterWrite(values, existing, c) as string | null | undefined;
    return restFieldErrors(contactProblems({ first_name: name('first_name'), last_name: name('last_name'), email: name('email') }));
  },
});
