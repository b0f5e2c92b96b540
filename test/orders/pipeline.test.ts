import test from 'ava';
import { configureOrders, createPaymentType, createStockItem } from '../../src/modules/orders/order-settings.service.js';
import { showOrder, type OrderView } from '../../src/modules/orders/order-view.service.js';
import { invoiceOrder, registerOrder } from '../../src/modules/orders/order-processing.service.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import { runTs, waitFor } from '../helpers/harness.js';
import { restFixture, type RestFixture } from '../helpers/rest.js';

/**
 * Orders end to end through real HTTP, a real outbox, real BullMQ workers and real PostgreSQL:
 * intake answers at once, the worker registers, then invoices.
 */
let f: RestFixture;
let workers: RunningWorkers;
let eventId: number;
let smallEventId: number;
let contacts: number[];
let bookId: number;

test.serial.before(async () => {
  f = await restFixture('ordp', { WORKER_LOCK_MS: '2000' });
  workers = startWorkers(f.ctx.rt);
  const tpl = (await f.api('POST', 'event/event_templates', { title: 'Manual Handling' })).json;
  eventId = (
    await f.api('POST', 'event/public_events', {
      event_template_id: tpl.id,
      start_date: '2027-06-01',
      price: 120,
      currency_code: 'GBP',
      delegates_max: 20,
    })
  ).json.id;
  smallEventId = (
    await f.api('POST', 'event/public_events', {
      event_template_id: tpl.id,
      title: 'Small room',
      start_date: '2027-06-02',
      delegates_max: 2,
    })
  ).json.id;
  contacts = [];
  for (const n of ['Ada', 'Ben', 'Cy', 'Dee'])
    contacts.push((await f.api('POST', 'crm/contacts', { first_name: n, last_name: 'Buyer' })).json.id);
  await f.api('POST', 'crm/companies', { name: 'Lowest Ltd' });
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    await createPaymentType(db, 'card');
    bookId = (await createStockItem(db, { name: 'Course book', price: 25 })).id;
  });
});
test.after.always(async () => {
  await workers?.close();
  await f?.close();
});

const show = (id: number) => withTenant(f.ctx.rt.knex, f.tenant, (db) => showOrder(db, id));
const settle = (id: number, states = ['completed', 'failed', 'awaiting_release']) =>
  waitFor(async () => {
    const o = await show(id);
    return states.includes(o.state) ? o : undefined;
  }, `order ${id} to settle`);

test.serial(
  'when an order has named students, an unnamed place, a stock item and a set-up payment, then it is registered and invoiced with the right total',
  async (t) => {
    const r = await f.api('POST', 'orders', {
      contact_id: contacts[0],
      external_id: 'shop-1001',
      items: [
        {
          event_id: eventId,
          price: 120,
          quantity: 3,
          students: [{ contact_id: contacts[1] }, { contact_id: contacts[2] }],
          children: [{ item_id: bookId }],
        },
      ],
      payment: { amount: 385, type: 'Card', currency: 'GBP', transaction_code: 'tx-42' },
    });
    t.is(r.status, 200);
    t.deepEqual(Object.keys(r.json), ['msg', 'order_id']);
    t.true(Number.isInteger(r.json.order_id));
    // Answered before the worker ran: the order is stored in its REST initial state (or just past it).
    const order = await settle(r.json.order_id);
    t.is(order.state, 'completed');
    t.is(order.externalId, 'shop-1001');
    t.truthy(order.payment?.paymentTypeId, 'the payment type is set up (matched case-insensitively)');
    const delegates = order.registration!.delegates;
    t.deepEqual(
      delegates
        .filter((d) => d.contactId !== null)
        .map((d) => d.contactId)
        .sort(),
      [contacts[1], contacts[2]].sort(),
    );
    t.deepEqual(
      delegates.filter((d) => d.contactId === null).map((d) => d.numPlaces),
      [1],
    );
    t.is(order.invoice!.total, 385, '3 places at 120 and one book at 25');
    t.deepEqual(
      order.invoice!.lines.map((l) => [l.quantity, l.unitPrice, l.amount]),
      [
        [3, 120, 360],
        [1, 25, 25],
      ],
    );
    t.is(order.invoice!.currency, 'GBP');
    t.is(order.invoice!.status, 'paid');
    t.deepEqual(
      order.invoice!.payments.map((p) => [p.amount, p.transactionCode]),
      [[385, 'tx-42']],
    );
    // Through REST: the event's delegates list shows the two named delegates and the unnamed row.
    const listed = (await f.api('GET', `event/delegates?registration_id=${order.registration!.id}`)).json;
    t.is(listed.length, 3);
    t.deepEqual(listed.map((d: { num_delegates: number }) => d.num_delegates).sort(), [1, 1, 1]);
    // The unnamed place can be named through the REST naming endpoint.
    const unnamed = listed.find((d: { contact_id: number | null }) => d.contact_id === null);
    t.is((await f.api('POST', `event/delegates/${unnamed.id}/name`, { contact_id: contacts[3] })).status, 200);
  },
);

