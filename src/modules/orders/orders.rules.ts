import { problem, type Problem } from '../../platform/problems.js';
import { centsToDecimal, MAX_AMOUNT, toCents } from './money.js';
import type { OrderInput } from './order-input.js';

/**
 * The rules of orders, as pure functions: what an accepted order body becomes once its
 * references are looked up (contract rule 1: references that name nothing are dropped, not
 * refused), the delegates a registration makes, what an invoice says, and the limits of the
 * tenant's order setup. The body's own shape is checked by `order-input.ts` (zod), before these.
 */

/** A reference the intake dropped because it names nothing (contract rule 1). */
export interface Discarded {
  path: string;
  id: number | null;
  reason: string;
}

/** An order's states: received (REST orders start here) -> [awaiting_release -> released, manual workflow] -> registered -> completed; or failed. */
export const OPPORTUNITY_STATES = ['received', 'awaiting_release', 'released', 'registered', 'completed', 'failed'] as const;
export type OpportunityState = (typeof OPPORTUNITY_STATES)[number];
/** How much of an invoice is paid. */
export const INVOICE_STATUSES = ['unpaid', 'part_paid', 'paid'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** What the order's references name, looked up in one round trip. */
export interface References {
  /** Every contact the order names that exists: the buyer, item contacts and students. */
  contacts: Set<number>;
  /** The body's company (null when it names none that exists); else the API user's; else the lowest id (contract). */
  companyId: number | null;
  /** The payment type the tenant set up under the payment's type name (any case), if any. */
  paymentTypeId: number | null;
  events: Set<number>;
  /** Stock item id to price (numeric text). */
  stock: Map<number, string>;
}

/** An order's place-buying line, as the registration step needs it. */
export interface EventLine {
  id: number;
  event_id: number;
  contact_id: number | null;
  student_ids: number[];
  quantity: number;
}

/** An order's line with what an invoice line says of it. */
export interface InvoiceSourceLine {
  kind: 'event' | 'stock_item';
  event_id: number | null;
  stock_item_id: number | null;
  quantity: number;
  unit_price: string;
  event_title: string | null;
  event_start: string | null;
  event_currency: string | null;
  stock_name: string | null;
}

/** A delegate the registration step makes: named (contact_id) or holding places bought without names. */
export type NewDelegate =
  { event_id: number; contact_id: number; num_places: null } | { event_id: number; contact_id: null; num_places: number };

/** A line of an invoice, as the invoice step writes it. */
export interface InvoiceLineDraft {
  position: number;
  description: string;
  event_id: number | null;
  stock_item_id: number | null;
  quantity: number;
  /** numeric(14,2) text. */
  unit_price: string;
  amount: string;
}

/** How a tenant's REST orders proceed from their initial state. */
export const ORDER_WORKFLOWS = ['automatic', 'manual'] as const;
export type OrderWorkflow = (typeof ORDER_WORKFLOWS)[number];

/** A place-buying line of an accepted order, its references checked. */
export interface ResolvedLine {
  eventId: number;
  contactId: number | null;
  studentIds: number[];
  quantity: number;
  price: number;
  children: { itemId: number; priceCents: number }[];
}

/**
 * The order's items as lines: an item naming no event (or none that exists) is dropped with its
 * stock items; a name (item contact or student) naming no contact leaves its place unnamed; a
 * stock item naming nothing is dropped, and one without a price costs the stock item's price. An
 * item without a quantity buys a place per name, at least one. Every drop is kept in `discarded`.
 */
export function resolveItems(
  order: OrderInput,
  { contacts, events, stock }: Pick<References, 'contacts' | 'events' | 'stock'>,
): { lines: ResolvedLine[]; discarded: Discarded[] } {
  const items = order.items ?? [];

  const lines: ResolvedLine[] = [];
  const discarded: Discarded[] = [];
  items.forEach((it, i) => {
    if (it.event_id === undefined || !events.has(it.event_id)) {
      discarded.push({
        path: `items.${i}.event_id`,
        id: it.event_id ?? null,
        reason: it.event_id === undefined ? 'item names no event' : 'no such event; item dropped',
      });
      return;
    }
    const named = [...(it.contact_id ? [it.contact_id] : []), ...(it.students ?? []).map((s) => s.contact_id)];
    const keep = (contactId: number, path: string) => {
      if (contacts.has(contactId)) return true;
      discarded.push({ path, id: contactId, reason: 'no such contact; the place stays unnamed' });
      return false;
    };
    const contactId = it.contact_id && keep(it.contact_id, `items.${i}.contact_id`) ? it.contact_id : null;
    const studentIds = (it.students ?? [])
      .filter((s, j) => keep(s.contact_id, `items.${i}.students.${j}.contact_id`))
      .map((s) => s.contact_id);
    const children: ResolvedLine['children'] = [];
    (it.children ?? []).forEach((c, j) => {
      const stockPrice = stock.get(c.item_id);
      if (stockPrice === undefined)
        discarded.push({ path: `items.${i}.children.${j}.item_id`, id: c.item_id, reason: 'no such stock item; dropped' });
      else children.push({ itemId: c.item_id, priceCents: c.price !== undefined ? toCents(c.price) : toCents(stockPrice) });
    });
    lines.push({
      eventId: it.event_id,
      contactId,
      studentIds,
      quantity: it.quantity ?? Math.max(1, named.length),
      price: it.price,
      children,
    });
  });
  return { lines, discarded };
}

/** Every contact an order names: the buyer, item contacts and students. */
export function contactsNamed(order: OrderInput): number[] {
  const items = order.items ?? [];
  return [
    order.contact_id,
    ...items.flatMap((it) => [...(it.contact_id ? [it.contact_id] : []), ...(it.students ?? []).map((s) => s.contact_id)]),
  ];
}

/**
 * The delegates a registration makes of the order's place-buying lines: a named delegate per
 * item contact and per student, one unnamed row holding the places bought without names (in
 * line order, named before unnamed).
 */
export function delegatesOf(lines: readonly EventLine[]): NewDelegate[] {
  return lines.flatMap((line): NewDelegate[] => {
    const named = [...(line.contact_id ? [line.contact_id] : []), ...line.student_ids];
    const unnamed = line.quantity - named.length;
    return [
      ...named.map((contact_id) => ({ event_id: line.event_id, contact_id, num_places: null })),
      ...(unnamed > 0 ? [{ event_id: line.event_id, contact_id: null, num_places: unnamed }] : []),
    ];
  });
}

/** Places each event of the order's lines needs. */
export function placesWanted(lines: readonly EventLine[]): Map<number, number> {
  const wanted = new Map<number, number>();
  for (const l of lines) wanted.set(l.event_id, (wanted.get(l.event_id) ?? 0) + l.quantity);
  return wanted;
}

/** What an invoice says of an order: its lines, total, what was paid, currency and status. */
export interface InvoiceDraft {
  lines: InvoiceLineDraft[];
  totalCents: number;
  paidCents: number;
  currency: string | null;
  status: InvoiceStatus;
}

/**
 * The invoice of an order: a line per place-buying item and per stock item (amount = unit price
 * x quantity, in whole cents), the total, and the status from what was paid. The currency is the
 * order's, else the payment's, else that of the first event that has one.
 */
export function draftInvoice(
  source: readonly InvoiceSourceLine[],
  order: { currency_id: string | null; payment_currency: string | null; payment_amount: string },
): InvoiceDraft {
  const lines = source.map((l, i) => {
    const unit = toCents(l.unit_price);
    const description =
      l.kind === 'event'
        ? `${l.event_title ?? `Event ${l.event_id}`}${l.event_start ? ` (${l.event_start})` : ''}`
        : (l.stock_name ?? `Stock item ${l.stock_item_id}`);
    return {
      line: {
        position: i + 1,
        description,
        event_id: l.event_id,
        stock_item_id: l.stock_item_id,
        quantity: l.quantity,
        unit_price: centsToDecimal(unit),
        amount: centsToDecimal(unit * l.quantity),
      },
      cents: unit * l.quantity,
    };
  });
  const totalCents = lines.reduce((sum, l) => sum + l.cents, 0);
  const paidCents = toCents(order.payment_amount);
  const currency = order.currency_id ?? order.payment_currency ?? source.find((l) => l.event_currency)?.event_currency ?? null;
  const status: InvoiceStatus = paidCents <= 0 ? 'unpaid' : paidCents >= totalCents ? 'paid' : 'part_paid';
  return { lines: lines.map((l) => l.line), totalCents, paidCents, currency, status };
}

/** The order workflow, when given, is one the tenant can choose. */
export function orderWorkflowProblems(value: string | undefined): Problem[] {
  return value === undefined || (ORDER_WORKFLOWS as readonly string[]).includes(value)
    ? []
    : [problem('orderWorkflow', value, 'orderWorkflow must be automatic or manual')];
}

/** A payment type's name (already trimmed): 1 to 100 characters without NUL. */
export function paymentTypeProblems(name: string): Problem[] {
  return !name || name.length > 100 || name.includes('\u0000') ? [problem('name', name, 'name must be 1 to 100 characters')] : [];
}

/** A stock item (its name already trimmed): a name of 1 to 255 characters without NUL, a price from 0 to the largest amount. */
export function stockItemProblems(input: { name: string; price: number }): Problem[] {
  const problems: Problem[] = [];
  if (!input.name || input.name.length > 255 || input.name.includes('\u0000'))
    problems.push(problem('name', input.name, 'name must be 1 to 255 characters'));
  if (!Number.isFinite(input.price) || input.price < 0 || input.price > MAX_AMOUNT)
    problems.push(problem('price', input.price, `price must be a number from 0 to ${MAX_AMOUNT}`));
  return problems;
}
