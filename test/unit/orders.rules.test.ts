import test, { type ExecutionContext } from 'ava';
import { AppError } from '../../src/platform/errors.js';
import { centsToDecimal, centsToNumber, MAX_AMOUNT, toCents } from '../../src/modules/orders/money.js';
import { orderHash, parseIdempotencyKey, parseOrder, type OrderInput } from '../../src/modules/orders/order-input.js';
import {
  delegatesOf,
  draftInvoice,
  orderWorkflowProblems,
  paymentTypeProblems,
  placesWanted,
  resolveItems,
  stockItemProblems,
  type InvoiceSourceLine,
} from '../../src/modules/orders/orders.rules.js';

/**
 * The pure rules of orders, without a database: money as whole cents, the order body's
 * coercion and refusals, what an accepted order becomes once its references are known, the
 * delegates a registration makes, the capacity check and the invoice's sums.
 */

/** The AppError a function throws, for its status, code, message and details. */
function refusal(t: ExecutionContext, fn: () => unknown): AppError {
  const err = t.throws(fn);
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

// --- money -------------------------------------------------------------------------------------

test('when a numeric column arrives as text, then toCents reads it exactly without a float', (t) => {
  t.is(toCents('395.00'), 39500);
  t.is(toCents('395.5'), 39550);
  t.is(toCents(' 12.05 '), 1205);
  t.is(toCents('-1.05'), -105);
  t.is(toCents('7'), 700);
  // 999999999999.99 as a float is not exact; as text it must be.
  t.is(toCents('999999999999.99'), 99999999999999);
});

test('when text has more than two decimals, then toCents drops the rest (never rounds up)', (t) => {
  t.is(toCents('0.999'), 99);
  t.is(toCents('10.129'), 1012);
});

test('when a JSON number is given, then toCents rounds it to the nearest cent once', (t) => {
  t.is(toCents(0.1 + 0.2), 30);
  t.is(toCents(19.99), 1999);
  t.is(toCents(395.5), 39550);
  t.is(toCents(0.005), 1);
  t.is(toCents(0), 0);
});

test('when text is not an amount, then toCents refuses it', (t) => {
  for (const bad of ['abc', '1e5', '12.', '.5', '', '1,50']) t.throws(() => toCents(bad), { message: `not an amount: ${bad}` }, bad);
});

test('when cents are written for a numeric(14,2) column, then centsToDecimal gives two decimals and the sign', (t) => {
  t.is(centsToDecimal(39550), '395.50');
  t.is(centsToDecimal(5), '0.05');
  t.is(centsToDecimal(0), '0.00');
  t.is(centsToDecimal(-105), '-1.05');
  t.is(centsToDecimal(-5), '-0.05');
  t.is(centsToDecimal(99999999999999), '999999999999.99');
});

test('when cents go out as JSON, then centsToNumber gives the amount as a number', (t) => {
  t.is(centsToNumber(39550), 395.5);
  t.is(centsToNumber(-105), -1.05);
});

test('when an amount round-trips through cents, then text and number agree', (t) => {
  for (const text of ['0.01', '12.30', '395.00', '1234567.89']) t.is(centsToDecimal(toCents(text)), text);
  for (const n of [0.01, 12.3, 395, 1234567.89]) t.is(centsToNumber(toCents(n)), n);
});

// --- order body coercion -------------------------------------------------------------------------

test('when an order body is valid, then parseOrder returns it with optional parts left out', (t) => {
  const order = parseOrder({
    contact_id: 7,
    items: [{ event_id: 3, price: 395.5, students: [{ contact_id: 8 }] }],
    payment: { amount: 10, type: 'card' },
  });
  t.deepEqual(order, {
    contact_id: 7,
    items: [{ event_id: 3, price: 395.5, students: [{ contact_id: 8 }] }],
    payment: { amount: 10, type: 'card' },
  });
});

test('when the body is not a JSON object, then parseOrder refuses it with invalid_body', (t) => {
  for (const body of [null, [], 'order', 42]) {
    const err = refusal(t, () => parseOrder(body));
    t.is(err.status, 400);
    t.is(err.code, 'invalid_body');
    t.is(err.message, 'The order must be a JSON object');
  }
});

test('when fields are missing, unknown or out of range, then parseOrder names each one and says why', (t) => {
  const err = refusal(t, () =>
    parseOrder({
      surprise: 1,
      company_id: 0,
      items: [{ event_id: 1, price: -1, quantity: 0, children: [{ item_id: 2, price: MAX_AMOUNT + 1 }] }],
      payment: { amount: 1, type: '', currency: 'gbp' },
    }),
  );
  t.is(err.status, 400);
  t.is(err.code, 'invalid_order');
  t.deepEqual(err.details, {
    fields: {
      contact_id: 'is required',
      company_id: 'must be an integer id',
      'items.0.price': 'must not be negative',
      'items.0.quantity': 'must be at least 1',
      'items.0.children.0.price': 'must be at most 999999999999.99',
      'payment.type': 'must not be empty',
      'payment.currency': 'must be an ISO 4217 code such as GBP',
      surprise: 'unknown field',
    },
  });
  t.true(err.message.startsWith('The order was not accepted: '));
  t.true(err.message.includes('contact_id is required'));
});

test('when an item names students without an event, the same contact twice, or fewer places than names, then parseOrder refuses it', (t) => {
  const noEvent = refusal(t, () => parseOrder({ contact_id: 1, items: [{ price: 1, students: [{ contact_id: 2 }] }] }));
  t.deepEqual(noEvent.details, { fields: { 'items.0.students': 'are allowed only on an item with an event_id' } });
  const twice = refusal(t, () =>
    parseOrder({ contact_id: 1, items: [{ event_id: 1, price: 1, contact_id: 2, students: [{ contact_id: 2 }] }] }),
  );
  t.deepEqual(twice.details, { fields: { 'items.0.students': 'must not name the same contact twice' } });
  const few = refusal(t, () =>
    parseOrder({ contact_id: 1, items: [{ event_id: 1, price: 1, quantity: 1, contact_id: 2, students: [{ contact_id: 3 }] }] }),
  );
  t.deepEqual(few.details, { fields: { 'items.0.quantity': 'must be at least the number of named delegates (2)' } });
});

test('when text holds a NUL or ids are not integers, then parseOrder refuses them', (t) => {
  const err = refusal(t, () => parseOrder({ contact_id: 1.5, external_id: 'a\u0000b' }));
  t.deepEqual(err.details, { fields: { contact_id: 'must be an integer id', external_id: 'must not contain NUL characters' } });
});

test('when the same order is sent with its keys in another order, then orderHash is the same; another order hashes differently', (t) => {
  const a = parseOrder({ contact_id: 1, items: [{ event_id: 2, price: 3 }], payment: { type: 'card', amount: 3 } });
  const b = parseOrder({ payment: { amount: 3, type: 'card' }, items: [{ price: 3, event_id: 2 }], contact_id: 1 });
  t.is(orderHash(a), orderHash(b));
  t.not(orderHash(a), orderHash({ ...a, contact_id: 2 }));
  t.regex(orderHash(a), /^[0-9a-f]{64}$/);
});

test('when an Idempotency-Key is absent, visible ASCII, or not, then it is ignored, taken, or refused', (t) => {
  t.is(parseIdempotencyKey(undefined), undefined);
  t.is(parseIdempotencyKey(''), undefined);
  t.is(parseIdempotencyKey('order-42'), 'order-42');
  t.is(parseIdempotencyKey('x'.repeat(255)), 'x'.repeat(255));
  for (const bad of ['has space', 'x'.repeat(256), 'caf\u00e9']) {
    const err = refusal(t, () => parseIdempotencyKey(bad));
    t.is(err.code, 'invalid_idempotency_key');
  }
});

// --- what an accepted order becomes ---------------------------------------------------------------

const order = (items: OrderInput['items']): OrderInput => ({ contact_id: 1, items });
const refs = { contacts: new Set([1, 10, 11]), events: new Set([100, 101]), stock: new Map([[500, '25.00']]) };

test('when items name no event or one that does not exist, then they are dropped with their stock items and kept in discarded', (t) => {
  const { lines, discarded } = resolveItems(
    order([{ price: 5 }, { event_id: 999, price: 5, children: [{ item_id: 500 }] }, { event_id: 100, price: 5 }]),
    refs,
  );
  t.deepEqual(
    lines.map((l) => l.eventId),
    [100],
  );
  t.deepEqual(discarded, [
    { path: 'items.0.event_id', id: null, reason: 'item names no event' },
    { path: 'items.1.event_id', id: 999, reason: 'no such event; item dropped' },
  ]);
});

test('when a name names no contact, then its place stays unnamed and the quantity still counts it', (t) => {
  const { lines, discarded } = resolveItems(
    order([{ event_id: 100, price: 5, contact_id: 99, students: [{ contact_id: 10 }, { contact_id: 98 }] }]),
    refs,
  );
  t.deepEqual(lines, [{ eventId: 100, contactId: null, studentIds: [10], quantity: 3, price: 5, children: [] }]);
  t.deepEqual(discarded, [
    { path: 'items.0.contact_id', id: 99, reason: 'no such contact; the place stays unnamed' },
    { path: 'items.0.students.1.contact_id', id: 98, reason: 'no such contact; the place stays unnamed' },
  ]);
});

test('when an item has no quantity, then it buys a place per name and at least one; a quantity given is kept', (t) => {
  const { lines } = resolveItems(
    order([
      { event_id: 100, price: 1 },
      { event_id: 100, price: 1, contact_id: 10, students: [{ contact_id: 11 }] },
      { event_id: 101, price: 1, quantity: 7 },
    ]),
    refs,
  );
  t.deepEqual(
    lines.map((l) => l.quantity),
    [1, 2, 7],
  );
});

test('when a stock item has no price, then it costs the stock item price; a price given wins; an unknown one is dropped', (t) => {
  const { lines, discarded } = resolveItems(
    order([{ event_id: 100, price: 1, children: [{ item_id: 500 }, { item_id: 500, price: 19.99 }, { item_id: 501 }] }]),
    refs,
  );
  t.deepEqual(lines[0]!.children, [
    { itemId: 500, priceCents: 2500 },
    { itemId: 500, priceCents: 1999 },
  ]);
  t.deepEqual(discarded, [{ path: 'items.0.children.2.item_id', id: 501, reason: 'no such stock item; dropped' }]);
});

test('when a registration is made, then each name is a delegate and the places without names are one unnamed row', (t) => {
  const delegates = delegatesOf([
    { id: 1, event_id: 100, contact_id: 10, student_ids: [11], quantity: 4 },
    { id: 2, event_id: 101, contact_id: null, student_ids: [12], quantity: 1 },
  ]);
  t.deepEqual(delegates, [
    { event_id: 100, contact_id: 10, num_places: null },
    { event_id: 100, contact_id: 11, num_places: null },
    { event_id: 100, contact_id: null, num_places: 2 },
    { event_id: 101, contact_id: 12, num_places: null },
  ]);
});

test('when an order has several lines on one event, then placesWanted adds their places up per event', (t) => {
  const wanted = placesWanted([
    { id: 1, event_id: 100, contact_id: null, student_ids: [], quantity: 2 },
    { id: 2, event_id: 100, contact_id: null, student_ids: [], quantity: 1 },
    { id: 3, event_id: 101, contact_id: null, student_ids: [], quantity: 50 },
  ]);
  t.deepEqual(
    [...wanted],
    [
      [100, 3],
      [101, 50],
    ],
  );
  // Whether they fit is the delegates module's (registration.rules.ts shortfall, test/people/learners-rules.test.ts).
});

// --- the invoice -----------------------------------------------------------------------------------

const eventLine = (over: Partial<InvoiceSourceLine> = {}): InvoiceSourceLine => ({
  kind: 'event',
  event_id: 100,
  stock_item_id: null,
  quantity: 2,
  unit_price: '395.50',
  event_title: 'First Aid',
  event_start: '2027-03-10',
  event_currency: 'GBP',
  stock_name: null,
  ...over,
});
const bookLine: InvoiceSourceLine = {
  kind: 'stock_item',
  event_id: null,
  stock_item_id: 500,
  quantity: 1,
  unit_price: '25.00',
  event_title: null,
  event_start: null,
  event_currency: null,
  stock_name: 'Course book',
};

test('when an invoice is drafted, then each line is unit price times quantity in cents and the total is their exact sum', (t) => {
  const draft = draftInvoice([eventLine(), bookLine], { currency_id: null, payment_currency: null, payment_amount: '816.00' });
  t.deepEqual(draft.lines, [
    {
      position: 1,
      description: 'First Aid (2027-03-10)',
      event_id: 100,
      stock_item_id: null,
      quantity: 2,
      unit_price: '395.50',
      amount: '791.00',
    },
    { position: 2, description: 'Course book', event_id: null, stock_item_id: 500, quantity: 1, unit_price: '25.00', amount: '25.00' },
  ]);
  t.is(draft.totalCents, 81600);
  t.is(draft.paidCents, 81600);
  t.is(draft.status, 'paid');
  t.is(draft.currency, 'GBP');
});

test('when cents would drift as floats, then the invoice total stays exact', (t) => {
  // 0.1 + 0.2 as floats is 0.30000000000000004; in cents it is 30.
  const draft = draftInvoice([eventLine({ quantity: 1, unit_price: '0.10' }), eventLine({ quantity: 1, unit_price: '0.20' })], {
    currency_id: null,
    payment_currency: null,
    payment_amount: '0.30',
  });
  t.is(draft.totalCents, 30);
  t.is(draft.status, 'paid');
});

test('when less or nothing is paid, then the invoice is part_paid or unpaid', (t) => {
  const lines = [eventLine()];
  t.is(draftInvoice(lines, { currency_id: null, payment_currency: null, payment_amount: '791.00' }).status, 'paid');
  t.is(draftInvoice(lines, { currency_id: null, payment_currency: null, payment_amount: '790.99' }).status, 'part_paid');
  t.is(draftInvoice(lines, { currency_id: null, payment_currency: null, payment_amount: '0.00' }).status, 'unpaid');
});

test("when an invoice's currency is chosen, then the order's wins over the payment's, which wins over the first event's", (t) => {
  const lines = [eventLine({ event_currency: null }), eventLine({ event_currency: 'EUR' })];
  t.is(draftInvoice(lines, { currency_id: 'USD', payment_currency: 'GBP', payment_amount: '1' }).currency, 'USD');
  t.is(draftInvoice(lines, { currency_id: null, payment_currency: 'GBP', payment_amount: '1' }).currency, 'GBP');
  t.is(draftInvoice(lines, { currency_id: null, payment_currency: null, payment_amount: '1' }).currency, 'EUR');
  t.is(draftInvoice([bookLine], { currency_id: null, payment_currency: null, payment_amount: '1' }).currency, null);
});

test('when a line lacks its title, start or name, then its description falls back to its id', (t) => {
  const draft = draftInvoice([eventLine({ event_title: null, event_start: null }), { ...bookLine, stock_name: null }], {
    currency_id: null,
    payment_currency: null,
    payment_amount: '0',
  });
  t.deepEqual(
    draft.lines.map((l) => l.description),
    ['Event 100', 'Stock item 500'],
  );
});

// --- the tenant's order setup --------------------------------------------------------------------

test('when the order workflow is not automatic or manual, then it is a problem on orderWorkflow', (t) => {
  t.deepEqual(orderWorkflowProblems(undefined), []);
  t.deepEqual(orderWorkflowProblems('manual'), []);
  t.deepEqual(orderWorkflowProblems('sometimes'), [
    { field: 'orderWorkflow', value: 'sometimes', message: 'orderWorkflow must be automatic or manual' },
  ]);
});

test('when a payment type name is empty, too long or holds a NUL, then it is a problem on name', (t) => {
  t.deepEqual(paymentTypeProblems('card'), []);
  t.deepEqual(paymentTypeProblems('x'.repeat(100)), []);
  for (const bad of ['', 'x'.repeat(101), 'ca\u0000rd']) t.is(paymentTypeProblems(bad)[0]?.field, 'name', JSON.stringify(bad));
});

test('when a stock item has a bad name or a price out of range, then each is a problem', (t) => {
  t.deepEqual(stockItemProblems({ name: 'Course book', price: 25 }), []);
  t.deepEqual(stockItemProblems({ name: 'Free', price: 0 }), []);
  t.deepEqual(stockItemProblems({ name: 'Max', price: MAX_AMOUNT }), []);
  t.deepEqual(
    stockItemProblems({ name: '', price: -1 }).map((p) => [p.field, p.message]),
    [
      ['name', 'name must be 1 to 255 characters'],
      ['price', 'price must be a number from 0 to 999999999999.99'],
    ],
  );
  t.deepEqual(
    stockItemProblems({ name: 'x'.repeat(256), price: Number.NaN }).map((p) => p.field),
    ['name', 'price'],
  );
  t.deepEqual(
    stockItemProblems({ name: 'ok', price: MAX_AMOUNT + 1 }).map((p) => p.field),
    ['price'],
  );
});