test.serial('when the payment type is not set up, then the order is registered without a payment method and no invoice', async (t) => {
  const r = await f.api('POST', 'orders', {
    contact_id: contacts[0],
    items: [{ event_id: eventId, price: 120, contact_id: contacts[1] }],
    payment: { amount: 120, type: 'voucher' },
  });
  const order = await settle(r.json.order_id);
  t.is(order.state, 'completed');
  t.is(order.payment?.paymentTypeId, null);
  t.is(order.registration!.delegates.length, 1);
  t.is(order.invoice, null);
});

test.serial('when items reference things that do not exist, then they are dropped silently and recorded', async (t) => {
  const r = await f.api('POST', 'orders', {
    contact_id: contacts[0],
    items: [
      { event_id: 999999, price: 10, children: [{ item_id: bookId }] },
      { price: 10 },
      { event_id: eventId, price: 50, contact_id: 888888, children: [{ item_id: 777777 }] },
    ],
    payment: { amount: 50, type: 'card' },
  });
  t.is(r.status, 200);
  const order = await settle(r.json.order_id);
  t.is(order.state, 'completed');
  t.deepEqual(
    order.discarded.map((d) => d.path),
    ['items.0.event_id', 'items.1.event_id', 'items.2.contact_id', 'items.2.children.0.item_id'],
  );
  // The place bought for a contact that does not exist stays, unnamed.
  t.deepEqual(
    order.registration!.delegates.map((d) => [d.contactId, d.numPlaces]),
    [[null, 1]],
  );
  t.is(order.invoice!.total, 50);
});

test.serial('when an order has no items, then it is valid and completes with no registration or invoice', async (t) => {
  const r = await f.api('POST', 'orders', { contact_id: contacts[0], payment: { amount: 0, type: 'card' } });
  t.is(r.status, 200);
  const order = await settle(r.json.order_id);
  t.is(order.state, 'completed');
  t.is(order.registration, null);
  t.is(order.invoice, null);
});

test.serial('when company_id is omitted, then the API user has none and the company with the lowest id is used', async (t) => {
  const r = await f.api('POST', 'orders', { contact_id: contacts[0] });
  const order = await show(r.json.order_id);
  const lowest = (await f.api('GET', 'crm/companies?_order=id&_limit=1')).json[0].id;
  t.is(order.companyId, lowest);
});

test.serial("when the API user has a company, then an order without company_id is that company's; a named company_id wins", async (t) => {
  const own = (await f.api('POST', 'crm/companies', { name: 'Own Training Ltd' })).json.id;
  const named = (await f.api('POST', 'crm/companies', { name: 'Named Ltd' })).json.id;
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('users').where({ email: f.email }).update({ company_id: own }));
  // The web process caches its users: the change reaches it through the database's notification.
  await f.ctx.rt.changes.caughtUp(f.ctx.rt.knex);
  try {
    const byUser = await f.api('POST', 'orders', { contact_id: contacts[0] });
    t.is((await show(byUser.json.order_id)).companyId, own);
    const byBody = await f.api('POST', 'orders', { contact_id: contacts[0], company_id: named });
    t.is((await show(byBody.json.order_id)).companyId, named);
  } finally {
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => db('users').where({ email: f.email }).update({ company_id: null }));
    await f.ctx.rt.changes.caughtUp(f.ctx.rt.knex);
  }
});

test.serial('when the tenant uses the manual workflow, then orders wait for release and the CLI releases them', async (t) => {
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => configureOrders(db, { orderWorkflow: 'manual' }));
  try {
    const r = await f.api('POST', 'orders', {
      contact_id: contacts[0],
      items: [{ event_id: eventId, price: 120, contact_id: contacts[2] }],
    });
    const waiting = await settle(r.json.order_id);
    t.is(waiting.state, 'awaiting_release');
    t.is(waiting.registration, null);
    const env = { DATABASE_URL: f.ctx.rt.databaseUrl, REDIS_URL: f.ctx.rt.config.redisUrl, QUEUE_PREFIX: f.ctx.rt.config.queuePrefix };
    const released = await runTs('src/cli/main.ts', ['orders:release', '--tenant', f.tenant.slug, '--id', String(r.json.order_id)], env);
    t.is(released.code, 0, released.stderr);
    t.deepEqual(JSON.parse(released.stdout), { id: r.json.order_id, state: 'released' });
    const done = await settle(r.json.order_id, ['completed', 'failed']);
    t.is(done.state, 'completed');
    t.is(done.registration!.delegates[0]!.contactId, contacts[2]!);
    // Releasing twice is refused: it is no longer waiting.
    const again = await runTs('src/cli/main.ts', ['orders:release', '--tenant', f.tenant.slug, '--id', String(r.json.order_id)], env);
    t.is(again.code, 1);
    t.regex(again.stderr, /only an order awaiting release/);
  } finally {
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => configureOrders(db, { orderWorkflow: 'automatic' }));
  }
});

