import type { Knex } from 'knex';

/**
 * Which queue namespace (QUEUE_PREFIX) an outbox row belongs to, so a relay sweeps only its
 * own: deployments (or test runs) that share a database but not their queues never enqueue each
 * other's jobs. A process's connections say their namespace (`lectern.queue_namespace`, set when
 * the pool opens them), and new rows take it by default, with no change to the code that writes them.
 */
export const name = '005_outbox_namespace';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.raw(
    `alter table ??.outbox add column queue_namespace text not null default coalesce(nullif(current_setting('lectern.queue_namespace', true), ''), 'lectern')`,
    [schema],
  );
  await knex.raw('drop index if exists ??.outbox_pending_idx', [schema]);
  await knex.raw('create index outbox_pending_idx on ??.outbox (queue_namespace, id) where enqueued_at is null', [schema]);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.raw('drop index if exists ??.outbox_pending_idx', [schema]);
  await knex.raw('alter table ??.outbox drop column queue_namespace', [schema]);
  await knex.raw('create index outbox_pending_idx on ??.outbox (id) where enqueued_at is null', [schema]);
}
