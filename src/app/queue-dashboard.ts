import compose from 'koa-compose';
import { QUEUE_NAMES } from '../platform/queues/queues.js';
import type { Runtime } from './runtime.js';
import { slugFromHost } from '../platform/tenancy/registry.js';
import { platformAdminAuth } from '../modules/users/basic-auth.js';
import type { AppMiddleware } from '../kit/http/context.js';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * The BullMQ dashboard (bull-board) at `/admin/queues`, for platform administrators only, on
 * the platform's own host (never on a tenant's). Jobs carry ids only, so it shows no personal data.
 * bull-board (its UI, views and templates, some 10 MB) is loaded on the first visit, after the
 * administrator has signed in: web processes that never show it never carry it.
 */
export function queueDashboard(rt: Runtime): AppMiddleware {
  let board: Promise<AppMiddleware> | undefined;
  const load = async (): Promise<AppMiddleware> => {
    const [{ createBullBoard }, { BullMQAdapter }, { KoaAdapter }] = await Promise.all([import('@bull-board/api'), import('@bull-board/api/bullMQAdapter'), import('@bull-board/koa')]);
    const adapter = new KoaAdapter();
    adapter.setBasePath(DASHBOARD_PATH);
    createBullBoard({ queues: QUEUE_NAMES.map((name) => new BullMQAdapter(rt.queues.queue(name))), serverAdapter: adapter });
    return adapter.registerPlugin() as unknown as AppMiddleware;
  };
  const loaded = () =>
    (board ??= load().catch((err: unknown) => {
      board = undefined; // try again on the next visit
      throw err;
    }));
  const guarded = compose([platformAdminAuth(rt.knex, rt.passwords), (async (ctx, next) => (await loaded())(ctx, next)) as AppMiddleware]);
  return (ctx, next) => {
    const onPath = ctx.path === DASHBOARD_PATH || ctx.path.startsWith(`${DASHBOARD_PATH}/`);
    return onPath && slugFromHost(ctx.get('host'), rt.config.baseDomain) === undefined ? guarded(ctx, next) : next();
  };
}
