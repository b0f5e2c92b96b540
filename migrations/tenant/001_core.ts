import type { Knex } from 'knex';

/**
 * A tenant's core: its settings, roles and users, companies and contacts. Column names follow
 * the legacy REST records (snake_case) so both APIs read the same rows.
 */
export const name = '001_core';

export async function up(knex: Knex, schema: string): Promise<void> {
  // A fresh builder per statement: a reused SchemaBuilder replays its earlier statements.
  const s = () => knex.schema.withSchema(schema);
  await s().createTable('settings', (t) => {
    t.integer('id').primary().defaultTo(1);
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check('id = 1', [], 'settings_single_row');
  });
  await s().createTable('roles', (t) => {
    t.increments('id');
    t.text('name').notNullable().unique();
    t.specificType('permissions', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await s().createTable('companies', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.text('code');
    t.text('email');
    t.text('tel');
    t.text('website');
    t.text('address_street');
    t.text('address_town');
    t.text('address_postcode');
    t.text('address_country_id');
    t.text('external_id');
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(knex.raw(`(now() at time zone 'utc')`));
  });
  await s().createTable('contacts', (t) => {
    t.increments('id');
    for (const c of ['first_name', 'middle_name', 'last_name', 'salutation', 'job_title', 'department', 'organisation']) t.text(c);
    t.integer('company_id').references('id').inTable(`${schema}.companies`).onDelete('SET NULL');
    t.integer('account_id');
    for (const c of ['email', 'tel', 'mobile', 'fax']) t.text(c);
    for (const c of [
      'address_unit',
      'address_street',
      'address_locality',
      'address_town',
      'address_region',
      'address_postcode',
      'address_country_id',
    ])
      t.text(c);
    for (const c of ['membership_number', 'contract_notes']) t.text(c);
    t.timestamp('created_on', { useTz: false }).notNullable().defaultTo(knex.raw(`(now() at time zone 'utc')`));
    t.integer('created_by_id');
    for (const c of ['import_ref', 'external_id']) t.text(c);
    t.integer('marketing_activity_id');
    for (const c of ['source1', 'source2', 'lms_bio', 'tutor_bio', 'notes']) t.text(c);
    t.boolean('inactive').notNullable().defaultTo(false);
    t.boolean('dormant');
    t.boolean('dont_mail').notNullable().defaultTo(false);
    t.boolean('no_third_party');
    t.integer('is_admin').notNullable().defaultTo(0);
    t.boolean('is_tutor').notNullable().defaultTo(false);
    t.boolean('is_staff').notNullable().defaultTo(false);
    t.boolean('is_deleted').notNullable().defaultTo(false);
    t.index(['company_id']);
    t.index(['email']);
  });
  await s().createTable('users', (t) => {
    t.increments('id');
    t.text('email').notNullable();
    t.text('password_hash');
    t.integer('role_id').notNullable().references('id').inTable(`${schema}.roles`);
    t.integer('contact_id').references('id').inTable(`${schema}.contacts`).onDelete('SET NULL');
    t.integer('company_id').references('id').inTable(`${schema}.companies`).onDelete('SET NULL');
    t.boolean('is_active').notNullable().defaultTo(true);
    t.timestamp('password_changed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create unique index users_email_lower_idx on ??.users (lower(email))', [schema]);
  // Every tenant starts with the two roles the permission model defines (see src/modules/users/permissions.ts).
  await knex(`${schema}.roles`).insert([
    { name: 'admin', permissions: ['*'] },
    { name: 'viewer', permissions: ['*_VIEW'] },
  ]);
}

export async function down(knex: Knex, schema: string): Promise<void> {
  for (const table of ['users', 'contacts', 'companies', 'roles', 'settings']) {
    await knex.schema.withSchema(schema).dropTableIfExists(table);
  }
}
