import type { Knex } from 'knex';

/**
 * Webhooks (issue 24): the tenant's webhooks, the changes they are told of, and each delivery.
 *
 * Changes are captured by triggers, in the transaction that makes them, whichever path made it
 * (REST, Core GraphQL, a worker, the CLI, SQL typed by hand): a rolled-back change leaves
 * nothing, and nothing is captured for a type no active webhook listens to (one indexed look-up
 * per changed row). A captured change is one `webhook_events` row per (transaction, type,
 * record): several changes to one record in one transaction are one event, and an update in the
 * transaction that created the record is folded into its creation. A deleted record keeps its
 * last state (`snapshot`), which its webhooks' stored queries read. For each active webhook of
 * the type, a `webhook_deliveries` row and an outbox row (`platform.outbox`, queue `webhooks`)
 * are written at once: the outbox relay queues the delivery job, and the reconciler follows it
 * (Redis lost, a worker killed). `pg_notify('lectern_changes', 'outbox')` wakes the workers'
 * relay at commit (PostgreSQL sends it only then, and once per transaction).
 *
 * A change of a row that belongs to a record (its translation, price, custom field value...) is
 * an update of the record ({@link parentTriggers}).
 *
 * A new webhook type is a row of the catalogue (src/modules/webhooks/webhook-types.ts) and one
 * trigger here ({@link captureTrigger}).
 */
export const name = '017_webhooks';

/** `capture_webhook_event(<type key>[, <key an event of which in the same transaction supersedes this one>])`. */
function captureTrigger(
  schema: string,
  table: string,
  op: 'insert' | 'update' | 'delete',
  key: string,
  when?: string,
  supersededBy?: string,
): string {
  const args = [key, ...(supersededBy ? [supersededBy] : [])].map((a) => `'${a}'`).join(', ');
  return `create trigger webhook_${key}_${op} after ${op} on "${schema}".${table} for each row
    ${when ? `when (${when})` : ''} execute function "${schema}".capture_webhook_event(${args})`;
}

/**
 * A change of a row that belongs to a record (a template's translation, price or custom field
 * value) is an update of that record: `capture_webhook_parent_change(<type key>, <created key>,
 * <record table>, <column naming the record>)`. Not when the record itself is gone (its rows
 * deleted with it) or was created in the same transaction.
 */
function parentTrigger(schema: string, table: string, parent: string, column: string, key: string, created: string): string {
  return `create trigger webhook_${key}_${table} after insert or update or delete on "${schema}".${table} for each row
    execute function "${schema}".capture_webhook_parent_change('${key}', '${created}', '${parent}', '${column}')`;
}

/** The rows that belong to a record, whose changes are that record's updates. */
export function parentTriggers(schema: string): string[] {
  const template = (table: string) =>
    parentTrigger(schema, table, 'course_templates', 'course_template_id', 'course_template_updated', 'course_template_created');
  const path = (table: string) =>
    parentTrigger(schema, table, 'learning_paths', 'learning_path_id', 'learning_path_updated', 'learning_path_created');
  return [
    template('course_template_translations'),
    template('course_template_field_values'),
    template('course_template_delivery_locales'),
    template('course_template_instructors'),
    template('prices'),
    path('learning_path_translations'),
    path('learning_path_field_values'),
    path('learning_path_objectives'),
    path('prices'),
    parentTrigger(schema, 'event_field_values', 'events', 'event_id', 'event_updated', 'event_created'),
    parentTrigger(schema, 'prices', 'events', 'event_id', 'event_updated', 'event_created'),
  ];
}

