import { Gauge, type Registry } from 'prom-client';
import { readCounters } from '../platform/counters.data.js';
import type { Knex } from '../platform/db/knex.js';
import { oldestOpenAgeMs } from '../platform/queues/outbox.data.js';
import { withTimeout } from '../platform/util/net.js';

/**
 * Webhook deliveries on /metrics: what the workers counted (delivered, failed for good, retried;
 * platform.counters) and how long the oldest delivery not yet settled has waited (its outbox row
 * is open until it is delivered or failed for good). Read at each scrape, across every worker.
 */
export function webhookMetrics(knex: Knex, namespace: string): (registry: Registry) => void {
  return (registry) => {
    new Gauge({
      name: 'lectern_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome since the database was made (delivered, failed for good, retried), over all workers',
      labelNames: ['outcome'] as const,
      registers: [registry],
      async collect() {
        try {
          const counts = await withTimeout(readCounters(knex, namespace, 'webhook_deliveries_'), 1000, 'webhook counters');
          for (const outcome of ['delivered', 'failed', 'retried']) this.set({ outcome }, counts.get(`webhook_deliveries_${outcome}`) ?? 0);
        } catch {
          this.reset();
        }
      },
    });
    new Gauge({
      name: 'lectern_webhook_oldest_pending_seconds',
      help: 'Age of the oldest webhook delivery not yet delivered or failed for good (0: none)',
      registers: [registry],
      async collect() {
        try {
          const age = await withTimeout(oldestOpenAgeMs(knex, namespace, 'webhooks'), 1000, 'oldest webhook delivery');
          this.set((age ?? 0) / 1000);
        } catch {
          this.reset();
        }
      },
    });
  };
}
