import { createServiceClient } from '../../src/modules/oauth/clients.service.js';
import { createRole } from '../../src/modules/users/roles.service.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { toGlobalId } from '../../src/kit/graphql/ids.js';
import { request, type HttpResult } from './harness.js';
import { oauthFixture, type OAuthFixture } from './oauth.js';
import type { AppOptions } from '../../src/app/web.js';

/**
 * GraphQL tests go through real HTTP with real bearer tokens: each user gets client
 * credentials (acting as that user) and a token from the real token endpoint.
 */
export interface GraphQLFixture extends OAuthFixture {
  /** A token acting as a new user of `tenant` with `role` (created with `permissions` when given). */
  tokenFor(tenant: Tenant, role: string, permissions?: string[]): Promise<string>;
  /** An admin's token on the fixture's tenant. */
  admin: string;
  gql(
    token: string,
    query: string,
    variables?: Record<string, unknown>,
    opts?: { host?: string; headers?: Record<string, string> },
  ): Promise<HttpResult>;
  /** `data` of a query that must succeed (fails the test with the errors otherwise). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- responses are asserted field by field in tests
  data<T = any>(token: string, query: string, variables?: Record<string, unknown>): Promise<T>;
  /** Enables a locale in a tenant and returns its global id. */
  locale(tenant: Tenant, code: string): Promise<string>;
}

let users = 0;

/** `env`: configuration of the test runtime; `app`: for tests that serve a schema with extra fields. */
/** `runtime`: the runtime's name (its connections' application_name is `lectern-<runtime>`). */
export async function graphqlFixture(
  label: string,
  options: { env?: Record<string, string | undefined>; app?: AppOptions; runtime?: string } = {},
): Promise<GraphQLFixture> {
  const f = await oauthFixture(label, options.env ?? {}, options.app ?? {}, options.runtime);
  const tokenFor = async (tenant: Tenant, role: string, permissions?: string[]) => {
    const email = `${role}-${++users}@${label}.test`;
    if (permissions) await withTenant(f.ctx.rt.knex, tenant, (db) => createRole(db, { name: `${role}-${users}`, permissions }));
    await f.addUser(tenant, email, permissions ? `${role}-${users}` : role);
    const creds = await createServiceClient(f.ctx.rt.knex, tenant, { name: `${role} token`, serviceUser: email });
    const res = await request(f.port, {
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: creds.clientId,
        client_secret: creds.clientSecret,
      }).toString(),
    });
    if (res.status !== 200) throw new Error(`token request failed: ${res.text}`);
    return res.json.access_token as string;
  };
  const gql: GraphQLFixture['gql'] = (token, query, variables, opts = {}) =>
    request(f.port, {
      method: 'POST',
      path: '/graphql',
      host: opts.host ?? `localhost:${f.port}`,
      headers: { authorization: `Bearer ${token}`, ...opts.headers },
      body: { query, ...(variables ? { variables } : {}) },
    });
  const admin = await tokenFor(f.tenant, 'admin');
  return {
    ...f,
    tokenFor,
    admin,
    gql,
    async data(token, query, variables) {
      const res = await gql(token, query, variables);
      if (res.status !== 200 || res.json?.errors) throw new Error(`GraphQL failed (${res.status}): ${res.text}`);
      return res.json.data;
    },
    async locale(tenant, code) {
      const row = await withTenant(f.ctx.rt.knex, tenant, async (db) => {
        await db('locales').where({ code }).update({ supported: true });
        return db('locales').where({ code }).first('id');
      });
      return toGlobalId('Locale', row.id);
    },
  };
}
