import { defineResource, restFieldErrors } from '../../kit/rest/resource.js';
import { companyRecordProblems, DEFAULT_ADDRESS_COLUMNS, type CompanyRecord } from './accounts.rules.js';
import { Company } from './crm.data.js';

/**
 * Companies: the accounts of GraphQL (`Account`, whose `legacyId` is the id here). The address
 * columns are the account's default postal address (`address_street` its lines, one a line);
 * writes are checked by the accounts' rules, as GraphQL's are.
 */
export const companies = defineResource({
  name: 'Company',
  path: 'crm/companies',
  table: Company.tableName,
  permission: 'COMPANY',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: {
    id: { type: 'integer', column: 'id', nullable: false },
    name: { type: 'string', column: 'name', required: true, nullable: false, maxLength: 255 },
    code: { type: 'string', column: 'code', maxLength: 64 },
    email: { type: 'string', column: 'email', maxLength: 255 },
    tel: { type: 'string', column: 'tel', maxLength: 64 },
    website: { type: 'string', column: 'website', maxLength: 255 },
    is_partner: { type: 'boolean', column: 'is_partner', nullable: false },
    address_street: { type: 'string', column: 'address_street' },
    address_town: { type: 'string', column: 'address_town' },
    address_region: { type: 'string', column: 'address_region' },
    address_postcode: { type: 'string', column: 'address_postcode' },
    address_country_id: { type: 'string', column: 'address_country_id', maxLength: 2 },
    address_province_code: { type: 'string', column: 'address_province_code' },
    address_contact_person: { type: 'string', column: 'address_contact_person' },
    external_id: { type: 'string', column: 'external_id' },
    created_on: { type: 'datetime', column: 'created_on', writable: false, nullable: false },
  },
  // Only what the write sets is checked: a record stored before these rules can still be changed elsewhere.
  async check(_db, values) {
    const record = Object.fromEntries(
      (['name', 'email', 'website', ...DEFAULT_ADDRESS_COLUMNS] as const).flatMap((c) =>
        Object.hasOwn(values, c) ? [[c, values[c]]] : [],
      ),
    ) as CompanyRecord;
    return restFieldErrors(companyRecordProblems(record));
  },
});
