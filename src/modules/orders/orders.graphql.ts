import DataLoader from 'dataloader';
import { GraphQLEnumType, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { Db } from '../../platform/db/knex.js';
import { AppError } from '../../platform/errors.js';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, type FieldError } from '../../kit/graphql/errors.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { contactField } from '../crm/index.graphql.js';
import { Decimal } from '../pricing/index.graphql.js';
import { DelegateObject, delegatesOfRegistration } from '../delegates/index.graphql.js';
import { EventObject, eventById } from '../events/index.graphql.js';
import {
  Invoice as InvoiceModel,
  Opportunity as OpportunityModel,
  type InvoiceLineRow,
  type InvoiceRow,
  type OpportunityLineRow,
  type OpportunityRow,
  type PaymentRow,
  type RegistrationRow,
  type StockItemRow,
} from './orders.data.js';
import {
  invoicesByIds,
  invoicesOfOpportunities,
  linesOfInvoices,
  linesOfOpportunities,
  opportunitiesByIds,
  paymentsOfInvoices,
  paymentTypesByIds,
  registrationsOfOpportunities,
  stockItemsByIds,
} from './order-views.data.js';
import { INVOICE_STATUSES, OPPORTUNITY_STATES } from './orders.rules.js';
import { releaseOrder } from './orders.service.js';

/**
 * Orders in GraphQL: an order placed through REST is an Opportunity; what the workers made of
 * it (registration, invoice) and how far they got (`processing`) are on it. `opportunities` and
 * `invoices` lists; `opportunity { release }` for tenants with the manual workflow.
 * OPPORTUNITY_VIEW / OPPORTUNITY_EDIT, INVOICE_VIEW.
 */
const enumOf = (name: string, values: readonly string[], description: string) =>
  new GraphQLEnumType({ name, description, values: Object.fromEntries(values.map((v) => [v, { value: v }])) });

const OpportunityState = enumOf(
  'OpportunityState',
  OPPORTUNITY_STATES,
  'received (the state REST orders start in) -> [awaiting_release -> released, manual workflow] -> registered -> completed; or failed.',
);
const ProcessingStatus = enumOf(
  'ProcessingStatus',
  ['pending', 'waiting_for_release', 'finished', 'failed'],
  'pending: the worker has yet to finish it; waiting_for_release: held by the manual workflow; finished; failed (see failureReason).',
);
const InvoiceStatus = enumOf('InvoiceStatus', INVOICE_STATUSES, 'How much of the invoice is paid.');

/** Amounts are numeric in PostgreSQL (exact strings in JS), answered as Decimal strings like every Core amount. */
const money = (v: string | null | undefined) => (v === null || v === undefined ? null : v);

/** A loader of rows by id from a read of the order read model (orders.data.ts). */
const keyed =
  <R extends { id: number }>(read: (db: Db, ids: readonly number[]) => Promise<R[]>) =>
  (db: Db) =>
    new DataLoader<number, R | undefined>(async (ids) => {
      const rows = new Map((await read(db, ids)).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id));
    });
/** A loader of rows by their owner's id (`ownerOf`), in the order the read gives them. */
const grouped =
  <R>(read: (db: Db, ids: readonly number[]) => Promise<R[]>, ownerOf: (row: R) => number) =>
  (db: Db) =>
    new DataLoader<number, R[]>(async (ids) => {
      const groups = new Map<number, R[]>();
      for (const row of await read(db, ids)) {
        const group = groups.get(ownerOf(row));
        if (group) group.push(row);
        else groups.set(ownerOf(row), [row]);
      }
      return ids.map((id) => groups.get(id) ?? []);
    });

const loaders = {
  opportunity: (ctx: GraphQLContext) => ctx.loader('Opportunity.byId', keyed(opportunitiesByIds)),
  invoice: (ctx: GraphQLContext) => ctx.loader('Invoice.byId', keyed(invoicesByIds)),
  lines: (ctx: GraphQLContext) =>
    ctx.loader(
      'Opportunity.lines',
      grouped(linesOfOpportunities, (l) => l.opportunity_id),
    ),
  registration: (ctx: GraphQLContext) =>
    ctx.loader(
      'Opportunity.registration',
      grouped(registrationsOfOpportunities, (r) => r.opportunity_id),
    ),
  invoiceOf: (ctx: GraphQLContext) =>
    ctx.loader(
      'Opportunity.invoice',
      grouped(invoicesOfOpportunities, (i) => i.opportunity_id),
    ),
  invoiceLines: (ctx: GraphQLContext) =>
    ctx.loader(
      'Invoice.lines',
      grouped(linesOfInvoices, (l) => l.invoice_id),
    ),
  payments: (ctx: GraphQLContext) =>
    ctx.loader(
      'Invoice.payments',
      grouped(paymentsOfInvoices, (p) => p.invoice_id),
    ),
  stockItem: (ctx: GraphQLContext) => ctx.loader('StockItem.byId', keyed(stockItemsByIds)),
  paymentType: (ctx: GraphQLContext) => ctx.loader('PaymentType.byId', keyed(paymentTypesByIds)),
};

