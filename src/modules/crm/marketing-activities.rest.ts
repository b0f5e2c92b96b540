import { embedOne } from '../../kit/rest/embed.js';
import { defineResource } from '../../kit/rest/resource.js';
import { campaigns } from './campaigns.rest.js';
import { MarketingActivity, CAMPAIGN_ROWS, COMPANY_ROWS } from './crm.data.js';

/** A promotion in a campaign (contract: "Marketing activity", module crm). */
export const marketingActivities = defineResource({
  name: 'Marketing activity',
  path: 'crm/marketing_activities',
  table: MarketingActivity.tableName,
  permission: 'MARKETING_ACTIVITY',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: {
    id: { type: 'integer', column: 'id', nullable: false },
    name: { type: 'string', column: 'name', required: true, nullable: false, maxLength: 255 },
    description: { type: 'string', column: 'description', required: true, nullable: false, maxLength: 10000 },
    campaign_id: { type: 'integer', column: 'campaign_id', required: true, nullable: false, references: CAMPAIGN_ROWS },
    campaign: { type: 'object', description: 'the campaign record, read-only' },
    type_id: { type: 'integer', column: 'type_id' },
    type: { type: 'string', column: 'type' },
    purpose_id: { type: 'integer', column: 'purpose_id' },
    purpose: { type: 'string', column: 'purpose' },
    company_id: { type: 'integer', column: 'company_id', references: COMPANY_ROWS },
    currency: { type: 'string', column: 'currency', maxLength: 3 },
    cost: { type: 'number', column: 'cost', min: 0 },
    date: { type: 'date', column: 'date' },
    actual_contacts: { type: 'integer', column: 'actual_contacts', nullable: false },
    actual_conversions: { type: 'integer', column: 'actual_conversions', nullable: false },
    actual_submissions: { type: 'integer', column: 'actual_submissions', nullable: false },
    target_contacts: { type: 'integer', column: 'target_contacts' },
    target_conversions: { type: 'integer', column: 'target_conversions' },
    target_submissions: { type: 'integer', column: 'target_submissions' },
    target_sales: { type: 'number', column: 'target_sales', min: 0 },
    is_finished: { type: 'boolean', column: 'is_finished', nullable: false },
    region_categories: { type: 'array', column: 'region_categories', nullable: false },
    courses: { type: 'array', column: 'courses', nullable: false },
  },
  enrich: (db, rows, records) => embedOne(db, rows, records, 'campaign_id', 'campaign', campaigns),
});
