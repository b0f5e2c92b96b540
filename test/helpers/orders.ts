import type { ExecutionContext } from 'ava';
import type { Knex } from '../../src/platform/db/knex.js';
import { createPaymentType } from '../../src/modules/orders/order-settings.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { PASSWORD } from './rest.js';

/** Orders as the reliability tests place them, and the checks that each finished exactly once. */
export interface OrderSetup {
  tenant: Tenant;
  email: string;
  contacts: number[];
  eventId: number;
}

/** A tenant with an API user, contacts, an event and the `card` payment type. */
export async function orderSetup(knex: Knex, tenant: Tenant, label: string): Promise<OrderSetup> {
  const email = `api@${label}.test`;
  return withTenant(knex, tenant, async (db) => {
    if (!(await db('users').where({ email }).first())) await createUser(db, { email, password: PASSWORD, role: 'admin' });
    await createPaymentType(db, 'card').catch(() => undefined);
    const contacts = (
      await db('contacts')
        .insert(Array.from({ length: 6 }, (_, i) => ({ first_name: `${label}${i}`, last_name: label })))
        .returning('id')
    ).map((r: { id: number }) => r.id);
    const [tpl] = await db('course_templates')
      .insert({ title: `${label} course` })
      .returning('id');
    const [ev] = await db('events')
      .insert({ course_template_id: tpl.id, title: `${label} event`, price: 50, currency_code: 'EUR' })
      .returning('id');
    return { tenant, email, contacts, eventId: ev.id };
  });
}

/** An order with two named students, one unnamed place and a payment: 3 places at 50. */
export const orderFor = (s: OrderSetup, i: number) => ({
  contact_id: s.contacts[i % s.contacts.length],
  external_id: `${s.tenant.slug}-${i}`,
  items: [
    {
      event_id: s.eventId,
      price: 50,
      quantity: 3,
      students: [{ contact_id: s.contacts[(i + 1) % 6] }, { contact_id: s.contacts[(i + 2) % 6] }],
    },
  ],
  payment: { amount: 150, type: 'card' },
});

/** How many of `ids` are completed or failed. */
export const finishedOrders = (knex: Knex, s: OrderSetup, ids: number[]) =>
  withTenant(knex, s.tenant, async (db) =>
    Number((await db('opportunities').whereIn('id', ids).whereIn('state', ['completed', 'failed']).count('* as n').first())!.n),
  );

/** Every order finished exactly once: completed, one registration with its 3 places, one invoice of 150, one payment. */
export async function assertExactlyOnce(t: ExecutionContext, knex: Knex, s: OrderSetup, orderIds: number[]): Promise<void> {
  const rows = await withTenant(knex, s.tenant, (db) =>
    db('opportunities as o')
      .whereIn('o.id', orderIds)
      .select(
        'o.id',
        'o.state',
        db.raw('(select count(*)::int from registrations r where r.opportunity_id = o.id) as registrations'),
        db.raw('(select count(*)::int from invoices i where i.opportunity_id = o.id) as invoices'),
        db.raw('(select count(*)::int from payments p join invoices i on i.id = p.invoice_id where i.opportunity_id = o.id) as payments'),
        db.raw(
          '(select coalesce(sum(coalesce(d.num_places, 1)), 0)::int from delegates d join registrations r on r.id = d.registration_id where r.opportunity_id = o.id) as places',
        ),
        db.raw(
          '(select count(*)::int from delegates d join registrations r on r.id = d.registration_id where r.opportunity_id = o.id and d.contact_id is not null) as named',
        ),
        db.raw('(select coalesce(sum(total), 0)::float from invoices i where i.opportunity_id = o.id) as total'),
      ),
  );
  t.is(rows.length, orderIds.length, `${s.tenant.slug}: every order is in its own tenant`);
  const wrong = rows.filter(
    (r: Record<string, unknown>) =>
      r.state !== 'completed' ||
      r.registrations !== 1 ||
      r.invoices !== 1 ||
      r.payments !== 1 ||
      r.places !== 3 ||
      r.named !== 2 ||
      r.total !== 150,
  );
  t.deepEqual(wrong, [], `${s.tenant.slug}: orders not completed exactly once`);
}
