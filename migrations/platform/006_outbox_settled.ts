import type { Knex } from 'knex';

/**
 * An outbox row stays open until the work it asked for is done, so work whose job the queue
 * store lost (Redis restarted empty, a job evicted) is found and queued again by the workers'
 * reconciler:
 * - `settled_at`: set when the job completed (or the reconciler found its record finished,
 *   failed or gone); until then the row is open.
 * - `checked_at`: when the row was written or last looked at by a reconciler, which looks again
 *   only once RECONCILE_AFTER_MS have passed, so a sweep reads only rows that may be stuck.
 * - `requeues`: how often a reconciler queued the job again (its job id then ends in `-q<n>`).
 * Rows without an explicit job id (tenant statistics refreshes) are not tracked: settled now.
 */
export const name = '006_outbox_settled';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).alterTable('outbox', (t) => {
    t.timestamp('settled_at', { useTz: true });
    t.timestamp('checked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.integer('requeues').notNullable().defaultTo(0);
  });
  await knex.raw('update ??.outbox set settled_at = coalesce(enqueued_at, now()) where job_id is null', [schema]);
  // What a reconciler sweep reads: open, enqueued rows of its namespace, oldest check first.
  await knex.raw(
    'create index outbox_open_idx on ??.outbox (queue_namespace, checked_at) where settled_at is null and enqueued_at is not null',
    [schema],
  );
  // What a finished job settles by.
  await knex.raw('create index outbox_open_job_idx on ??.outbox (job_id) where settled_at is null', [schema]);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.raw('drop index if exists ??.outbox_open_job_idx', [schema]);
  await knex.raw('drop index if exists ??.outbox_open_idx', [schema]);
  await knex.schema.withSchema(schema).alterTable('outbox', (t) => {
    t.dropColumn('requeues');
    t.dropColumn('checked_at');
    t.dropColumn('settled_at');
  });
}
