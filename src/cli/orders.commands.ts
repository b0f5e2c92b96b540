import {
  configureOrders,
  createPaymentType,
  createStockItem,
  listPaymentTypes,
  listStockItems,
} from '../modules/orders/order-settings.service.js';
import { listOrders, showOrder } from '../modules/orders/order-view.service.js';
import { releaseOrder, retryOrder } from '../modules/orders/orders.service.js';
import { UsageError, boolFlag, inTenant, intFlag, str, tenantFlag, type Commands } from './command.js';

const orderFlags = { ...tenantFlag, id: { required: true, description: 'order id (order_id of POST /api/v2/orders)' } };

/** A tenant's order setup (workflow, capacity check, payment types, stock items) and its orders. */
export const orderCommands: Commands = {
  'tenants:configure': {
    summary: 'Set how REST orders are processed: the workflow from their initial state, and the opt-in capacity check',
    flags: {
      ...tenantFlag,
      'order-workflow': { description: 'automatic or manual' },
      'prevent-overbooking': { description: 'true or false' },
    },
    async run(rt, flags) {
      const workflow = flags['order-workflow'];
      if (workflow !== undefined && workflow !== 'automatic' && workflow !== 'manual')
        throw new UsageError('--order-workflow must be automatic or manual');
      const preventOverbooking = boolFlag(flags, 'prevent-overbooking');
      const settings = await inTenant(rt, flags, (db) =>
        configureOrders(db, {
          ...(workflow ? { orderWorkflow: workflow } : {}),
          ...(preventOverbooking !== undefined ? { preventOverbooking } : {}),
        }),
      );
      return { output: { tenant: flags.tenant, ...settings } };
    },
  },
  'payment-types:create': {
    summary: 'Add a payment type: orders whose payment.type matches it get a payment method and an invoice',
    flags: { ...tenantFlag, name: { required: true, description: 'e.g. card' } },
    run: async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => createPaymentType(db, str(flags, 'name'))) }),
  },
  'payment-types:list': {
    summary: "List a tenant's payment types",
    flags: tenantFlag,
    run: async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => listPaymentTypes(db)) }),
  },
  'stock-items:create': {
    summary: 'Add a stock item that order items can carry as children (a course book, a lunch)',
    flags: {
      ...tenantFlag,
      name: { required: true, description: 'e.g. "Course book"' },
      price: { required: true, description: 'unit price, e.g. 25' },
    },
    async run(rt, flags) {
      const price = Number(str(flags, 'price'));
      if (!/^\d+(\.\d{1,2})?$/.test(str(flags, 'price'))) throw new UsageError('--price must be an amount such as 25 or 12.50');
      return { output: await inTenant(rt, flags, (db) => createStockItem(db, { name: str(flags, 'name'), price })) };
    },
  },
  'stock-items:list': {
    summary: "List a tenant's stock items",
    flags: tenantFlag,
    run: async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => listStockItems(db)) }),
  },
  'orders:show': {
    summary: 'An order: state, lines, registration with delegates, invoice with lines and payments, failure reason',
    flags: orderFlags,
    run: async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => showOrder(db, intFlag(flags, 'id'))) }),
  },
  'orders:list': {
    summary: "A tenant's orders, newest first",
    flags: {
      ...tenantFlag,
      'external-id': { description: 'only orders with this external_id' },
      state: { description: 'only orders in this state (e.g. failed)' },
    },
    async run(rt, flags) {
      const filter = {
        ...(typeof flags['external-id'] === 'string' ? { externalId: flags['external-id'] } : {}),
        ...(typeof flags.state === 'string' ? { state: flags.state } : {}),
      };
      return { output: await inTenant(rt, flags, (db) => listOrders(db, filter)) };
    },
  },
  'orders:release': {
    summary: 'Release an order held by the manual workflow; the worker then registers it',
    flags: orderFlags,
    async run(rt, flags) {
      const id = intFlag(flags, 'id');
      await inTenant(rt, flags, (db, tenant) => releaseOrder(db, tenant.id, id));
      return { output: { id, state: 'released' } };
    },
  },
  'orders:retry': {
    summary: 'Run a failed order again from the step that failed',
    flags: orderFlags,
    async run(rt, flags) {
      const id = intFlag(flags, 'id');
      const { step } = await inTenant(rt, flags, (db, tenant) => retryOrder(db, tenant.id, id));
      return { output: { id, retried: step } };
    },
  },
};
