import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { QUEUE_NAMES, type QueueBackend } from '../../platform/queues/queues.js';
import type { AppContext, AppMiddleware } from './context.js';
import { withTimeout } from '../../platform/util/net.js';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
/**
 * Every job Lectern adds has a priority (fairness.ts), and BullMQ counts a waiting job with a
 * priority as `prioritized`: `waiting` reports both, so it keeps meaning "queued, not started".
 */
const COUNTED_STATES = [...QUEUE_STATES, 'prioritized'] as const;

export interface Metrics {
  registry: Registry;
  middleware: AppMiddleware;
}

/** Prometheus metrics: process defaults, HTTP latency by route and status, queue depth by queue, and what `more` registers. */
export function createMetrics(queues: QueueBackend, more: (registry: Registry) => void = () => undefined): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  more(registry);
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  new Gauge({
    name: 'bullmq_queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      for (const name of QUEUE_NAMES) {
        try {
          // A queue's jobs summed over its shards: the series stay one per queue and state.
          const shards = await withTimeout(
            Promise.all(queues.shards(name).map((q) => q.getJobCounts(...COUNTED_STATES))),
            1000,
            'queue counts',
          );
          const sum = (state: (typeof COUNTED_STATES)[number]) => shards.reduce((n, counts) => n + (counts[state] ?? 0), 0);
          for (const state of QUEUE_STATES) this.set({ queue: name, state }, sum(state) + (state === 'waiting' ? sum('prioritized') : 0));
        } catch {
          // Queue store unreachable: leave the series out rather than report zeros.
          for (const state of QUEUE_STATES) this.remove({ queue: name, state });
        }
      }
    },
  });

  const routeOf = (ctx: AppContext): string => {
    // Route templates keep label cardinality bounded; unmatched paths share one label.
    const matched = (ctx as unknown as { _matchedRoute?: string | RegExp })._matchedRoute;
    return typeof matched === 'string' ? matched : 'unmatched';
  };

  return {
    registry,
    middleware: async (ctx, next) => {
      const end = latency.startTimer();
      try {
        await next();
      } finally {
        end({ method: ctx.method, route: routeOf(ctx), status: String(ctx.status) });
      }
    },
  };
}
