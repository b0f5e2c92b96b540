import { defineResource } from '../../kit/rest/resource.js';
import { Company } from './crm.data.js';

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
    address_street: { type: 'string', column: 'address_street' },
    address_town: { type: 'string', column: 'address_town' },
    address_postcode: { type: 'string', column: 'address_postcode' },
    address_country_id: { type: 'string', column: 'address_country_id', maxLength: 2 },
    external_id: { type: 'string', column: 'external_id' },
    created_on: { type: 'datetime', column: 'created_on', writable: false, nullable: false },
  },
});