const eventField = refField<{ event_id: number | null }>(EventObject, 'EVENT_VIEW', (r) => r.event_id, eventById);

const StockItemObject = new GraphQLObjectType<StockItemRow, GraphQLContext>({
  name: 'StockItem',
  fields: {
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (s) => s.id },
    name: { type: new GraphQLNonNull(GraphQLString) },
    price: { type: Decimal, resolve: (s) => money(s.price) },
  },
});
const stockItemField = {
  type: StockItemObject,
  resolve: async (r: { stock_item_id: number | null }, _a: unknown, ctx: GraphQLContext) =>
    r.stock_item_id == null ? null : ((await loaders.stockItem(ctx).load(r.stock_item_id)) ?? null),
};

const OpportunityLineObject = new GraphQLObjectType<OpportunityLineRow, GraphQLContext>({
  name: 'OpportunityLine',
  fields: () => ({
    position: { type: new GraphQLNonNull(GraphQLInt) },
    kind: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'event (places on an event) or stock_item (sold with the event line before it).',
    },
    event: eventField,
    stockItem: stockItemField,
    contact: contactField<OpportunityLineRow>((l) => l.contact_id ?? null, 'The delegate the item names, if any.'),
    quantity: { type: new GraphQLNonNull(GraphQLInt) },
    unitPrice: { type: new GraphQLNonNull(Decimal), resolve: (l) => money(l.unit_price) },
  }),
});

const RegistrationObject = new GraphQLObjectType<RegistrationRow, GraphQLContext>({
  name: 'Registration',
  fields: () => ({
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (r) => r.id },
    delegates: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(DelegateObject))),
      resolve: (r, _a, ctx) => delegatesOfRegistration(ctx, r.id),
    },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (r) => r.created_on },
  }),
});

const InvoiceLineObject = new GraphQLObjectType<InvoiceLineRow, GraphQLContext>({
  name: 'InvoiceLine',
  fields: () => ({
    position: { type: new GraphQLNonNull(GraphQLInt) },
    description: { type: new GraphQLNonNull(GraphQLString) },
    event: eventField,
    stockItem: stockItemField,
    quantity: { type: new GraphQLNonNull(GraphQLInt) },
    unitPrice: { type: new GraphQLNonNull(Decimal), resolve: (l) => money(l.unit_price) },
    amount: { type: new GraphQLNonNull(Decimal), resolve: (l) => money(l.amount) },
  }),
});

const PaymentObject = new GraphQLObjectType<PaymentRow, GraphQLContext>({
  name: 'Payment',
  fields: {
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (p) => p.id },
    paymentType: {
      type: new GraphQLNonNull(GraphQLString),
      resolve: async (p, _a, ctx) => (await loaders.paymentType(ctx).load(p.payment_type_id))?.name ?? '',
    },
    amount: { type: new GraphQLNonNull(Decimal), resolve: (p) => money(p.amount) },
    currency: { type: GraphQLString },
    transactionCode: { type: GraphQLString, resolve: (p) => p.transaction_code },
    receivedOn: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => p.received_on },
  },
});

export const InvoiceObject: GraphQLObjectType<InvoiceRow, GraphQLContext> = new GraphQLObjectType<InvoiceRow, GraphQLContext>({
  name: 'Invoice',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Invoice'),
    status: { type: new GraphQLNonNull(InvoiceStatus) },
    currency: { type: GraphQLString },
    total: { type: new GraphQLNonNull(Decimal), resolve: (i) => money(i.total) },
    amountPaid: { type: new GraphQLNonNull(Decimal), resolve: (i) => money(i.amount_paid) },
    lines: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(InvoiceLineObject))),
      resolve: (i, _a, ctx) => loaders.invoiceLines(ctx).load(i.id),
    },
    payments: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(PaymentObject))),
      resolve: (i, _a, ctx) => loaders.payments(ctx).load(i.id),
    },
    contact: contactField<InvoiceRow>((i) => i.contact_id, 'Who the invoice is for.'),
    opportunity: {
      type: OpportunityObject,
      resolve: async (i, _a, ctx) => {
        requirePermission(ctx, 'OPPORTUNITY_VIEW');
        return (await loaders.opportunity(ctx).load(i.opportunity_id)) ?? null;
      },
    },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (i) => i.created_on },
  }),
});

const PROCESSING: Record<OpportunityRow['state'], string> = {
  received: 'pending',
  released: 'pending',
  registered: 'pending',
  awaiting_release: 'waiting_for_release',
  completed: 'finished',
  failed: 'failed',
};

