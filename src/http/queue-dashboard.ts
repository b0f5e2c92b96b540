import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import compose from 'koa-compose';
import { QUEUE_NAMES } from '../jobs/queues.js';
import type { Runtime } from '../runtime.js';
import { slugFromHost } from '../tenancy/registry.js';
import { platformAdminAuth } from './basic-auth.js';
import type { AppMiddleware } from './context.js';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * The BullMQ dashboard (bull-board) at `/admin/queues`, for platform administrators only, on
 * the platform's own host (never on a tenant's). Jobs carry ids only, so it shows no personal data.
 */
export function queueDashboard(rt: Runtime): AppMiddleware {
  const adapter = new KoaAdapter();
  adapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({ queues: QUEUE_NAMES.map((name) => new BullMQAdapter(rt.queues.queue(name))), serverAdapter: adapter });
  const guarded = compose([platformAdminAuth(rt.knex), adapter.registerPlugin() as unknown as AppMiddleware]);
  return (ctx, next) => {
    const onPath = ctx.path === DASHBOARD_PATH || ctx.path.startsWith(`${DASHBOARD_PATH}/`);
    return onPath && slugFromHost(ctx.get('host'), rt.config.baseDomain) === undefined ? guarded(ctx, next) : next();
  };
}