test.serial(
  'when overbooking is prevented and an order needs more places than are left, then it fails cleanly with a reason, and a retry after more room succeeds',
  async (t) => {
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => configureOrders(db, { preventOverbooking: true }));
    try {
      const r = await f.api('POST', 'orders', {
        contact_id: contacts[0],
        items: [{ event_id: smallEventId, price: 10, quantity: 3 }],
        payment: { amount: 30, type: 'card' },
      });
      const failed = await settle(r.json.order_id);
      t.is(failed.state, 'failed');
      t.is(failed.failure?.code, 'event_full');
      t.regex(failed.failure!.reason, /has 2 place\(s\) left; the order needs 3/);
      t.is(failed.registration, null, 'nothing written');
      t.is(failed.invoice, null);
      await f.api('PUT', `event/public_events/${smallEventId}`, { delegates_max: 5 });
      const env = { DATABASE_URL: f.ctx.rt.databaseUrl, REDIS_URL: f.ctx.rt.config.redisUrl, QUEUE_PREFIX: f.ctx.rt.config.queuePrefix };
      const retried = await runTs('src/cli/main.ts', ['orders:retry', '--tenant', f.tenant.slug, '--id', String(r.json.order_id)], env);
      t.is(retried.code, 0, retried.stderr);
      const done = await settle(r.json.order_id, ['completed']);
      t.is(done.registration!.delegates[0]!.numPlaces, 3);
      t.is(done.invoice!.total, 30);
      t.is(done.retries, 1);
    } finally {
      await withTenant(f.ctx.rt.knex, f.tenant, (db) => configureOrders(db, { preventOverbooking: false }));
    }
  },
);

test.serial(
  'when overbooking is prevented and 50 orders of one place each arrive in parallel for an event with 10 places, then exactly 10 complete and 40 fail event_full',
  async (t) => {
    const tenPlaces = (
      await f.api('POST', 'event/public_events', {
        event_template_id: (await f.api('POST', 'event/event_templates', { title: 'Ten places' })).json.id,
        title: 'Ten places',
        start_date: '2027-07-01',
        delegates_max: 10,
      })
    ).json.id;
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => configureOrders(db, { preventOverbooking: true }));
    try {
      const placed = await Promise.all(
        Array.from({ length: 50 }, () =>
          f.api('POST', 'orders', { contact_id: contacts[0], items: [{ event_id: tenPlaces, price: 10, quantity: 1 }] }),
        ),
      );
      const orders = await Promise.all(placed.map((r) => settle(r.json.order_id, ['completed', 'failed'])));
      t.is(orders.filter((o) => o.state === 'completed').length, 10);
      const failed = orders.filter((o) => o.state === 'failed');
      t.is(failed.length, 40);
      t.true(failed.every((o) => o.failure?.code === 'event_full' && o.registration === null));
      const ev = (await f.api('GET', `event/public_events/${tenPlaces}`)).json;
      t.is(ev.delegates_booked, 10);
    } finally {
      await withTenant(f.ctx.rt.knex, f.tenant, (db) => configureOrders(db, { preventOverbooking: false }));
    }
  },
);

test.serial('without the capacity check, an order may overbook an event (contract rule 4)', async (t) => {
  const r = await f.api('POST', 'orders', { contact_id: contacts[0], items: [{ event_id: smallEventId, price: 10, quantity: 9 }] });
  const order = await settle(r.json.order_id);
  t.is(order.state, 'completed');
  const ev = (await f.api('GET', `event/public_events/${smallEventId}`)).json;
  t.true(ev.delegates_booked > ev.delegates_max);
});

test.serial('when the steps run again on a finished order, then nothing is made twice', async (t) => {
  const r = await f.api('POST', 'orders', {
    contact_id: contacts[0],
    items: [{ event_id: eventId, price: 120, quantity: 2 }],
    payment: { amount: 240, type: 'card' },
  });
  const before: OrderView = await settle(r.json.order_id);
  t.is(before.state, 'completed');
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    t.deepEqual(await registerOrder(db, r.json.order_id), { skipped: 'completed' });
    t.deepEqual(await invoiceOrder(db, r.json.order_id), { skipped: 'completed' });
  });
  const after = await show(r.json.order_id);
  t.deepEqual(after, before);
  const counts = await withTenant(f.ctx.rt.knex, f.tenant, async (db) => ({
    registrations: Number((await db('registrations').where({ opportunity_id: r.json.order_id }).count('* as n').first())!.n),
    invoices: Number((await db('invoices').where({ opportunity_id: r.json.order_id }).count('* as n').first())!.n),
  }));
  t.deepEqual(counts, { registrations: 1, invoices: 1 });
});

