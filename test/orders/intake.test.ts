import test from 'ava';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { restFixture, type RestFixture } from '../helpers/rest.js';

/**
 * `POST /api/v2/orders` on its own, with no worker running: what is accepted, what is refused
 * (and that a refusal writes nothing), and idempotency keys.
 */
let f: RestFixture;
let contactId: number;
let eventId: number;

test.serial.before(async () => {
  f = await restFixture('ordi');
  contactId = (await f.api('POST', 'crm/contacts', { first_name: 'Ida', last_name: 'Intake' })).json.id;
  const tpl = (await f.api('POST', 'event/event_templates', { title: 'Intake course' })).json;
  eventId = (await f.api('POST', 'event/public_events', { event_template_id: tpl.id })).json.id;
});
test.after.always(async () => f?.close());

const stored = () =>
  withTenant(f.ctx.rt.knex, f.tenant, async (db) => ({
    orders: Number((await db('opportunities').count('* as n').first())!.n),
    lines: Number((await db('opportunity_lines').count('* as n').first())!.n),
    outbox: Number((await db('platform.outbox').where({ tenant_id: f.tenant.id }).count('* as n').first())!.n),
  }));

const BAD: [string, unknown, number, string][] = [
  ['no contact_id', { items: [] }, 400, 'contact_id'],
  ['contact_id as a string', { contact_id: String(1) }, 400, 'contact_id'],
  ['a negative quantity', { contact_id: 1, items: [{ event_id: 1, price: 10, quantity: -2 }] }, 400, 'items.0.quantity'],
  ['a fractional quantity', { contact_id: 1, items: [{ event_id: 1, price: 10, quantity: 1.5 }] }, 400, 'items.0.quantity'],
  ['a negative price', { contact_id: 1, items: [{ event_id: 1, price: -10 }] }, 400, 'items.0.price'],
  ['a price as text', { contact_id: 1, items: [{ event_id: 1, price: '10' }] }, 400, 'items.0.price'],
  ['an unknown top-level field', { contact_id: 1, coupon: 'FREE' }, 400, 'coupon'],
  ['an unknown item field', { contact_id: 1, items: [{ event_id: 1, price: 1, discount: 5 }] }, 400, 'items.0.discount'],
  ['a huge items array', { contact_id: 1, items: Array.from({ length: 5000 }, () => ({ event_id: 1, price: 1 })) }, 400, 'items'],
  ['items that is not an array', { contact_id: 1, items: { event_id: 1 } }, 400, 'items'],
  [
    'fewer places than names',
    { contact_id: 1, items: [{ event_id: 1, price: 1, quantity: 1, students: [{ contact_id: 1 }, { contact_id: 2 }] }] },
    400,
    'items.0.quantity',
  ],
  [
    'the same student twice',
    { contact_id: 1, items: [{ event_id: 1, price: 1, students: [{ contact_id: 2 }, { contact_id: 2 }] }] },
    400,
    'items.0.students',
  ],
  [
    'students on an item without an event',
    { contact_id: 1, items: [{ price: 1, students: [{ contact_id: 2 }] }] },
    400,
    'items.0.students',
  ],
  ['a payment without a type', { contact_id: 1, payment: { amount: 10 } }, 400, 'payment.type'],
  [
    'a payment currency that is not ISO 4217',
    { contact_id: 1, payment: { amount: 10, type: 'card', currency: 'pounds' } },
    400,
    'payment.currency',
  ],
  ['an amount beyond numeric(14,2)', { contact_id: 1, payment: { amount: 1e15, type: 'card' } }, 400, 'payment.amount'],
  ['a NUL in external_id', { contact_id: 1, external_id: 'a\u0000b' }, 400, 'external_id'],
];

for (const [what, body, status, field] of BAD) {
  test.serial(`when the order has ${what}, then ${status} names ${field} and nothing is written`, async (t) => {
    const before = await stored();
    const r = await f.api('POST', 'orders', body);
    t.is(r.status, status, r.text.slice(0, 300));
    t.is(r.json.error.code, 'invalid_order');
    t.truthy(r.json.error.details.fields[field], JSON.stringify(r.json.error.details.fields));
    t.deepEqual(await stored(), before);
  });
}

test.serial('when the body is not a JSON object, then 400 and nothing is written', async (t) => {
  const before = await stored();
  for (const raw of ['[]', '"order"', '{"contact_id": ']) {
    const r = await f.api('POST', 'orders', undefined, { rawBody: raw });
    t.is(r.status, 400, raw);
  }
  t.deepEqual(await stored(), before);
});

