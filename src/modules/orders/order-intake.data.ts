import type { Db } from '../../platform/db/knex.js';
import type { Discarded, References } from './orders.rules.js';
import { Opportunity, OpportunityLine } from './orders.data.js';

/**
 * The statements of an order's intake (contract: "Create an order"): its references looked up in
 * one round trip, the order and its lines written.
 *
 * @uses contacts, companies, events: the intake looks up every reference an order names in one round trip
 */

/**
 * Which of the given contacts, events and stock items exist, the order's company, and the
 * tenant's payment type of that name, in one statement. `company`: the body's company id (only
 * that one counts), or the fallback (the API user's company, else the lowest id).
 */
export async function lookUpReferences(
  db: Db,
  ask: {
    contactIds: number[];
    company: { id: number } | { fallback: number };
    paymentTypeName: string | null;
    eventIds: number[];
    stockIds: number[];
  },
): Promise<References> {
  const company =
    'id' in ask.company
      ? '(select id from companies where id = ?)'
      : 'coalesce((select id from companies where id = ?), (select min(id) from companies))';
  const { rows } = await db.raw<{
    rows: { contacts: number[]; company_id: number | null; payment_type_id: number | null; events: number[]; stock: [number, string][] }[];
  }>(
    `select array(select id from contacts where id = any(?::int[])) as contacts,
            ${company} as company_id,
            (select id from payment_types where lower(name) = lower(?)) as payment_type_id,
            array(select id from events where id = any(?::int[])) as events,
            coalesce((select json_agg(json_build_array(id, price::text)) from stock_items where id = any(?::int[])), '[]'::json) as stock`,
    [ask.contactIds, 'id' in ask.company ? ask.company.id : ask.company.fallback, ask.paymentTypeName, ask.eventIds, ask.stockIds],
  );
  const r = rows[0]!;
  return {
    contacts: new Set(r.contacts),
    companyId: r.company_id,
    paymentTypeId: r.payment_type_id,
    events: new Set(r.events),
    stock: new Map(r.stock),
  };
}

export type OpportunityKeyRow = Pick<Opportunity, 'id' | 'state' | 'request_hash' | 'retries' | 'released_on'>;

/** The order a user placed under an Idempotency-Key, if any. */
export function opportunityByIdempotencyKey(
  db: Db,
  userId: number | null,
  idempotencyKey: string | undefined,
): Promise<OpportunityKeyRow | undefined> {
  return db(Opportunity.tableName)
    .where({ created_by_user_id: userId, idempotency_key: idempotencyKey })
    .first<OpportunityKeyRow | undefined>();
}

export type NewOpportunity = Pick<
  Opportunity,
  | 'contact_id'
  | 'company_id'
  | 'external_id'
  | 'region_id'
  | 'currency_id'
  | 'source_type_id'
  | 'payment_type_name'
  | 'payment_type_id'
  | 'payment_amount'
  | 'payment_currency'
  | 'payment_transaction_code'
  | 'created_by_user_id'
  | 'idempotency_key'
  | 'request_hash'
> & { discarded: Discarded[] };

/**
 * Inserts an order in the REST initial state `received`; undefined when the user already has an
 * order under the same Idempotency-Key.
 */
export async function insertOpportunity(db: Db, row: NewOpportunity): Promise<{ id: number } | undefined> {
  const [opp] = await db(Opportunity.tableName)
    .insert({ state: 'received', ...row, discarded: JSON.stringify(row.discarded) })
    // Two requests racing with one key: the second waits for the first to commit, inserts
    // nothing here, and answers the first one's order (see placeOrder).
    .onConflict(['created_by_user_id', 'idempotency_key'])
    .ignore()
    .returning<{ id: number }[]>('id');
  return opp;
}

export type NewEventLine = Pick<
  OpportunityLine,
  'opportunity_id' | 'position' | 'event_id' | 'contact_id' | 'student_ids' | 'quantity' | 'unit_price'
>;
export type NewStockLine = Pick<
  OpportunityLine,
  'opportunity_id' | 'position' | 'stock_item_id' | 'parent_line_id' | 'quantity' | 'unit_price'
>;

/** Inserts the order's place-buying lines in one statement; their ids by position. */
export async function insertEventLines(db: Db, lines: NewEventLine[]): Promise<Map<number, number>> {
  const inserted = await db(OpportunityLine.tableName)
    .insert(
      lines.map((l) => ({
        opportunity_id: l.opportunity_id,
        position: l.position,
        kind: 'event',
        event_id: l.event_id,
        contact_id: l.contact_id,
        student_ids: l.student_ids,
        quantity: l.quantity,
        unit_price: l.unit_price,
      })),
    )
    .returning<{ id: number; position: number }[]>(['id', 'position']);
  return new Map(inserted.map((r) => [r.position, r.id]));
}

/** Inserts the stock items sold with the order's event lines, in one statement. */
export async function insertStockLines(db: Db, lines: NewStockLine[]): Promise<void> {
  await db(OpportunityLine.tableName).insert(
    lines.map((l) => ({
      opportunity_id: l.opportunity_id,
      position: l.position,
      kind: 'stock_item',
      stock_item_id: l.stock_item_id,
      parent_line_id: l.parent_line_id,
      quantity: l.quantity,
      unit_price: l.unit_price,
    })),
  );
}
