import { createIntegrationClient, createServiceClient, listClients, revokeClient } from '../modules/oauth/clients.service.js';
import { issueUserToken } from '../modules/oauth/user-tokens.service.js';
import { platformBaseUrl } from '../platform/config.js';
import { UsageError, str, tenantBySlug } from './command.js';
import type { Runners } from './manifest.js';

/** OAuth clients (integrations and a tenant's client credentials) and access tokens. */
export const runners: Runners<'clients'> = {
  async 'clients:create'(rt, flags) {
    const grant = typeof flags.grant === 'string' ? flags.grant : 'authorization_code';
    const endpoints = {
      authorizationEndpoint: `${platformBaseUrl(rt.config)}/oauth/authorize`,
      tokenEndpoint: `${platformBaseUrl(rt.config)}/oauth/token`,
    };
    if (grant === 'client_credentials') {
      if (flags['redirect-uri'] !== undefined)
        throw new UsageError('--redirect-uri is for integrations (authorization_code), not client credentials');
      const tenant = await tenantBySlug(rt, str(flags, 'tenant'));
      const serviceUser = str(flags, 'service-user');
      const name = typeof flags.name === 'string' ? flags.name : `Service access as ${serviceUser}`;
      const c = await createServiceClient(rt.knex, tenant, { name, serviceUser, createdBy: 'ops CLI' });
      return {
        output: {
          clientId: c.clientId,
          clientSecret: c.clientSecret,
          name: c.name,
          grants: c.grants,
          tenant: tenant.slug,
          serviceUser: c.serviceUserEmail,
          tokenEndpoint: endpoints.tokenEndpoint,
        },
      };
    }
    if (grant !== 'authorization_code') throw new UsageError('--grant must be authorization_code or client_credentials');
    if (flags.tenant !== undefined || flags['service-user'] !== undefined)
      throw new UsageError('--tenant and --service-user are for client credentials (--grant client_credentials)');
    const c = await createIntegrationClient(rt.knex, {
      name: str(flags, 'name'),
      redirectUris: [str(flags, 'redirect-uri')],
      createdBy: 'ops CLI',
    });
    // Where a user starts authorizing it (an application adds its own state and PKCE challenge).
    const authorizeUrl = `${endpoints.authorizationEndpoint}?${new URLSearchParams({
      response_type: 'code',
      client_id: c.clientId,
      redirect_uri: c.redirectUris[0]!,
    })}`;
    return {
      output: {
        clientId: c.clientId,
        clientSecret: c.clientSecret,
        name: c.name,
        grants: c.grants,
        redirectUris: c.redirectUris,
        ...endpoints,
        authorizeUrl,
      },
    };
  },
  async 'clients:list'(rt, flags) {
    const tenant = typeof flags.tenant === 'string' ? await tenantBySlug(rt, flags.tenant) : undefined;
    const clients = await listClients(rt.knex, tenant ? { tenantId: tenant.id } : {});
    const slugs = new Map((await rt.registry.list()).map((t) => [t.id, t.slug]));
    return { output: clients.map(({ tenantId, ...c }) => ({ ...c, tenant: tenantId ? (slugs.get(tenantId) ?? null) : null })) };
  },
  async 'tokens:create'(rt, flags) {
    const tenant = await tenantBySlug(rt, str(flags, 'tenant'));
    const issued = await issueUserToken(rt, tenant, typeof flags.user === 'string' ? { email: flags.user } : {});
    return {
      output: {
        accessToken: issued.accessToken,
        tokenType: 'Bearer',
        expiresIn: issued.expiresIn,
        expiresAt: issued.expiresAt.toISOString(),
        tenant: tenant.slug,
        user: issued.user.email,
        clientId: issued.clientId,
        graphqlEndpoint: `${platformBaseUrl(rt.config)}/graphql`,
      },
    };
  },
  'clients:revoke': async (rt, flags) => ({ output: await revokeClient(rt.knex, str(flags, 'client-id')) }),
};
