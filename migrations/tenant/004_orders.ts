import type { Knex } from 'knex';

/**
 * Orders: the tenant's order settings, payment types and stock items it sells, opportunities
 * (an order placed through REST is an opportunity in its own initial state) with their lines,
 * and what the workers make of them: one registration (whose delegates point at it), at most
 * one invoice with its lines, and the payment recorded against it. "One" and "at most one" are
 * unique constraints, so a job that runs twice cannot make a second of either.
 */
export const name = '004_orders';

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  const ref = (table: string) => `${schema}.${table}`;
  const utcNow = knex.raw(`(now() at time zone 'utc')`);

  await s().alterTable('settings', (t) => {
    t.text('order_workflow').notNullable().defaultTo('automatic');
    t.boolean('prevent_overbooking').notNullable().defaultTo(false);
    t.check(`order_workflow in ('automatic', 'manual')`, [], 'settings_order_workflow');
  });

  await s().createTable('payment_types', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });
  await knex.raw('create unique index payment_types_name_lower_idx on ??.payment_types (lower(name))', [schema]);

  await s().createTable('stock_items', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.decimal('price', 14, 2).notNullable().defaultTo(0);
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });

  await s().createTable('opportunities', (t) => {
    t.increments('id');
    // received (the initial state of REST orders) -> [awaiting_release -> released] -> registered -> completed; or failed.
    t.text('state').notNullable();
    t.text('source').notNullable().defaultTo('rest');
    t.integer('contact_id').notNullable().references('id').inTable(ref('contacts')).onDelete('RESTRICT');
    t.integer('company_id').references('id').inTable(ref('companies')).onDelete('SET NULL');
    t.text('external_id');
    t.text('region_id');
    t.text('currency_id');
    t.integer('source_type_id');
    // The payment as sent; payment_type_id only when the tenant has set the type up (contract rule 2).
    t.text('payment_type_name');
    t.integer('payment_type_id').references('id').inTable(ref('payment_types')).onDelete('RESTRICT');
    t.decimal('payment_amount', 14, 2);
    t.text('payment_currency');
    t.text('payment_transaction_code');
    // References the intake dropped because they name nothing (contract rule 1), for ops to see why.
    t.jsonb('discarded').notNullable().defaultTo('[]');
    t.integer('created_by_user_id').references('id').inTable(ref('users')).onDelete('SET NULL');
    t.text('idempotency_key');
    t.text('request_hash');
    t.text('failure_code');
    t.text('failure_reason');
    t.timestamp('failed_on', { useTz: false });
    t.integer('retries').notNullable().defaultTo(0);
    t.timestamp('released_on', { useTz: false });
    t.timestamp('completed_on', { useTz: false });
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.timestamp('updated_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.check(`state in ('received', 'awaiting_release', 'released', 'registered', 'completed', 'failed')`, [], 'opportunities_state');
    t.unique(['created_by_user_id', 'idempotency_key']);
    t.index(['state']);
    t.index(['external_id']);
    t.index(['contact_id']);
  });

  await s().createTable('opportunity_lines', (t) => {
    t.increments('id');
    t.integer('opportunity_id').notNullable().references('id').inTable(ref('opportunities')).onDelete('CASCADE');
    t.integer('position').notNullable();
    // An event line buys `quantity` places; a stock-item line is a child of an event line.
    t.text('kind').notNullable();
    t.integer('event_id').references('id').inTable(ref('events')).onDelete('RESTRICT');
    t.integer('stock_item_id').references('id').inTable(ref('stock_items')).onDelete('RESTRICT');
    t.integer('parent_line_id').references('id').inTable(ref('opportunity_lines')).onDelete('CASCADE');
    t.integer('contact_id').references('id').inTable(ref('contacts')).onDelete('RESTRICT');
    t.specificType('student_ids', 'integer[]').notNullable().defaultTo('{}');
    t.integer('quantity').notNullable();
    t.decimal('unit_price', 14, 2).notNullable();
    t.check(
      `(kind = 'event' and event_id is not null) or (kind = 'stock_item' and stock_item_id is not null and parent_line_id is not null)`,
      [],
      'opportunity_lines_kind',
    );
    t.check('quantity > 0', [], 'opportunity_lines_quantity');
    t.index(['opportunity_id']);
  });

  await s().createTable('registrations', (t) => {
    t.increments('id');
    t.integer('opportunity_id').notNullable().unique().references('id').inTable(ref('opportunities')).onDelete('RESTRICT');
    t.integer('contact_id').notNullable().references('id').inTable(ref('contacts')).onDelete('RESTRICT');
    t.integer('company_id').references('id').inTable(ref('companies')).onDelete('SET NULL');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
  });
  await s().alterTable('delegates', (t) => {
    t.foreign('registration_id').references('id').inTable(ref('registrations')).onDelete('SET NULL');
    t.index(['registration_id']);
  });

  await s().createTable('invoices', (t) => {
    t.increments('id');
    t.integer('opportunity_id').notNullable().unique().references('id').inTable(ref('opportunities')).onDelete('RESTRICT');
    t.integer('registration_id').references('id').inTable(ref('registrations')).onDelete('SET NULL');
    t.integer('contact_id').notNullable().references('id').inTable(ref('contacts')).onDelete('RESTRICT');
    t.integer('company_id').references('id').inTable(ref('companies')).onDelete('SET NULL');
    t.text('currency');
    t.decimal('total', 14, 2).notNullable();
    t.decimal('amount_paid', 14, 2).notNullable().defaultTo(0);
    t.text('status').notNullable();
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.check(`status in ('unpaid', 'part_paid', 'paid')`, [], 'invoices_status');
  });
  await s().createTable('invoice_lines', (t) => {
    t.increments('id');
    t.integer('invoice_id').notNullable().references('id').inTable(ref('invoices')).onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('description').notNullable();
    t.integer('event_id').references('id').inTable(ref('events')).onDelete('SET NULL');
    t.integer('stock_item_id').references('id').inTable(ref('stock_items')).onDelete('SET NULL');
    t.integer('quantity').notNullable();
    t.decimal('unit_price', 14, 2).notNullable();
    t.decimal('amount', 14, 2).notNullable();
    t.index(['invoice_id']);
  });
  await s().createTable('payments', (t) => {
    t.increments('id');
    t.integer('invoice_id').notNullable().references('id').inTable(ref('invoices')).onDelete('CASCADE');
    t.integer('payment_type_id').notNullable().references('id').inTable(ref('payment_types')).onDelete('RESTRICT');
    t.decimal('amount', 14, 2).notNullable();
    t.text('currency');
    t.text('transaction_code');
    t.timestamp('received_on', { useTz: false }).notNullable().defaultTo(utcNow);
    t.index(['invoice_id']);
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  for (const table of ['payments', 'invoice_lines', 'invoices']) await s().dropTableIfExists(table);
  await s().alterTable('delegates', (t) => t.dropForeign(['registration_id']));
  for (const table of ['registrations', 'opportunity_lines', 'opportunities', 'stock_items', 'payment_types'])
    await s().dropTableIfExists(table);
  await s().alterTable('settings', (t) => {
    t.dropChecks(['settings_order_workflow']);
    t.dropColumns('order_workflow', 'prevent_overbooking');
  });
}