test.serial('when contact_id or company_id names no record, then 404 names it and nothing is written', async (t) => {
  const before = await stored();
  const noContact = await f.api('POST', 'orders', { contact_id: 987654 });
  t.is(noContact.status, 404);
  t.is(noContact.json.error.code, 'contact_not_found');
  t.deepEqual(noContact.json.error.details.fields, { contact_id: 'names no contact' });
  const noCompany = await f.api('POST', 'orders', { contact_id: contactId, company_id: 987654 });
  t.is(noCompany.status, 404);
  t.is(noCompany.json.error.code, 'company_not_found');
  t.deepEqual(await stored(), before);
});

test.serial(
  'when an order is accepted, then the opportunity, its lines and one outbox row are stored in the REST initial state',
  async (t) => {
    const before = await stored();
    const r = await f.api('POST', 'orders', {
      contact_id: contactId,
      external_id: 'ext-1',
      region_id: 'UK-N',
      currency_id: 'GBP',
      source_type_id: 3,
      items: [{ event_id: eventId, price: 99.99, quantity: 2 }],
    });
    t.is(r.status, 200);
    t.is(r.json.msg, 'Order received');
    const after = await stored();
    t.deepEqual(after, { orders: before.orders + 1, lines: before.lines + 1, outbox: before.outbox + 1 });
    const row = await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('opportunities').where({ id: r.json.order_id }).first());
    t.like(row, {
      state: 'received',
      source: 'rest',
      external_id: 'ext-1',
      region_id: 'UK-N',
      currency_id: 'GBP',
      source_type_id: 3,
      contact_id: contactId,
    });
    const job = await f.ctx.rt.knex('platform.outbox').where({ tenant_id: f.tenant.id }).orderBy('id', 'desc').first();
    t.is(job.job_id, `order-${f.tenant.id}-${r.json.order_id}`);
    t.deepEqual(job.payload, { tenantId: f.tenant.id, orderId: r.json.order_id }, 'ids only, no personal data');
  },
);

test.serial(
  'when an Idempotency-Key is sent again with the same body, then the same order_id comes back and nothing new is made',
  async (t) => {
    const body = { contact_id: contactId, items: [{ event_id: eventId, price: 10 }] };
    const first = await f.api('POST', 'orders', body, { headers: { 'idempotency-key': 'checkout-8842' } });
    t.is(first.status, 200);
    const before = await stored();
    // The same content with keys in another order is the same order.
    const second = await f.api(
      'POST',
      'orders',
      { items: [{ price: 10, event_id: eventId }], contact_id: contactId },
      { headers: { 'idempotency-key': 'checkout-8842' } },
    );
    t.is(second.status, 200);
    t.is(second.json.order_id, first.json.order_id);
    t.is(second.headers['idempotent-replayed'], 'true');
    t.deepEqual(await stored(), before);
    const other = await f.api('POST', 'orders', { ...body, external_id: 'different' }, { headers: { 'idempotency-key': 'checkout-8842' } });
    t.is(other.status, 422);
    t.is(other.json.error.code, 'idempotency_key_reused');
    t.deepEqual(await stored(), before);
  },
);

test.serial('when requests with one Idempotency-Key race, then exactly one order is made and all answer its id', async (t) => {
  const before = await stored();
  const body = { contact_id: contactId, items: [{ event_id: eventId, price: 5 }] };
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => f.api('POST', 'orders', body, { headers: { 'idempotency-key': 'race-1' } })),
  );
  t.deepEqual(
    answers.map((a) => a.status),
    Array(8).fill(200),
  );
  t.is(new Set(answers.map((a) => a.json.order_id)).size, 1);
  const after = await stored();
  t.is(after.orders, before.orders + 1);
});

test.serial('an Idempotency-Key that is not visible ASCII is refused', async (t) => {
  const r = await f.api('POST', 'orders', { contact_id: contactId }, { headers: { 'idempotency-key': 'x'.repeat(300) } });
  t.is(r.status, 400);
  t.is(r.json.error.code, 'invalid_idempotency_key');
});

test.serial('when a viewer places an order, then 403 and nothing is written', async (t) => {
  const { createUser } = await import('../../src/modules/users/users.service.js');
  const { basic, PASSWORD } = await import('../helpers/rest.js');
  const { request } = await import('../helpers/harness.js');
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => createUser(db, { email: 'viewer@ordi.test', password: PASSWORD, role: 'viewer' }));
  const before = await stored();
  const r = await request(f.port, {
    method: 'POST',
    path: '/api/v2/orders',
    host: `${f.tenant.slug}.localhost`,
    headers: { authorization: basic('viewer@ordi.test', PASSWORD) },
    body: { contact_id: contactId },
  });
  t.is(r.status, 403);
  t.deepEqual(await stored(), before);
});
