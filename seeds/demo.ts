import type { Db, Knex } from '../src/platform/db/knex.js';
import { insertCategories } from '../src/modules/categories/categories.data.js';
import { appendScoreMapping, insertCourseTemplate } from '../src/modules/course-templates/course-templates.data.js';
import { firstContactIds, insertCampaign, insertCompanies, insertContacts, insertMarketingActivity } from '../src/modules/crm/crm.data.js';
import { insertDelegates } from '../src/modules/delegates/delegates.data.js';
import { insertEvent } from '../src/modules/events/events.data.js';
import { insertLocation } from '../src/modules/locations/locations.data.js';
import { insertTaxType } from '../src/modules/tax-types/tax-types.data.js';
import { createPaymentType, createStockItem } from '../src/modules/orders/order-settings.service.js';
import { requestTenantStats } from '../src/modules/tenant-stats/tenant-stats.service.js';
import { createUser } from '../src/modules/users/users.service.js';
import { createTenant } from '../src/platform/tenancy/provision.js';
import type { Tenant } from '../src/platform/tenancy/tenant.js';
import { tenantSlugTaken } from '../src/platform/tenancy/tenants.data.js';
import { withTenant } from '../src/platform/tenancy/with-tenant.js';

/** Local demo credentials, printed by `npm start`. Only ever seeded outside production. */
export const DEMO = { slug: 'demo', name: 'Demo Training Ltd', email: 'admin@demo.test', password: 'lectern-demo' } as const;

const COMPANIES = [
  { name: 'Northwind Logistics', code: 'NWL', email: 'training@northwind.example', tel: '+44 20 7946 0101', address_town: 'London', address_postcode: 'EC1A 1BB', address_country_id: 'GB' },
  { name: 'Contoso Health', code: 'CTH', email: 'learning@contoso.example', tel: '+44 161 496 0202', address_town: 'Manchester', address_postcode: 'M1 1AE', address_country_id: 'GB' },
  { name: 'Fabrikam Engineering', code: 'FAB', email: 'people@fabrikam.example', tel: '+353 1 555 0303', address_town: 'Dublin', address_postcode: 'D02 X285', address_country_id: 'IE' },
];

const CONTACTS = [
  ['Amelia', 'Hughes', 'Operations Manager', 0],
  ['Oliver', 'Patel', 'Fleet Supervisor', 0],
  ['Isla', 'Murphy', 'Clinical Lead', 1],
  ['George', 'Okafor', 'Ward Manager', 1],
  ['Sofia', 'Kowalska', 'Mechanical Engineer', 2],
  ['Liam', 'Byrne', 'Site Safety Officer', 2],
  ['Chloe', 'Nguyen', 'Trainer', null],
] as const;

/** Categories, a campaign, course templates with score mappings, locations, tax types, events and delegates. */
async function seedEvents(db: Db, companyIds: number[]): Promise<void> {
  const [hs, lead] = await insertCategories(db, [
    { name: 'Health & Safety', priority: 1, introduction: 'Courses that keep people safe at work.' },
    { name: 'Leadership', priority: 2, introduction: 'Management and leadership skills.' },
  ]);
  await insertCategories(db, [{ name: 'First Aid', priority: 1, parent_id: hs!.id }]);
  const campaign = await insertCampaign(db, { name: 'Spring 2027 courses', description: 'Promote the spring public schedule', currency: 'GBP', start_date: '2027-01-15', end_date: '2027-04-30', target_contacts: 500 });
  await insertMarketingActivity(db, { name: 'March newsletter', description: 'Newsletter to past delegates', campaign_id: campaign, currency: 'GBP', cost: '250', date: '2027-03-01' });
  const faw = await insertCourseTemplate(db, { code: 'FAW', title: 'First Aid at Work', course_text1: '<p>Three days of practical first aid.</p>', lifecycle_state: 'published', category_id: hs!.id });
  const teams = await insertCourseTemplate(db, { code: 'LT1', title: 'Leading Teams', course_text1: '<p>Two days for new managers.</p>', lifecycle_state: 'published', category_id: lead!.id });
  for (const mapping of [{ label: 'Assessment date', type_id: 2 }, { label: 'Practical passed', type_id: 3 }, { label: 'Theory score', type_id: 4 }]) {
    await appendScoreMapping(db, faw.id, mapping);
  }
  const london = await insertLocation(db, { name: 'Riverside Training Centre', address_street: '12 Wharf Road', address_town: 'London', address_postcode: 'N1 7GR', address_country_id: 'GB', time_zone_name: 'Europe/London' });
  const manchester = await insertLocation(db, { name: 'Northern Skills Hub', address_street: '3 Deansgate', address_town: 'Manchester', address_postcode: 'M3 2BW', address_country_id: 'GB', time_zone_name: 'Europe/London' });
  const vat = await insertTaxType(db, { name: 'Standard VAT', rate: 20 });
  await insertTaxType(db, { name: 'Zero rated', rate: 0 });
  const inLondon = { location: 'London', location_id: london.id, time_zone_name: 'Europe/London', tax_type_id: vat.id, title_cascades: true };
  const fawEvent = await insertEvent(db, { ...inLondon, course_template_id: faw.id, code: 'FAW-LON-2703', title: 'First Aid at Work', start_date: '2027-03-10', end_date: '2027-03-12', start_time: '09:00', end_time: '17:00', classroom_start: '2027-03-10T09:00', classroom_end: '2027-03-12T17:00', price: '395', currency_code: 'GBP', delegates_max: 12 });
  await insertEvent(db, { ...inLondon, location: 'Manchester', location_id: manchester.id, course_template_id: teams.id, code: 'LT1-MAN-2704', title: 'Leading Teams', start_date: '2027-04-20', end_date: '2027-04-21', start_time: '09:30', end_time: '16:30', classroom_start: '2027-04-20T09:30', classroom_end: '2027-04-21T16:30', price: '650', currency_code: 'GBP', delegates_max: 10, company_id: companyIds[1] });
  // Order setup, so a REST order with a `card` payment gets its invoice, and items can add a book.
  await createPaymentType(db, 'card');
  await createStockItem(db, { name: 'Course book', price: 25 });
  const people = await firstContactIds(db, 2);
  await insertDelegates(db, [...people.map((contact_id) => ({ event_id: fawEvent.id, contact_id })), { event_id: fawEvent.id, num_places: 2 }]);
}

/**
 * Creates the `demo` tenant with an admin user, companies and contacts. Returns undefined when
 * the tenant already exists (a second `npm start` keeps the data it has).
 */
export async function seedDemo(knex: Knex): Promise<Tenant | undefined> {
  if (await tenantSlugTaken(knex, DEMO.slug)) return undefined;
  const tenant = await createTenant(knex, { slug: DEMO.slug, name: DEMO.name });
  await withTenant(knex, tenant, async (db) => {
    const companyIds = await insertCompanies(db, COMPANIES);
    await insertContacts(db, 
      CONTACTS.map(([first, last, job, company]) => ({
        first_name: first,
        last_name: last,
        job_title: job,
        email: `${first.toLowerCase()}.${last.toLowerCase()}@${company === null ? 'demo.test' : COMPANIES[company]!.email.split('@')[1]}`,
        company_id: company === null ? null : companyIds[company]!.id,
        organisation: company === null ? DEMO.name : COMPANIES[company]!.name,
        is_tutor: company === null,
        is_staff: company === null,
      })),
    );
    await seedEvents(db, companyIds.map((c) => c.id));
    await createUser(db, { email: DEMO.email, password: DEMO.password, role: 'admin' });
    await requestTenantStats(db, tenant.id);
  });
  return tenant;
}
