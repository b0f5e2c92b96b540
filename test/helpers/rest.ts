import { createUser } from '../../src/modules/users/users.service.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { request, setupTestRuntime, startTestApp, type HttpResult, type TestContext } from './harness.js';
import type { AppOptions } from '../../src/app/web.js';

export const PASSWORD = 'integration-secret-1';
export const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;

export interface RestFixture {
  ctx: TestContext;
  tenant: Tenant;
  port: number;
  email: string;
  /** A REST v2 call on the tenant's host with the tenant user's Basic credentials. */
  api(
    method: string,
    path: string,
    body?: unknown,
    opts?: { headers?: Record<string, string>; host?: string; rawBody?: string; from?: string },
  ): Promise<HttpResult>;
  close(): Promise<void>;
}

/** A fresh tenant with an API user, a running app, and a REST client for it. */
export async function restFixture(
  label: string,
  env: Record<string, string | undefined> = {},
  appOptions: AppOptions = {},
  runtimeName?: string,
): Promise<RestFixture> {
  const ctx = await setupTestRuntime(env, runtimeName);
  const tenant = await ctx.freshTenant(label);
  const email = `api@${label}.test`;
  await withTenant(ctx.rt.knex, tenant, (db) => createUser(db, { email, password: PASSWORD, role: 'admin' }));
  const app = await startTestApp(ctx.rt, appOptions);
  return {
    ctx,
    tenant,
    port: app.port,
    email,
    api: (method, path, body, opts = {}) =>
      request(app.port, {
        method,
        path: `/api/v2/${path}`,
        host: opts.host ?? `${tenant.slug}.localhost`,
        ...(opts.from ? { from: opts.from } : {}),
        headers: { authorization: basic(email, PASSWORD), accept: 'application/json', ...opts.headers },
        ...(body !== undefined ? { body } : {}),
        ...(opts.rawBody !== undefined
          ? {
              rawBody: opts.rawBody,
              headers: { authorization: basic(email, PASSWORD), 'content-type': 'application/json', ...opts.headers },
            }
          : {}),
      }),
    async close() {
      await app.close();
      await ctx.cleanup();
    },
  };
}
