import type { Knex } from '../src/db/knex.js';
import { requestTenantStats } from '../src/modules/tenant-stats/tenant-stats.service.js';
import { createUser } from '../src/modules/users/users.service.js';
import { createTenant } from '../src/tenancy/provision.js';
import { PLATFORM_SCHEMA, type Tenant } from '../src/tenancy/tenant.js';
import { withTenant } from '../src/tenancy/with-tenant.js';

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

/**
 * Creates the `demo` tenant with an admin user, companies and contacts. Returns undefined when
 * the tenant already exists (a second `npm start` keeps the data it has).
 */
export async function seedDemo(knex: Knex): Promise<Tenant | undefined> {
  const exists = await knex(`${PLATFORM_SCHEMA}.tenants`).where({ slug: DEMO.slug }).first();
  if (exists) return undefined;
  const tenant = await createTenant(knex, { slug: DEMO.slug, name: DEMO.name });
  await withTenant(knex, tenant, async (db) => {
    const companyIds = await db('companies').insert(COMPANIES).returning<{ id: number }[]>('id');
    await db('contacts').insert(
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
    await createUser(db, { email: DEMO.email, password: DEMO.password, role: 'admin' });
    await requestTenantStats(db, tenant.id);
  });
  return tenant;
}
