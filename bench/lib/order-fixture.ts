import type { Knex } from '../../src/platform/db/knex.js';
import type { OrderActor } from '../../src/modules/orders/orders.service.js';
import { createPaymentType } from '../../src/modules/orders/order-settings.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import { migratePlatform } from '../../src/platform/tenancy/migrate.js';
import { createTenant } from '../../src/platform/tenancy/provision.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';

/**
 * The tenant the order benchmarks place orders in: an API user, the `card` payment type, 50
 * contacts and one event; and the request of the i-th order: 3 places (2 named students, 1
 * unnamed) paid by card, so its job registers and then invoices.
 */
export interface OrderFixture {
  tenant: Tenant;
  /** Who places the orders, as the web process makes it of the API user (for in-process intake). */
  actor: OrderActor;
  /** The i-th order's body (the JSON `order(i)` sends). */
  body(i: number): unknown;
  order(i: number): { method: string; path: string; host: string; headers: Record<string, string>; body: string };
}

export async function orderFixture(knex: Knex, slug: string): Promise<OrderFixture> {
  await migratePlatform(knex);
  const tenant = await createTenant(knex, { slug, name: slug });
  const email = `${slug}@${slug}.test`;
  const password = `${slug}-password-1`;
  const { contacts, eventId, userId } = await withTenant(knex, tenant, async (trx) => {
    const user = await createUser(trx, { email, password, role: 'admin' });
    await createPaymentType(trx, 'card');
    const ids = (
      await trx('contacts')
        .insert(Array.from({ length: 50 }, (_, i) => ({ first_name: `P${i}`, last_name: slug })))
        .returning('id')
    ).map((r: { id: number }) => r.id);
    const [tpl] = await trx('course_templates')
      .insert({ title: `${slug} course` })
      .returning('id');
    const [ev] = await trx('events')
      .insert({ course_template_id: tpl.id, title: `${slug} event`, price: 100, currency_code: 'GBP' })
      .returning('id');
    return { contacts: ids, eventId: ev.id as number, userId: user.id };
  });
  const auth = `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;
  const body = (i: number) => ({
    contact_id: contacts[i % 50],
    items: [
      {
        event_id: eventId,
        price: 100,
        quantity: 3,
        students: [{ contact_id: contacts[(i + 1) % 50] }, { contact_id: contacts[(i + 2) % 50] }],
      },
    ],
    payment: { amount: 300, type: 'card', currency: 'GBP' },
  });
  return {
    tenant,
    // The user has no company (createUser sets none), so neither has the web process's actor.
    actor: { tenantId: tenant.id, userId, companyId: null },
    body,
    order: (i) => ({
      method: 'POST',
      path: '/api/v2/orders',
      host: `${slug}.localhost`,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body(i)),
    }),
  };
}
