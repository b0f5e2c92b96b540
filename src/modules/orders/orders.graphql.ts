import { GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { AppError } from '../../platform/errors.js';
import { payloadType } from '../../kit/graphql/common.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { fieldError, type FieldError } from '../../kit/graphql/errors.js';
import { refField, requirePermission } from '../../kit/graphql/permissions.js';
import { legacyIdOf } from '../../kit/graphql/ids.js';
import { listQuery } from '../../kit/graphql/lists.js';
import { byId, byOwner } from '../../kit/graphql/loaders.js';
import { NodeInterface, nodeFields, registerNode } from '../../kit/graphql/node.js';
import { contactField } from '../crm/contacts.graphql.js';
import { Event, eventById } from '../events/events.graphql.js';
import { releaseOrder } from './orders.service.js';

/**
 * Orders in GraphQL: an order placed through REST is an Opportunity; what the workers made of
 * it (registration, invoice) and how far they got (`processing`) are on it. `opportunities` and
 * `invoices` lists; `opportunity { release }` for tenants with the manual workflow.
 * OPPORTUNITY_VIEW / OPPORTUNITY_EDIT, INVOICE_VIEW.
 */
type Row = Record<string, unknown> & { id: number };

const OPPORTUNITY_STATES = ['received', 'awaiting_release', 'released', 'registered', 'completed', 'failed'] as const;
const INVOICE_STATUSES = ['unpaid', 'part_paid', 'paid'] as const;
const enumOf = (name: string, values: readonly string[], description: string) => new GraphQLEnumType({ name, description, values: Object.fromEntries(values.map((v) => [v, { value: v }])) });

const OpportunityState = enumOf('OpportunityState', OPPORTUNITY_STATES, 'received (the state REST orders start in) -> [awaiting_release -> released, manual workflow] -> registered -> completed; or failed.');
const ProcessingStatus = enumOf('ProcessingStatus', ['pending', 'waiting_for_release', 'finished', 'failed'], 'pending: the worker has yet to finish it; waiting_for_release: held by the manual workflow; finished; failed (see failureReason).');
const InvoiceStatus = enumOf('InvoiceStatus', INVOICE_STATUSES, 'How much of the invoice is paid.');

const money = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const loaders = {
  opportunity: (ctx: GraphQLContext) => ctx.loader('Opportunity.byId', (db) => byId<Row>(db, 'opportunities')),
  invoice: (ctx: GraphQLContext) => ctx.loader('Invoice.byId', (db) => byId<Row>(db, 'invoices')),
  lines: (ctx: GraphQLContext) => ctx.loader('Opportunity.lines', (db) => byOwner<Row>(db, 'opportunity_lines', 'opportunity_id', 'position')),
  registration: (ctx: GraphQLContext) => ctx.loader('Opportunity.registration', (db) => byOwner<Row>(db, 'registrations', 'opportunity_id')),
  invoiceOf: (ctx: GraphQLContext) => ctx.loader('Opportunity.invoice', (db) => byOwner<Row>(db, 'invoices', 'opportunity_id')),
  delegates: (ctx: GraphQLContext) => ctx.loader('Registration.delegates', (db) => byOwner<Row>(db, 'delegates', 'registration_id')),
  invoiceLines: (ctx: GraphQLContext) => ctx.loader('Invoice.lines', (db) => byOwner<Row>(db, 'invoice_lines', 'invoice_id', 'position')),
  payments: (ctx: GraphQLContext) => ctx.loader('Invoice.payments', (db) => byOwner<Row>(db, 'payments', 'invoice_id')),
  stockItem: (ctx: GraphQLContext) => ctx.loader('StockItem.byId', (db) => byId<Row>(db, 'stock_items')),
  paymentType: (ctx: GraphQLContext) => ctx.loader('PaymentType.byId', (db) => byId<Row>(db, 'payment_types')),
};

const eventField = refField<Row>(Event, 'EVENT_VIEW', (r) => r.event_id as number | null, eventById);

const StockItem = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'StockItem',
  fields: { legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (s) => s.id }, name: { type: new GraphQLNonNull(GraphQLString) }, price: { type: GraphQLFloat, resolve: (s) => money(s.price) } },
});
const stockItemField = { type: StockItem, resolve: async (r: Row, _a: unknown, ctx: GraphQLContext) => (r.stock_item_id == null ? null : ((await loaders.stockItem(ctx).load(r.stock_item_id as number)) ?? null)) };

const OpportunityLine = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'OpportunityLine',
  fields: () => ({
    position: { type: new GraphQLNonNull(GraphQLInt) },
    kind: { type: new GraphQLNonNull(GraphQLString), description: 'event (places on an event) or stock_item (sold with the event line before it).' },
    event: eventField,
    stockItem: stockItemField,
    contact: contactField<Row>((l) => (l.contact_id as number | null) ?? null, 'The delegate the item names, if any.'),
    quantity: { type: new GraphQLNonNull(GraphQLInt) },
    unitPrice: { type: new GraphQLNonNull(GraphQLFloat), resolve: (l) => money(l.unit_price) },
  }),
});

const Delegate = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'Delegate',
  fields: () => ({
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (d) => d.id },
    event: eventField,
    contact: contactField<Row>((d) => (d.contact_id as number | null) ?? null, 'null on a row of places bought without names.'),
    numPlaces: { type: GraphQLInt, resolve: (d) => d.num_places, description: 'Places held by an unnamed row.' },
  }),
});

const Registration = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'Registration',
  fields: () => ({
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (r) => r.id },
    delegates: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Delegate))), resolve: (r, _a, ctx) => loaders.delegates(ctx).load(r.id) },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (r) => r.created_on },
  }),
});

