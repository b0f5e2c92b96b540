import {
  configureOrders,
  createPaymentType,
  createStockItem,
  listPaymentTypes,
  listStockItems,
} from '../modules/orders/order-settings.service.js';
import { listOrders, showOrder } from '../modules/orders/order-view.service.js';
import { releaseOrder, retryOrder } from '../modules/orders/orders.service.js';
import { UsageError, boolFlag, inTenant, intFlag, str } from './command.js';
import type { Runners } from './manifest.js';

/** A tenant's order setup (workflow, capacity check, payment types, stock items) and its orders. */
export const runners: Runners<'orders'> = {
  async 'tenants:configure'(rt, flags) {
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
  'payment-types:create': async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => createPaymentType(db, str(flags, 'name'))) }),
  'payment-types:list': async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => listPaymentTypes(db)) }),
  async 'stock-items:create'(rt, flags) {
    const price = Number(str(flags, 'price'));
    if (!/^\d+(\.\d{1,2})?$/.test(str(flags, 'price'))) throw new UsageError('--price must be an amount such as 25 or 12.50');
    return { output: await inTenant(rt, flags, (db) => createStockItem(db, { name: str(flags, 'name'), price })) };
  },
  'stock-items:list': async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => listStockItems(db)) }),
  'orders:show': async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => showOrder(db, intFlag(flags, 'id'))) }),
  async 'orders:list'(rt, flags) {
    const filter = {
      ...(typeof flags['external-id'] === 'string' ? { externalId: flags['external-id'] } : {}),
      ...(typeof flags.state === 'string' ? { state: flags.state } : {}),
    };
    return { output: await inTenant(rt, flags, (db) => listOrders(db, filter)) };
  },
  async 'orders:release'(rt, flags) {
    const id = intFlag(flags, 'id');
    await inTenant(rt, flags, (db, tenant) => releaseOrder(db, tenant.id, id));
    return { output: { id, state: 'released' } };
  },
  async 'orders:retry'(rt, flags) {
    const id = intFlag(flags, 'id');
    const { step } = await inTenant(rt, flags, (db, tenant) => retryOrder(db, tenant.id, id));
    return { output: { id, retried: step } };
  },
};