export const OpportunityObject: GraphQLObjectType<OpportunityRow, GraphQLContext> = new GraphQLObjectType<OpportunityRow, GraphQLContext>({
  name: 'Opportunity',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Opportunity'),
    state: { type: new GraphQLNonNull(OpportunityState) },
    processingStatus: { type: new GraphQLNonNull(ProcessingStatus), resolve: (o) => PROCESSING[o.state] },
    failureCode: {
      type: GraphQLString,
      resolve: (o) => o.failure_code,
      description: 'Why it failed, e.g. event_full or stalled (failed orders only).',
    },
    failureReason: { type: GraphQLString, resolve: (o) => o.failure_reason },
    failedOn: { type: GraphQLString, resolve: (o) => o.failed_on },
    retries: { type: new GraphQLNonNull(GraphQLInt), description: 'Times ops ran it again (orders:retry).' },
    externalId: { type: GraphQLString, resolve: (o) => o.external_id },
    contact: contactField<OpportunityRow>((o) => o.contact_id, 'Who placed the order.'),
    currencyId: { type: GraphQLString, resolve: (o) => o.currency_id },
    paymentType: { type: GraphQLString, resolve: (o) => o.payment_type_name, description: 'The payment type the order was sent with.' },
    paymentAmount: { type: Decimal, resolve: (o) => money(o.payment_amount) },
    lines: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(OpportunityLineObject))),
      resolve: (o, _a, ctx) => loaders.lines(ctx).load(o.id),
    },
    registration: { type: RegistrationObject, resolve: async (o, _a, ctx) => (await loaders.registration(ctx).load(o.id))[0] ?? null },
    invoice: {
      type: InvoiceObject,
      resolve: async (o, _a, ctx) => {
        requirePermission(ctx, 'INVOICE_VIEW');
        return (await loaders.invoiceOf(ctx).load(o.id))[0] ?? null;
      },
    },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (o) => o.created_on },
    updatedOn: { type: new GraphQLNonNull(GraphQLString), resolve: (o) => o.updated_on },
    releasedOn: { type: GraphQLString, resolve: (o) => o.released_on },
    completedOn: { type: GraphQLString, resolve: (o) => o.completed_on },
  }),
});

registerNode('Opportunity', { permission: 'OPPORTUNITY_VIEW', load: (ctx, id) => loaders.opportunity(ctx).load(id) });
registerNode('Invoice', { permission: 'INVOICE_VIEW', load: (ctx, id) => loaders.invoice(ctx).load(id) });

export const opportunitiesQuery = listQuery<OpportunityRow>({
  typeName: 'Opportunity',
  table: OpportunityModel.tableName,
  permission: 'OPPORTUNITY_VIEW',
  node: () => OpportunityObject,
  defaultOrder: { field: 'id', direction: 'desc' },
  description: 'Orders and other opportunities, newest first by default.',
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Opportunity', orderable: true },
    state: { column: 'state', kind: 'enum', enumValues: OPPORTUNITY_STATES, orderable: true },
    externalId: { column: 'external_id', kind: 'text' },
    contact: { column: 'contact_id', kind: 'ref', refType: 'Contact' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
    updatedOn: { column: 'updated_on', kind: 'datetime', orderable: true },
  },
});

export const invoicesQuery = listQuery<InvoiceRow>({
  typeName: 'Invoice',
  table: InvoiceModel.tableName,
  permission: 'INVOICE_VIEW',
  node: () => InvoiceObject,
  defaultOrder: { field: 'id', direction: 'desc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Invoice', orderable: true },
    status: { column: 'status', kind: 'enum', enumValues: INVOICE_STATUSES, orderable: true },
    opportunity: { column: 'opportunity_id', kind: 'ref', refType: 'Opportunity' },
    contact: { column: 'contact_id', kind: 'ref', refType: 'Contact' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
  },
});

const OpportunityPayload = payloadType('OpportunityPayload', 'opportunity', () => OpportunityObject);

export const OpportunityMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'OpportunityMutations',
  fields: () => ({
    release: {
      type: OpportunityPayload,
      description:
        'Releases an order the manual workflow holds (processingStatus waiting_for_release): the worker then registers and invoices it.',
      args: { opportunityId: { type: new GraphQLNonNull(GraphQLID) } },
      async resolve(
        _root,
        { opportunityId }: { opportunityId: string },
        ctx,
      ): Promise<{ opportunity: OpportunityRow | null; errors: FieldError[] }> {
        requirePermission(ctx, 'OPPORTUNITY_EDIT');
        const id = legacyIdOf('Opportunity', opportunityId);
        if (id === undefined) return { opportunity: null, errors: [fieldError('opportunityId', opportunityId, 'Opportunity not found')] };
        try {
          await releaseOrder(ctx.db, ctx.tenant.id, id);
        } catch (err) {
          if (!(err instanceof AppError) || err.status >= 500) throw err;
          const message = err.status === 404 ? 'Opportunity not found' : err.message;
          return { opportunity: null, errors: [fieldError('opportunityId', opportunityId, message)] };
        }
        loaders.opportunity(ctx).clear(id);
        return { opportunity: (await loaders.opportunity(ctx).load(id)) ?? null, errors: [] };
      },
    },
  }),
});
