import test from 'ava';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { configureOrders, createPaymentType, createStockItem } from '../../src/modules/orders/order-settings.service.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { startWorkers, type RunningWorkers } from '../../src/app/workers.js';
import { waitFor } from '../helpers/harness.js';
import { graphqlFixture, type GraphQLFixture } from '../helpers/graphql.js';

/**
 * Orders as GraphQL shows them: an order placed through REST, finished by a real worker, read as
 * an Opportunity with its lines, registration, invoice and processing status; the manual
 * workflow's release; invoices; permissions.
 */
let f: GraphQLFixture;
let workers: RunningWorkers;
let eventId: number;
let contacts: number[];
let bookId: number;

test.serial.before(async () => {
  f = await graphqlFixture('gor', { env: { WORKER_LOCK_MS: '2000' } });
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
  contacts = [];
  for (const n of ['Ada', 'Ben'])
    contacts.push(
      (await f.api('POST', 'crm/contacts', { first_name: n, last_name: 'Buyer', email: `${n.toLowerCase()}@buyer.test` })).json.id,
    );
  await withTenant(f.ctx.rt.knex, f.tenant, async (db) => {
    await createPaymentType(db, 'card');
    bookId = (await createStockItem(db, { name: 'Course book', price: 25 })).id;
  });
});
test.after.always(async () => {
  await workers?.close();
  await f?.close();
});

const OPPORTUNITY = `id legacyId state processingStatus failureCode failureReason externalId contact { firstName email } paymentType paymentAmount
  lines { position kind event { title } stockItem { name } quantity unitPrice }
  registration { delegates { event { title } contact { firstName } numPlaces } }
  invoice { status currency total amountPaid lines { description quantity unitPrice amount } payments { paymentType amount transactionCode } }`;

async function order(body: Record<string, unknown>): Promise<number> {
  const r = await f.api('POST', 'orders', body);
  if (r.status !== 200) throw new Error(r.text);
  return r.json.order_id as number;
}
const read = async (id: number) =>
  (
    await f.data(f.admin, `query ($id: ID!) { node(id: $id) { ... on Opportunity { ${OPPORTUNITY} } } }`, {
      id: toGlobalId('Opportunity', id),
    })
  ).node;
const settled = (id: number, status: string) =>
  waitFor(async () => ((await read(id)).processingStatus === status ? read(id) : undefined), `opportunity ${id} ${status}`);

test.serial(
  'when an order placed through REST is finished by the worker, then GraphQL shows its lines, registration, invoice and status',
  async (t) => {
    const id = await order({
      contact_id: contacts[0],
      external_id: 'shop-2001',
      items: [{ event_id: eventId, price: 120, quantity: 2, students: [{ contact_id: contacts[1] }], children: [{ item_id: bookId }] }],
      payment: { amount: 100, type: 'card', transaction_code: 'tx-7' },
    });
    const o = await settled(id, 'finished');
    t.like(o, {
      legacyId: id,
      state: 'completed',
      failureCode: null,
      failureReason: null,
      externalId: 'shop-2001',
      contact: { firstName: 'Ada', email: 'ada@buyer.test' },
      paymentType: 'card',
      paymentAmount: '100.00',
    });
    t.deepEqual(o.lines, [
      { position: 1, kind: 'event', event: { title: 'Manual Handling' }, stockItem: null, quantity: 2, unitPrice: '120.00' },
      { position: 2, kind: 'stock_item', event: null, stockItem: { name: 'Course book' }, quantity: 1, unitPrice: '25.00' },
    ]);
    t.deepEqual(o.registration.delegates, [
      { event: { title: 'Manual Handling' }, contact: { firstName: 'Ben' }, numPlaces: null },
      { event: { title: 'Manual Handling' }, contact: null, numPlaces: 1 },
    ]);
    // Amounts are Decimal strings, as every Core amount (prices, Event.price): exact, never a binary float.
    t.like(o.invoice, {
      status: 'part_paid',
      currency: 'GBP',
      total: '265.00',
      amountPaid: '100.00',
      payments: [{ paymentType: 'card', amount: '100.00', transactionCode: 'tx-7' }],
    });
    t.like(o.invoice.lines[0], { unitPrice: '120.00', amount: '240.00' });
    t.is(o.invoice.lines.length, 2);

    const list = await f.data(
      f.admin,
      '{ opportunities(filters: [{field: externalId, operation: eq, value: "shop-2001"}]) { edges { node { legacyId state } } pageInfo { totalRecords } } }',
    );
    t.deepEqual(list.opportunities, { edges: [{ node: { legacyId: id, state: 'completed' } }], pageInfo: { totalRecords: 1 } });
    const invoices = await f.data(
      f.admin,
      '{ invoices(filters: [{field: status, operation: eq, value: "part_paid"}]) { edges { node { total opportunity { legacyId } contact { lastName } } } } }',
    );
    t.deepEqual(invoices.invoices.edges, [{ node: { total: '265.00', opportunity: { legacyId: id }, contact: { lastName: 'Buyer' } } }]);
  },
);

