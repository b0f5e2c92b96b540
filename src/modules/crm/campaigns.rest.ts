import type { Fields } from '../../kit/rest/fields.js';
import { afterWrite, defineResource, restFieldErrors } from '../../kit/rest/resource.js';
import { Campaign, COMPANY_ROWS } from './crm.data.js';
import { campaignProblems } from './crm.rules.js';

/** The campaign record (also embedded in marketing activities). */
export const CAMPAIGN_FIELDS: Fields = {
  id: { type: 'integer', column: 'id', nullable: false },
  name: { type: 'string', column: 'name', required: true, nullable: false, maxLength: 255 },
  description: { type: 'string', column: 'description', maxLength: 10000 },
  company_id: { type: 'integer', column: 'company_id', references: COMPANY_ROWS },
  currency: { type: 'string', column: 'currency', maxLength: 3 },
  tag_id: { type: 'integer', column: 'tag_id' },
  tag: { type: 'string', column: 'tag' },
  start_date: { type: 'date', column: 'start_date' },
  end_date: { type: 'date', column: 'end_date' },
  target_contacts: { type: 'integer', column: 'target_contacts' },
  target_conversions: { type: 'integer', column: 'target_conversions' },
  target_submissions: { type: 'integer', column: 'target_submissions' },
  target_sales: { type: 'number', column: 'target_sales', min: 0 },
  actual_contacts: { type: 'integer', column: 'actual_contacts', nullable: false },
  actual_conversions: { type: 'integer', column: 'actual_conversions', nullable: false },
  actual_submissions: { type: 'integer', column: 'actual_submissions', nullable: false },
  is_finished: { type: 'boolean', column: 'is_finished', nullable: false },
  contributions: { type: 'array', column: 'contributions', nullable: false },
};

export const campaigns = defineResource({
  name: 'Campaign',
  path: 'crm/campaigns',
  table: Campaign.tableName,
  permission: 'CAMPAIGN',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: CAMPAIGN_FIELDS,
  check: async (_db, values, existing) =>
    restFieldErrors(
      campaignProblems({
        start_date: afterWrite(values, existing, 'start_date') as string | null | undefined,
        end_date: afterWrite(values, existing, 'end_date') as string | null | undefined,
      }),
    ),
});
