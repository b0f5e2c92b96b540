import compose from 'koa-compose';
import { QUEUE_NAMES } from '../platform/queues/queues.js';
import type { Runtime } from './runtime.js';
import { slugFromHost } from '../platform/tenancy/registry.js';
import { platformAdminAuth } from '../modules/admins/admin-auth.js';
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
    const [{ createBullBoard }, { BullMQAdapter }, { KoaAdapter }] = await Promise.all([
      import('@bull-board/api'),
      import('@bull-board/api/bullMQAdapter'),
      import('@bull-board/koa'),
    ]);
    const adapter = new KoaAdapter();
    adapter.setBasePath(DASHBOARD_PATH);
    // bull-board keys its queues by name: the shards of a sharded queue are told apart by a
    // prefix of the name (`s1.orders`), and grouped by shard in its menu. An unsharded queue (one
    // shard: all of them when QUEUE_SHARDS is 1) keeps its bare name.
    const queues = QUEUE_NAMES.flatMap((name) => {
      const shards = rt.queues.shards(name);
      if (shards.length === 1) return [new BullMQAdapter(shards[0]!)];
      return shards.map(
        (q, k) =>
          new BullMQAdapter(q, {
            prefix: `s${k}.`,
            delimiter: '.',
            description: `Shard ${k} of ${shards.length} (tenants whose id mod ${shards.length} is ${k}), Redis keys ${q.opts.prefix ?? ''}`,
          }),
      );
    });
    createBullBoard({ queues, serverAdapter: adapter });
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