const InvoiceLine = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'InvoiceLine',
  fields: () => ({
    position: { type: new GraphQLNonNull(GraphQLInt) },
    description: { type: new GraphQLNonNull(GraphQLString) },
    event: eventField,
    stockItem: stockItemField,
    quantity: { type: new GraphQLNonNull(GraphQLInt) },
    unitPrice: { type: new GraphQLNonNull(GraphQLFloat), resolve: (l) => money(l.unit_price) },
    amount: { type: new GraphQLNonNull(GraphQLFloat), resolve: (l) => money(l.amount) },
  }),
});

const Payment = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'Payment',
  fields: {
    legacyId: { type: new GraphQLNonNull(GraphQLInt), resolve: (p) => p.id },
    paymentType: { type: new GraphQLNonNull(GraphQLString), resolve: async (p, _a, ctx) => ((await loaders.paymentType(ctx).load(p.payment_type_id as number))?.name as string | undefined) ?? '' },
    amount: { type: new GraphQLNonNull(GraphQLFloat), resolve: (p) => money(p.amount) },
    currency: { type: GraphQLString },
    transactionCode: { type: GraphQLString, resolve: (p) => p.transaction_code },
    receivedOn: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => p.received_on },
  },
});

export const Invoice: GraphQLObjectType<Row, GraphQLContext> = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'Invoice',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Invoice'),
    status: { type: new GraphQLNonNull(InvoiceStatus) },
    currency: { type: GraphQLString },
    total: { type: new GraphQLNonNull(GraphQLFloat), resolve: (i) => money(i.total) },
    amountPaid: { type: new GraphQLNonNull(GraphQLFloat), resolve: (i) => money(i.amount_paid) },
    lines: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(InvoiceLine))), resolve: (i, _a, ctx) => loaders.invoiceLines(ctx).load(i.id) },
    payments: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Payment))), resolve: (i, _a, ctx) => loaders.payments(ctx).load(i.id) },
    contact: contactField<Row>((i) => i.contact_id as number, 'Who the invoice is for.'),
    opportunity: {
      type: Opportunity,
      resolve: async (i, _a, ctx) => {
        requirePermission(ctx, 'OPPORTUNITY_VIEW');
        return (await loaders.opportunity(ctx).load(i.opportunity_id as number)) ?? null;
      },
    },
    createdOn: { type: new GraphQLNonNull(GraphQLString), resolve: (i) => i.created_on },
  }),
});

const PROCESSING: Record<string, string> = { received: 'pending', released: 'pending', registered: 'pending', awaiting_release: 'waiting_for_release', completed: 'finished', failed: 'failed' };

export const Opportunity: GraphQLObjectType<Row, GraphQLContext> = new GraphQLObjectType<Row, GraphQLContext>({
  name: 'Opportunity',
  interfaces: [NodeInterface],
  fields: () => ({
    ...nodeFields('Opportunity'),
    state: { type: new GraphQLNonNull(OpportunityState) },
    processingStatus: { type: new GraphQLNonNull(ProcessingStatus), resolve: (o) => PROCESSING[o.state as string] },
    failureCode: { type: GraphQLString, resolve: (o) => o.failure_code, description: 'Why it failed, e.g. event_full or stalled (failed orders only).' },
    failureReason: { type: GraphQLString, resolve: (o) => o.failure_reason },
    failedOn: { type: GraphQLString, resolve: (o) => o.failed_on },
    retries: { type: new GraphQLNonNull(GraphQLInt), description: 'Times ops ran it again (orders:retry).' },
    externalId: { type: GraphQLString, resolve: (o) => o.external_id },
    contact: contactField<Row>((o) => o.contact_id as number, 'Who placed the order.'),
    currencyId: { type: GraphQLString, resolve: (o) => o.currency_id },
    paymentType: { type: GraphQLString, resolve: (o) => o.payment_type_name, description: 'The payment type the order was sent with.' },
    paymentAmount: { type: GraphQLFloat, resolve: (o) => money(o.payment_amount) },
    lines: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(OpportunityLine))), resolve: (o, _a, ctx) => loaders.lines(ctx).load(o.id) },
    registration: { type: Registration, resolve: async (o, _a, ctx) => (await loaders.registration(ctx).load(o.id))[0] ?? null },
    invoice: {
      type: Invoice,
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

export const opportunitiesQuery = listQuery<Row>({
  typeName: 'Opportunity',
  table: 'opportunities',
  permission: 'OPPORTUNITY_VIEW',
  node: () => Opportunity,
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

export const invoicesQuery = listQuery<Row>({
  typeName: 'Invoice',
  table: 'invoices',
  permission: 'INVOICE_VIEW',
  node: () => Invoice,
  defaultOrder: { field: 'id', direction: 'desc' },
  fields: {
    id: { column: 'id', kind: 'id', refType: 'Invoice', orderable: true },
    status: { column: 'status', kind: 'enum', enumValues: INVOICE_STATUSES, orderable: true },
    opportunity: { column: 'opportunity_id', kind: 'ref', refType: 'Opportunity' },
    contact: { column: 'contact_id', kind: 'ref', refType: 'Contact' },
    createdOn: { column: 'created_on', kind: 'datetime', orderable: true },
  },
});

const OpportunityPayload = payloadType('OpportunityPayload', 'opportunity', () => Opportunity);

export const OpportunityMutations = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'OpportunityMutations',
  fields: () => ({
    release: {
      type: OpportunityPayload,
      description: 'Releases an order the manual workflow holds (processingStatus waiting_for_release): the worker then registers and invoices it.',
      args: { opportunityId: { type: new GraphQLNonNull(GraphQLID) } },
      async resolve(_root, { opportunityId }: { opportunityId: string }, ctx): Promise<{ opportunity: Row | null; errors: FieldError[] }> {
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