test.serial(
  'when the invoice step fails after the registration is made, then the retries invoice it without registering again',
  async (t) => {
    const schema = f.tenant.schema;
    // The invoice store "fails" until the trigger is dropped: a transient error, retried with backoff.
    await f.ctx.rt.knex.raw(
      `create function ${schema}.refuse_invoices() returns trigger language plpgsql as $$ begin raise exception 'invoice store unavailable'; end $$`,
    );
    await f.ctx.rt.knex.raw(
      `create trigger refuse_invoices before insert on ${schema}.invoices for each row execute function ${schema}.refuse_invoices()`,
    );
    let dropped = false;
    const unblock = async () => {
      if (dropped) return;
      dropped = true;
      await f.ctx.rt.knex.raw(`drop trigger refuse_invoices on ${schema}.invoices; drop function ${schema}.refuse_invoices()`);
    };
    try {
      const r = await f.api('POST', 'orders', {
        contact_id: contacts[0],
        items: [{ event_id: eventId, price: 120, quantity: 2 }],
        payment: { amount: 240, type: 'card' },
      });
      // Registered, and stuck at the invoice while the store refuses it.
      await waitFor(async () => (await show(r.json.order_id)).state === 'registered', 'the order to be registered');
      await new Promise((res) => setTimeout(res, 1500));
      t.is((await show(r.json.order_id)).state, 'registered', 'the invoice step keeps failing meanwhile');
      await unblock();
      const order = await settle(r.json.order_id, ['completed', 'failed']);
      t.is(order.state, 'completed');
      t.is(order.invoice!.total, 240);
      const registrations = await withTenant(f.ctx.rt.knex, f.tenant, async (db) =>
        Number((await db('registrations').where({ opportunity_id: r.json.order_id }).count('* as n').first())!.n),
      );
      t.is(registrations, 1);
      t.is(order.registration!.delegates.length, 1, 'one unnamed row of 2 places, made once');
    } finally {
      await unblock();
    }
  },
);

test.serial('when an order pays part or nothing of its total, then the invoice says so and records only what was paid', async (t) => {
  const part = await f.api('POST', 'orders', {
    contact_id: contacts[0],
    items: [{ event_id: eventId, price: 120, quantity: 2 }],
    payment: { amount: 100, type: 'card', transaction_code: 'tx-part' },
  });
  const nothing = await f.api('POST', 'orders', {
    contact_id: contacts[0],
    items: [{ event_id: eventId, price: 120, quantity: 1 }],
    payment: { amount: 0, type: 'card' },
  });
  const p = await settle(part.json.order_id);
  const n = await settle(nothing.json.order_id);
  t.deepEqual([p.invoice!.status, p.invoice!.total, p.invoice!.amountPaid], ['part_paid', 240, 100]);
  t.deepEqual(
    p.invoice!.payments.map((x) => [x.amount, x.transactionCode]),
    [[100, 'tx-part']],
  );
  t.deepEqual([n.invoice!.status, n.invoice!.total, n.invoice!.amountPaid], ['unpaid', 120, 0]);
  t.deepEqual(n.invoice!.payments, []);
});

test.serial('the CLI shows an order and finds orders by external id', async (t) => {
  const r = await f.api('POST', 'orders', {
    contact_id: contacts[0],
    external_id: 'crm-77',
    items: [{ event_id: eventId, price: 120, contact_id: contacts[3] }],
  });
  await settle(r.json.order_id);
  const env = { DATABASE_URL: f.ctx.rt.databaseUrl, REDIS_URL: f.ctx.rt.config.redisUrl, QUEUE_PREFIX: f.ctx.rt.config.queuePrefix };
  const shown = await runTs('src/cli/main.ts', ['orders:show', '--tenant', f.tenant.slug, '--id', String(r.json.order_id)], env);
  t.is(shown.code, 0, shown.stderr);
  const json = JSON.parse(shown.stdout);
  t.is(json.state, 'completed');
  t.is(json.registration.delegates[0].contactId, contacts[3]);
  t.is(json.failure, null);
  const found = await runTs('src/cli/main.ts', ['orders:list', '--tenant', f.tenant.slug, '--external-id', 'crm-77'], env);
  t.deepEqual(
    JSON.parse(found.stdout).map((o: { id: number }) => o.id),
    [r.json.order_id],
  );
});