/** What makes a row of a table a change a webhook type is told of. The catalogue's test checks each type has one. */
export function captureTriggers(schema: string): string[] {
  const changed = 'old.* is distinct from new.*';
  const cancelled = (r: 'old' | 'new') => `(${r}.lifecycle_state = 'cancelled' or ${r}.is_cancelled)`;
  return [
    captureTrigger(schema, 'events', 'insert', 'event_created'),
    captureTrigger(schema, 'events', 'update', 'event_updated', changed, 'event_created'),
    captureTrigger(schema, 'events', 'update', 'event_cancelled', `${cancelled('new')} and not ${cancelled('old')}`),
    captureTrigger(schema, 'events', 'delete', 'event_deleted'),
    captureTrigger(schema, 'course_templates', 'insert', 'course_template_created'),
    captureTrigger(schema, 'course_templates', 'update', 'course_template_updated', changed, 'course_template_created'),
    captureTrigger(schema, 'course_templates', 'delete', 'course_template_deleted'),
    captureTrigger(schema, 'learning_paths', 'insert', 'learning_path_created'),
    captureTrigger(schema, 'learning_paths', 'update', 'learning_path_updated', changed, 'learning_path_created'),
    captureTrigger(schema, 'learning_paths', 'delete', 'learning_path_deleted'),
    captureTrigger(schema, 'documents', 'update', 'document_updated', changed),
    // A learner is a delegate with a contact: named at insert, or later (a place bought without a name, named).
    captureTrigger(schema, 'delegates', 'insert', 'learner_created', 'new.contact_id is not null'),
    captureTrigger(schema, 'delegates', 'update', 'learner_created', 'old.contact_id is null and new.contact_id is not null'),
    captureTrigger(schema, 'delegates', 'update', 'learner_cancelled', 'old.cancelled_date is null and new.cancelled_date is not null'),
    // Removed (its event deleted, or the row itself) while still registered: no longer attends.
    captureTrigger(schema, 'delegates', 'delete', 'learner_cancelled', 'old.contact_id is not null and old.cancelled_date is null'),
    captureTrigger(schema, 'opportunities', 'update', 'order_completed', `new.state = 'completed' and old.state <> 'completed'`),
    captureTrigger(schema, 'invoices', 'insert', 'invoice_created'),
  ];
}

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  await s().createTable('webhooks', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.text('type_key').notNullable();
    t.text('url').notNullable();
    t.text('query').notNullable();
    t.jsonb('config').notNullable().defaultTo('{}');
    t.specificType('notification_emails', 'text[]').notNullable().defaultTo('{}');
    t.text('lifecycle_state').notNullable().defaultTo('active');
    // Whose permissions the stored query runs with at delivery (who created it); null once that user is gone.
    t.integer('owner_user_id').references('id').inTable(`${schema}.users`).onDelete('SET NULL');
    t.text('signing_secret').notNullable();
    t.text('previous_signing_secret');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    // Since when every delivery has failed (null while the last one went through): the disable rule.
    t.timestamp('failing_since', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`lifecycle_state in ('active', 'disabled')`, [], 'webhooks_lifecycle_state');
    t.index(['type_key', 'lifecycle_state']);
  });
  await s().createTable('webhook_events', (t) => {
    t.bigIncrements('id');
    t.text('type_key').notNullable();
    t.integer('record_id').notNullable();
    t.bigInteger('txid').notNullable();
    // The record's last state, for a deletion (its webhooks' stored queries read it).
    t.jsonb('snapshot');
    t.text('context');
    t.integer('actor_user_id');
    t.timestamp('triggered_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.unique(['txid', 'type_key', 'record_id']);
  });
  await s().createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.integer('webhook_id').notNullable().references('id').inTable(`${schema}.webhooks`).onDelete('CASCADE');
    t.bigInteger('event_id').notNullable().references('id').inTable(`${schema}.webhook_events`).onDelete('CASCADE');
    t.text('state').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('status_code');
    t.integer('duration_ms');
    t.text('response_excerpt');
    t.text('error');
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('last_attempt_at', { useTz: true });
    t.timestamp('delivered_at', { useTz: true });
    // Resent by hand: each resend is a new job (the old one is kept as completed under its id).
    t.integer('resends').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.check(`state in ('pending', 'delivered', 'failed')`, [], 'webhook_deliveries_state');
    t.index(['webhook_id', 'id']);
    t.index(['event_id']);
    t.unique(['webhook_id', 'event_id']);
  });
  await knex.raw(`create index webhook_deliveries_pending_idx on ??.webhook_deliveries (created_at) where state = 'pending'`, [schema]);
  await knex.raw(`create index webhook_deliveries_delivered_idx on ??.webhook_deliveries (delivered_at) where state = 'delivered'`, [
    schema,
  ]);
  // Failure notices, also kept for the Control Panel (and the only place they go without SMTP_URL).
  await s().createTable('webhook_notices', (t) => {
    t.increments('id');
    t.integer('webhook_id').references('id').inTable(`${schema}.webhooks`).onDelete('CASCADE');
    t.text('subject').notNullable();
    t.text('body').notNullable();
    t.specificType('recipients', 'text[]').notNullable().defaultTo('{}');
    t.boolean('mailed').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['webhook_id', 'id']);
  });

  // Static statements, planned once per session (a dynamic EXECUTE cost ~180 µs a row, ten
  // times the write itself in a bulk insert); they name the tenant's tables unqualified, so the
  // trigger functions run them with the tenant's schema first in search_path, as every request
  // and job has it, and set it for the rest of the call when a caller has another (a migration).
  // A row's JSON is made only once somebody listens.
  await knex.raw(`create function "${schema}".record_webhook_event(p_key text, p_id integer, p_superseded_by text, p_snapshot jsonb)
    returns void language plpgsql as $$
    declare
      v_tenant integer;
      v_event bigint;
    begin
      if p_superseded_by is not null and exists (
        select 1 from webhook_events where txid = txid_current() and type_key = p_superseded_by and record_id = p_id) then
        return;
      end if;
      insert into webhook_events (type_key, record_id, txid, snapshot, context, actor_user_id)
        values (p_key, p_id, txid_current(), p_snapshot, nullif(current_setting('lectern.context', true), ''),
          nullif(current_setting('lectern.actor', true), '')::integer)
        on conflict (txid, type_key, record_id) do nothing returning id into v_event;
      if v_event is null then return; end if;
      select id into strict v_tenant from platform.tenants where schema_name = current_schema();
      with d as (
        insert into webhook_deliveries (webhook_id, event_id)
        -- KEY SHARE: a webhook being deleted by a transaction not yet committed is waited for and
        -- skipped once it is gone, instead of failing this (the user's) write on the foreign key.
        select id, v_event from webhooks where type_key = p_key and lifecycle_state = 'active' for key share
        returning id
      )
      insert into platform.outbox (tenant_id, queue, job_name, job_id, payload)
      select v_tenant, 'webhooks', 'deliver', 'webhooks-' || v_tenant || '-d' || d.id,
        jsonb_build_object('tenantId', v_tenant, 'deliveryId', d.id) from d;
      perform pg_notify('lectern_changes', 'outbox');
    end $$`);
  await knex.raw(`create function "${schema}".capture_webhook_event() returns trigger language plpgsql as $$
    declare
      v_key text := tg_argv[0];
      v_path text;
    begin
      if current_schema() is distinct from tg_table_schema then
        v_path := current_setting('search_path');
        perform set_config('search_path', quote_ident(tg_table_schema), true);
      end if;
      if exists (select 1 from webhooks where type_key = v_key and lifecycle_state = 'active') then
        perform record_webhook_event(v_key, case when tg_op = 'DELETE' then old.id else new.id end,
          case when tg_nargs > 1 then tg_argv[1] end, case when tg_op = 'DELETE' then to_jsonb(old) end);
      end if;
      if v_path is not null then perform set_config('search_path', v_path, true); end if;
      return null;
    end $$`);
  await knex.raw(`create function "${schema}".capture_webhook_parent_change() returns trigger language plpgsql as $$
    declare
      v_key text := tg_argv[0];
      v_path text;
      v_id integer;
      v_there boolean;
    begin
      if current_schema() is distinct from tg_table_schema then
        v_path := current_setting('search_path');
        perform set_config('search_path', quote_ident(tg_table_schema), true);
      end if;
      if exists (select 1 from webhooks where type_key = v_key and lifecycle_state = 'active') then
        v_id := ((case when tg_op = 'DELETE' then to_jsonb(old) else to_jsonb(new) end)->>tg_argv[3])::integer;
        if v_id is not null then
          execute format('select exists (select 1 from %I where id = $1)', tg_argv[2]) into v_there using v_id;
          if v_there then perform record_webhook_event(v_key, v_id, tg_argv[1], null); end if;
        end if;
      end if;
      if v_path is not null then perform set_config('search_path', v_path, true); end if;
      return null;
    end $$`);
  for (const statement of [...captureTriggers(schema), ...parentTriggers(schema)]) await knex.raw(statement);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.raw(`drop function if exists "${schema}".capture_webhook_event() cascade`);
  await knex.raw(`drop function if exists "${schema}".capture_webhook_parent_change() cascade`);
  await knex.raw(`drop function if exists "${schema}".record_webhook_event(text, integer, text, jsonb)`);
  for (const table of ['webhook_notices', 'webhook_deliveries', 'webhook_events', 'webhooks']) {
    await knex.schema.withSchema(schema).dropTableIfExists(table);
  }
}
