import type { Knex } from 'knex';

/**
 * Portals: the published website addresses of an instance's WebLink catalogue (its
 * `<name>.administrateweblink.com` address or a vanity domain). An instance may have several; a
 * domain names at most one portal, so a portal token asked for by domain names one instance.
 * Domains are stored as the rules normalise them: a lower-case host name, no scheme, port or path.
 */
export const name = '007_portals';

export async function up(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).createTable('portals', (t) => {
    t.increments('id');
    t.integer('tenant_id').notNullable().references('id').inTable(`${schema}.tenants`).onDelete('CASCADE');
    t.text('domain').notNullable().unique();
    t.text('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // The rules normalise; the table refuses what slipped past them (a mixed-case or overlong name).
    t.check('domain = lower(domain) and char_length(domain) between 1 and 253', [], 'portals_domain_normalised');
    t.index(['tenant_id']);
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).dropTableIfExists('portals');
}
