import * as client from 'openid-client';
import { createIntegrationClient, type CreatedClient } from '../../src/modules/oauth/clients.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { Browser } from './browser.js';
import { request, type HttpResult } from './harness.js';
import { PASSWORD, restFixture, type RestFixture } from './rest.js';
import type { AppOptions } from '../../src/app/web.js';

/**
 * OAuth test setup: a tenant with a user, a running app, an integration registered as ops would
 * (Client Key and Secret with a callback URI), and `openid-client` configured against the
 * server's own metadata, as an integrator's code would be.
 */
export const CALLBACK = 'http://localhost:9999/callback';

export interface OAuthFixture extends RestFixture {
  issuer: string;
  integration: CreatedClient;
  config: client.Configuration;
  /** An openid-client configuration for another client (secret, auth method). */
  configure(clientId: string, secret: string, auth?: 'post' | 'basic'): Promise<client.Configuration>;
  /** The tenant's full address, as the `instance` hint takes it. */
  instanceOf(tenant: Tenant): string;
  /** Runs the browser part of the code flow (sign-in, consent) and returns where the browser was sent. */
  authorize(opts?: {
    browser?: Browser;
    tenant?: Tenant;
    email?: string;
    password?: string;
    decision?: 'allow' | 'deny';
    params?: Record<string, string>;
  }): Promise<AuthorizeOutcome>;
  /** `POST /graphql { hello }` with a bearer token, on the platform host or a tenant's. */
  hello(accessToken: string | undefined, host?: string): Promise<HttpResult>;
  addUser(tenant: Tenant, email: string, role?: string): Promise<number>;
}

export interface AuthorizeOutcome {
  callback: URL;
  verifier: string;
  state: string;
  browser: Browser;
}

export async function oauthFixture(
  label: string,
  env: Record<string, string | undefined> = {},
  appOptions: AppOptions = {},
  runtimeName?: string,
): Promise<OAuthFixture> {
  const f = await restFixture(label, env, appOptions, runtimeName);
  const issuer = `http://localhost:${f.port}`;
  const integration = await createIntegrationClient(f.ctx.rt.knex, { name: `${label} integration`, redirectUris: [CALLBACK] });
  const configure = (clientId: string, secret: string, auth: 'post' | 'basic' = 'post') =>
    client.discovery(
      new URL(issuer),
      clientId,
      secret,
      auth === 'basic' ? client.ClientSecretBasic(secret) : client.ClientSecretPost(secret),
      {
        algorithm: 'oauth2',
        execute: [client.allowInsecureRequests],
      },
    );
  const config = await configure(integration.clientId, integration.clientSecret);
  const instanceOf = (tenant: Tenant) => `http://${tenant.slug}.localhost:${f.port}`;
  return {
    ...f,
    issuer,
    integration,
    config,
    configure,
    instanceOf,
    async authorize(opts = {}) {
      const browser = opts.browser ?? new Browser(f.port);
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: CALLBACK,
        scope: 'instance',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        instance: instanceOf(opts.tenant ?? f.tenant),
        ...opts.params,
      });
      const signIn = await browser.follow(url.toString(), CALLBACK);
      let at: string;
      if ('page' in signIn) {
        if (!signIn.url.endsWith('/oauth/login'))
          throw new Error(`expected the sign-in page, got ${signIn.url}: ${signIn.page.text.slice(0, 500)}`);
        const login = await browser.submit(signIn.url, { email: opts.email ?? f.email, password: opts.password ?? PASSWORD });
        if (!login.location) throw new Error(`sign-in refused (${login.status}): ${login.text.slice(0, 500)}`);
        at = login.location;
      } else {
        at = signIn.redirect;
      }
      const consent = await browser.follow(at, CALLBACK);
      if (!('page' in consent)) return { callback: new URL(consent.redirect), verifier, state, browser };
      const decided = await browser.submit(consent.url, {}, { where: { decision: opts.decision ?? 'allow' } });
      if (!decided.location?.startsWith(CALLBACK))
        throw new Error(`consent did not return to the client (${decided.status}): ${decided.text.slice(0, 500)}`);
      return { callback: new URL(decided.location), verifier, state, browser };
    },
    hello: (accessToken, host) =>
      request(f.port, {
        method: 'POST',
        path: '/graphql',
        host: host ?? `localhost:${f.port}`,
        headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
        body: { query: '{ hello }' },
      }),
    async addUser(tenant, email, role = 'admin') {
      return withTenant(f.ctx.rt.knex, tenant, async (db) => (await createUser(db, { email, password: PASSWORD, role })).id);
    },
  };
}