test.serial('when a full event fails an order, then processingStatus is failed with a reason free of internals', async (t) => {
  await withTenant(f.ctx.rt.knex, f.tenant, (db) => configureOrders(db, { preventOverbooking: true }));
  try {
    const id = await order({ contact_id: contacts[0], items: [{ event_id: eventId, price: 120, quantity: 50 }] });
    const o = await settled(id, 'failed');
    t.like(o, { state: 'failed', failureCode: 'event_full', registration: null, invoice: null });
    t.regex(o.failureReason, /place\(s\) left/);
  } finally {
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => configureOrders(db, { preventOverbooking: false }));
  }
});

test.serial(
  'with the manual workflow, an order waits for release; opportunity.release lets the worker finish it; releasing again is refused',
  async (t) => {
    await withTenant(f.ctx.rt.knex, f.tenant, (db) => configureOrders(db, { orderWorkflow: 'manual' }));
    try {
      const id = await order({ contact_id: contacts[1], items: [{ event_id: eventId, price: 120, quantity: 1 }] });
      t.like(await settled(id, 'waiting_for_release'), { state: 'awaiting_release', registration: null });
      const release = (oid: string) =>
        f.data(
          f.admin,
          'mutation ($id: ID!) { opportunity { release(opportunityId: $id) { opportunity { state processingStatus } errors { label message } } } }',
          { id: oid },
        );
      const released = (await release(toGlobalId('Opportunity', id))).opportunity.release;
      t.deepEqual(released, { opportunity: { state: 'released', processingStatus: 'pending' }, errors: [] });
      t.like(await settled(id, 'finished'), { state: 'completed', registration: { delegates: [{ contact: null, numPlaces: 1 }] } });
      const again = (await release(toGlobalId('Opportunity', id))).opportunity.release;
      t.is(again.opportunity, null);
      t.is(again.errors[0].label, 'opportunityId');
      t.regex(again.errors[0].message, /is completed; only an order awaiting release can be released/);
      t.deepEqual((await release(toGlobalId('Opportunity', 999999))).opportunity.release.errors, [
        { label: 'opportunityId', message: 'Opportunity not found' },
      ]);
    } finally {
      await withTenant(f.ctx.rt.knex, f.tenant, (db) => configureOrders(db, { orderWorkflow: 'automatic' }));
    }
  },
);

test.serial(
  'permissions: opportunities need OPPORTUNITY_VIEW, invoices INVOICE_VIEW, contacts CONTACT_VIEW, their events EVENT_VIEW, release OPPORTUNITY_EDIT',
  async (t) => {
    const events = await f.tokenFor(f.tenant, 'events', ['EVENT_VIEW']);
    t.regex((await f.gql(events, '{ opportunities { edges { node { id } } } }')).json.errors[0].message, /OPPORTUNITY_VIEW/);
    t.regex((await f.gql(events, '{ invoices { edges { node { id } } } }')).json.errors[0].message, /INVOICE_VIEW/);
    const sales = await f.tokenFor(f.tenant, 'sales', ['OPPORTUNITY_VIEW']);
    const res = await f.gql(
      sales,
      '{ opportunities(first: 1) { edges { node { state contact { email } invoice { total } lines { event { title } } } } } }',
    );
    t.deepEqual([...new Set(res.json.errors.map((e: { extensions: { permission: string } }) => e.extensions.permission))].sort(), [
      'CONTACT_VIEW',
      'EVENT_VIEW',
      'INVOICE_VIEW',
    ]);
    t.is(res.json.data.opportunities.edges[0].node.contact, null);
    const release = await f.gql(sales, 'mutation ($id: ID!) { opportunity { release(opportunityId: $id) { errors { message } } } }', {
      id: toGlobalId('Opportunity', 1),
    });
    t.regex(release.json.errors[0].message, /OPPORTUNITY_EDIT/);
  },
);
