import type { Knex } from 'knex';

/**
 * Lectern's OAuth 2.0 authorization server: clients (integrations, not bound to a tenant, and a
 * tenant's client credentials acting as one of its service users), authorization codes and
 * tokens, and the browser sessions and sign-in throttling of its pages. Secrets, codes and
 * tokens are stored only as SHA-256 hashes (they are 256-bit random values, so a plain hash
 * cannot be reversed); users live in tenant schemas, so `user_id` is a plain integer.
 */
export const name = '004_oauth';

export async function up(knex: Knex, schema: string): Promise<void> {
  const s = () => knex.schema.withSchema(schema);
  const tenants = `${schema}.tenants`;

  await s().createTable('oauth_clients', (t) => {
    t.increments('id');
    t.text('client_id').notNullable().unique();
    t.text('secret_hash').notNullable();
    t.text('name').notNullable();
    t.specificType('redirect_uris', 'text[]').notNullable().defaultTo('{}');
    t.specificType('grants', 'text[]').notNullable();
    // Client credentials belong to one tenant and act as one of its users; integrations do not.
    t.integer('tenant_id').references('id').inTable(tenants).onDelete('CASCADE');
    t.integer('service_user_id');
    t.text('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.check(
      `(grants = '{client_credentials}' and tenant_id is not null and service_user_id is not null)
       or (grants = '{authorization_code,refresh_token}' and tenant_id is null and cardinality(redirect_uris) > 0)`,
      [],
      'oauth_clients_kind',
    );
    t.index(['tenant_id']);
  });

  await s().createTable('oauth_codes', (t) => {
    t.text('code_hash').primary();
    t.integer('client_id').notNullable().references('id').inTable(`${schema}.oauth_clients`).onDelete('CASCADE');
    t.integer('tenant_id').notNullable().references('id').inTable(tenants).onDelete('CASCADE');
    t.integer('user_id').notNullable();
    t.text('redirect_uri').notNullable();
    t.text('scope');
    t.text('code_challenge');
    t.text('code_challenge_method');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    // Set when the code is presented again after use: tokens issued from it are revoked.
    t.timestamp('replayed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await s().createTable('oauth_tokens', (t) => {
    t.bigIncrements('id');
    t.text('access_token_hash').notNullable().unique();
    t.timestamp('access_expires_at', { useTz: true }).notNullable();
    t.text('refresh_token_hash').unique();
    t.timestamp('refresh_expires_at', { useTz: true });
    // Rotation: a refresh token is used once; presented again, its whole family is revoked.
    t.timestamp('refresh_used_at', { useTz: true });
    t.integer('client_id').notNullable().references('id').inTable(`${schema}.oauth_clients`).onDelete('CASCADE');
    t.integer('tenant_id').notNullable().references('id').inTable(tenants).onDelete('CASCADE');
    t.integer('user_id').notNullable();
    t.text('scope');
    // Every token descended from one grant (an authorization code, or one client-credentials request).
    t.uuid('family_id').notNullable();
    t.text('code_hash');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.index(['family_id']);
    t.index(['code_hash']);
    t.index(['tenant_id', 'user_id', 'client_id']);
    t.index(['client_id']);
  });

  await s().createTable('web_sessions', (t) => {
    t.text('id_hash').primary();
    t.jsonb('data').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['expires_at']);
  });

  // The shape rate-limiter-flexible's PostgreSQL store uses (it is told the table exists).
  await s().createTable('login_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
  });
}

export async function down(knex: Knex, schema: string): Promise<void> {
  for (const table of ['login_limits', 'web_sessions', 'oauth_tokens', 'oauth_codes', 'oauth_clients']) {
    await knex.schema.withSchema(schema).dropTableIfExists(table);
  }
}
