import { parseArgs } from 'node:util';
import { DEMO, seedDemo } from '../../seeds/demo.js';
import { loadConfig, platformBaseUrl, tenantBaseUrl, type Config } from '../platform/config.js';
import { AppError } from '../platform/errors.js';
import { createLogger } from '../platform/logger.js';
import { requestTenantStats } from '../modules/tenant-stats/tenant-stats.service.js';
import { createUser } from '../modules/users/users.service.js';
import { createRole, listRoles } from '../modules/users/roles.service.js';
import { disableLocale, enableLocale, listSupportedLocales, setDefaultLocale, type LocaleRow } from '../modules/locales/locales.service.js';
import { toGlobalId } from '../kit/graphql/ids.js';
import { createPlatformAdmin } from '../modules/admins/admins.service.js';
import { configureOrders, createPaymentType, createStockItem, listPaymentTypes, listStockItems } from '../modules/orders/order-settings.service.js';
import { listOrders, showOrder } from '../modules/orders/order-view.service.js';
import { releaseOrder, retryOrder } from '../modules/orders/orders.service.js';
import type { Knex } from '../platform/db/knex.js';
import { createIntegrationClient, createServiceClient, listClients, revokeClient } from '../modules/oauth/clients.service.js';
import { createRuntime, type Runtime } from '../app/runtime.js';
import { migrateAll, migratePlatform } from '../platform/tenancy/migrate.js';
import { createTenant } from '../platform/tenancy/provision.js';
import { PLATFORM_SCHEMA } from '../platform/tenancy/tenant.js';
import { withTenant } from '../platform/tenancy/with-tenant.js';

/**
 * Ops CLI: `npm run cli -- <command> [--flags]`. JSON on stdout, errors on stderr, non-zero exit
 * on failure. Works against DATABASE_URL, or the embedded database (a running one, found through
 * its state file, or one it starts for the duration of the command).
 */

class UsageError extends Error {}

type Flags = Record<string, string | boolean | undefined>;

interface Command {
  summary: string;
  flags: Record<string, { required?: boolean; description: string }>;
  run(rt: Runtime, flags: Flags): Promise<{ output: unknown; exitCode?: number }>;
}

function str(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function tenantBySlug(rt: Runtime, slug: string) {
  const tenant = await rt.registry.bySlug(slug);
  if (!tenant) throw new AppError(404, 'tenant_not_found', `No tenant '${slug}'`);
  return tenant;
}

const restBaseUrl = (config: Config, slug: string) => `${tenantBaseUrl(config, slug)}/api/v2`;

const localeOutput = (l: LocaleRow) => ({ id: toGlobalId('Locale', l.id), legacyId: l.id, code: l.code, name: l.name, fullName: l.full_name, supported: l.supported, default: l.is_default });

function intFlag(flags: Flags, name: string): number {
  const v = str(flags, name);
  if (!/^\d{1,10}$/.test(v) || Number(v) < 1 || Number(v) > 2147483647) throw new UsageError(`--${name} must be a whole number (got ${v})`);
  return Number(v);
}

function boolFlag(flags: Flags, name: string): boolean | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new UsageError(`--${name} must be true or false (got ${String(v)})`);
}

/** Runs `fn` in the tenant's transaction; jobs it queues go out after commit. */
async function inTenant<T>(rt: Runtime, flags: Flags, fn: (db: Knex, tenantId: number) => Promise<T>): Promise<T> {
  const tenant = await tenantBySlug(rt, str(flags, 'tenant'));
  const result = await withTenant(rt.knex, tenant, (db) => fn(db, tenant.id), { dispatcher: rt.dispatcher });
  await rt.dispatcher.drain();
  return result;
}

const tenantFlag = { tenant: { required: true, description: 'tenant slug' } };
const orderFlags = { ...tenantFlag, id: { required: true, description: 'order id (order_id of POST /api/v2/orders)' } };

const COMMANDS: Record<string, Command> = {
  'tenants:create': {
    summary: 'Create a tenant with its own schema at the latest migration',
    flags: { slug: { required: true, description: 'host label, e.g. acme' }, name: { required: true, description: 'display name' } },
    async run(rt, flags) {
      const t = await createTenant(rt.knex, { slug: str(flags, 'slug'), name: str(flags, 'name') });
      return { output: { id: t.id, slug: t.slug, schema: t.schema, restBaseUrl: restBaseUrl(rt.config, t.slug) } };
    },
  },
  'tenants:list': {
    summary: 'List tenants with their schema, REST address and counters',
    flags: {},
    async run(rt) {
      const rows = await rt.knex(`${PLATFORM_SCHEMA}.tenants`).orderBy('id');
      return {
        output: rows.map((r: { id: number; slug: string; name: string; schema_name: string; status: string; stats: unknown; created_at: Date }) => ({
          id: r.id,
          slug: r.slug,
          name: r.name,
          schema: r.schema_name,
          status: r.status,
          restBaseUrl: restBaseUrl(rt.config, r.slug),
          stats: r.stats,
          createdAt: r.created_at,
        })),
      };
    },
  },
  'users:create': {
    summary: "Create a tenant user with a role ('admin' has every permission)",
    flags: {
      tenant: { required: true, description: 'tenant slug' },
      email: { required: true, description: 'login email' },
      password: { required: true, description: 'at least 10 characters' },
      role: { description: 'role name (default admin)' },
    },
    async run(rt, flags) {
      const tenant = await tenantBySlug(rt, str(flags, 'tenant'));
      const role = typeof flags.role === 'string' ? flags.role : 'admin';
      const user = await withTenant(
        rt.knex,
        tenant,
        async (db) => {
          const u = await createUser(db, { email: str(flags, 'email'), password: str(flags, 'password'), role });
          await requestTenantStats(db, tenant.id);
          return u;
        },
        { dispatcher: rt.dispatcher },
      );
      return { output: { id: user.id, email: user.email, tenant: tenant.slug, role: user.role } };
    },
  },
  'admins:create': {
    summary: 'Create a platform administrator (signs in to the queue dashboard at /admin/queues)',
    flags: { email: { required: true, description: 'login email' }, password: { required: true, description: 'at least 10 characters' } },
    run: async (rt, flags) => ({ output: await createPlatformAdmin(rt.knex, { email: str(flags, 'email'), password: str(flags, 'password') }) }),
  },
  'legacy-usage': {
    summary: 'Who still calls the retired REST API: calls per day, endpoint and user',
    flags: { tenant: { required: true, description: 'tenant slug' }, days: { description: 'how many days back (default 30)' } },
    async run(rt, flags) {
      const tenant = await tenantBySlug(rt, str(flags, 'tenant'));
      const days = typeof flags.days === 'string' ? Number(flags.days) : 30;
      if (!Number.isInteger(days) || days < 1 || days > 3660) throw new UsageError('--days must be a whole number from 1 to 3660');
      const rows = await rt.knex(`${PLATFORM_SCHEMA}.legacy_usage`)
        .where({ tenant_id: tenant.id })
        .where('day', '>=', rt.knex.raw(`current_date - ?::int`, [days]))
        .orderBy([{ column: 'day', order: 'desc' }, { column: 'calls', order: 'desc' }]);
      const emails = await withTenant(rt.knex, tenant, (db) => db('users').whereIn('id', rows.map((r: { user_id: number }) => r.user_id)).select('id', 'email'));
      const emailOf = new Map(emails.map((u: { id: number; email: string }) => [u.id, u.email]));
      return {
        output: rows.map((r: { day: string; endpoint: string; user_id: number; calls: number; last_called_at: Date }) => ({
          day: r.day,
          endpoint: r.endpoint,
          userId: r.user_id || null,
          email: emailOf.get(r.user_id) ?? null,
          calls: r.calls,
          lastCalledAt: r.last_called_at,
        })),
      };
    },
  },
  'tenants:configure': {
    summary: 'Set how REST orders are processed: the workflow from their initial state, and the opt-in capacity check',
    flags: { ...tenantFlag, 'order-workflow': { description: 'automatic or manual' }, 'prevent-overbooking': { description: 'true or false' } },
    async run(rt, flags) {
      const workflow = flags['order-workflow'];
      if (workflow !== undefined && workflow !== 'automatic' && workflow !== 'manual') throw new UsageError('--order-workflow must be automatic or manual');
      const preventOverbooking = boolFlag(flags, 'prevent-overbooking');
      const settings = await inTenant(rt, flags, (db) => configureOrders(db, { ...(workflow ? { orderWorkflow: workflow } : {}), ...(preventOverbooking !== undefined ? { preventOverbooking } : {}) }));
      return { output: { tenant: flags.tenant, ...settings } };
    },
  },
  'payment-types:create': {
    summary: 'Add a payment type: orders whose payment.type matches it get a payment method and an invoice',
    flags: { ...tenantFlag, name: { required: true, description: 'e.g. card' } },
    run: async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => createPaymentType(db, str(flags, 'name'))) }),
  },
  'payment-types:list': {
    summary: "List a tenant's payment types",
    flags: tenantFlag,
    run: async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => listPaymentTypes(db)) }),
  },
  'stock-items:create': {
    summary: "Add a stock item that order items can carry as children (a course book, a lunch)",
    flags: { ...tenantFlag, name: { required: true, description: 'e.g. "Course book"' }, price: { required: true, description: 'unit price, e.g. 25' } },
    async run(rt, flags) {
      const price = Number(str(flags, 'price'));
      if (!/^\d+(\.\d{1,2})?$/.test(str(flags, 'price'))) throw new UsageError('--price must be an amount such as 25 or 12.50');
      return { output: await inTenant(rt, flags, (db) => createStockItem(db, { name: str(flags, 'name'), price })) };
    },
  },
  'stock-items:list': {
    summary: "List a tenant's stock items",
    flags: tenantFlag,
    run: async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => listStockItems(db)) }),
  },
  'orders:show': {
    summary: 'An order: state, lines, registration with delegates, invoice with lines and payments, failure reason',
    flags: orderFlags,
    run: async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => showOrder(db, intFlag(flags, 'id'))) }),
  },
  'orders:list': {
    summary: "A tenant's orders, newest first",
    flags: { ...tenantFlag, 'external-id': { description: 'only orders with this external_id' }, state: { description: 'only orders in this state (e.g. failed)' } },
    async run(rt, flags) {
      const filter = {
        ...(typeof flags['external-id'] === 'string' ? { externalId: flags['external-id'] } : {}),
        ...(typeof flags.state === 'string' ? { state: flags.state } : {}),
      };
      return { output: await inTenant(rt, flags, (db) => listOrders(db, filter)) };
    },
  },
  'orders:release': {
    summary: 'Release an order held by the manual workflow; the worker then registers it',
    flags: orderFlags,
    async run(rt, flags) {
      const id = intFlag(flags, 'id');
      await inTenant(rt, flags, (db, tenantId) => releaseOrder(db, tenantId, id));
      return { output: { id, state: 'released' } };
    },
  },
  'orders:retry': {
    summary: 'Run a failed order again from the step that failed',
    flags: orderFlags,
    async run(rt, flags) {
      const id = intFlag(flags, 'id');
      const { step } = await inTenant(rt, flags, (db, tenantId) => retryOrder(db, tenantId, id));
      return { output: { id, retried: step } };
    },
  },
  'roles:create': {
    summary: "Create a role: a named set of permissions (<ENTITY>_VIEW / <ENTITY>_EDIT, '*', '*_VIEW'); give it to users with users:create --role",
    flags: { ...tenantFlag, name: { required: true, description: 'e.g. editor' }, permissions: { required: true, description: 'comma-separated, e.g. COURSE_TEMPLATE_VIEW,COURSE_TEMPLATE_EDIT' } },
    async run(rt, flags) {
      const permissions = str(flags, 'permissions').split(',').map((p) => p.trim()).filter(Boolean);
      return { output: await inTenant(rt, flags, (db) => createRole(db, { name: str(flags, 'name'), permissions })) };
    },
  },
  'roles:list': {
    summary: "A tenant's roles and their permissions",
    flags: tenantFlag,
    run: async (rt, flags) => ({ output: await inTenant(rt, flags, (db) => listRoles(db)) }),
  },
  'locales:enable': {
    summary: 'Let a tenant use a locale for content (primary, delivery, translations)',
    flags: { ...tenantFlag, code: { required: true, description: 'e.g. fr, pt-BR' } },
    async run(rt, flags) {
      const l = await inTenant(rt, flags, (db) => enableLocale(db, str(flags, 'code')));
      return { output: localeOutput(l) };
    },
  },
  'locales:disable': {
    summary: 'Stop offering a locale for new content (content in it keeps it; not the default)',
    flags: { ...tenantFlag, code: { required: true, description: 'e.g. fr' } },
    run: async (rt, flags) => ({ output: localeOutput(await inTenant(rt, flags, (db) => disableLocale(db, str(flags, 'code')))) }),
  },
  'locales:default': {
    summary: "Make a supported locale the tenant's default",
    flags: { ...tenantFlag, code: { required: true, description: 'e.g. fr' } },
    run: async (rt, flags) => ({ output: localeOutput(await inTenant(rt, flags, (db) => setDefaultLocale(db, str(flags, 'code')))) }),
  },
  'locales:list': {
    summary: "A tenant's supported locales",
    flags: tenantFlag,
    run: async (rt, flags) => ({ output: (await inTenant(rt, flags, (db) => listSupportedLocales(db))).map(localeOutput) }),
  },
  'clients:create': {
    summary: "Register an OAuth client: an integration (authorization code flow, any tenant's users authorize it) or, with --grant client_credentials, a tenant's client credentials acting as a service user",
    flags: {
      name: { description: 'what the application is called (shown on the consent page); required for an integration' },
      'redirect-uri': { description: 'its OAuth callback URI, matched exactly (https://, or http:// on localhost)' },
      grant: { description: 'authorization_code (default) or client_credentials' },
      tenant: { description: 'tenant slug (client_credentials only)' },
      'service-user': { description: 'email of the tenant user it acts as (client_credentials only)' },
    },
    async run(rt, flags) {
      const grant = typeof flags.grant === 'string' ? flags.grant : 'authorization_code';
      const endpoints = { authorizationEndpoint: `${platformBaseUrl(rt.config)}/oauth/authorize`, tokenEndpoint: `${platformBaseUrl(rt.config)}/oauth/token` };
      if (grant === 'client_credentials') {
        if (flags['redirect-uri'] !== undefined) throw new UsageError('--redirect-uri is for integrations (authorization_code), not client credentials');
        const tenant = await tenantBySlug(rt, str(flags, 'tenant'));
        const serviceUser = str(flags, 'service-user');
        const name = typeof flags.name === 'string' ? flags.name : `Service access as ${serviceUser}`;
        const c = await createServiceClient(rt.knex, tenant, { name, serviceUser, createdBy: 'ops CLI' });
        return { output: { clientId: c.clientId, clientSecret: c.clientSecret, name: c.name, grants: c.grants, tenant: tenant.slug, serviceUser: c.serviceUserEmail, tokenEndpoint: endpoints.tokenEndpoint } };
      }
      if (grant !== 'authorization_code') throw new UsageError('--grant must be authorization_code or client_credentials');
      if (flags.tenant !== undefined || flags['service-user'] !== undefined) throw new UsageError('--tenant and --service-user are for client credentials (--grant client_credentials)');
      const c = await createIntegrationClient(rt.knex, { name: str(flags, 'name'), redirectUris: [str(flags, 'redirect-uri')], createdBy: 'ops CLI' });
      return { output: { clientId: c.clientId, clientSecret: c.clientSecret, name: c.name, grants: c.grants, redirectUris: c.redirectUris, ...endpoints } };
    },
  },
  'clients:list': {
    summary: 'List OAuth clients (never their secrets), newest first',
    flags: { tenant: { description: "only this tenant's client credentials" } },
    async run(rt, flags) {
      const tenant = typeof flags.tenant === 'string' ? await tenantBySlug(rt, flags.tenant) : undefined;
      const clients = await listClients(rt.knex, tenant ? { tenantId: tenant.id } : {});
      const slugs = new Map((await rt.registry.list()).map((t) => [t.id, t.slug]));
      return { output: clients.map(({ tenantId, ...c }) => ({ ...c, tenant: tenantId ? (slugs.get(tenantId) ?? null) : null })) };
    },
  },
  'clients:revoke': {
    summary: 'Revoke an OAuth client: no more tokens for its id and secret, and the tokens it has stop working',
    flags: { 'client-id': { required: true, description: 'the client id (Client Key)' } },
    run: async (rt, flags) => ({ output: await revokeClient(rt.knex, str(flags, 'client-id')) }),
  },
  migrate: {
    summary: 'Migrate the platform schema, then every tenant schema (bounded parallelism)',
    flags: {},
    async run(rt) {
      const result = await migrateAll(rt.knex, {
        concurrency: rt.config.migrateConcurrency,
        onResult: (r) => process.stderr.write(`${r.ok ? 'ok  ' : 'FAIL'} ${r.slug} (${r.schema}) ${r.applied.length} applied in ${r.ms} ms${r.error ? `: ${r.error}` : ''}\n`),
      });
      if (result.failed.length) process.stderr.write(`error: migrations failed for tenant(s): ${result.failed.join(', ')}\n`);
      return { output: result, exitCode: result.failed.length ? 1 : 0 };
    },
  },
  'seed:demo': {
    summary: `Create the '${DEMO.slug}' tenant with an admin user and sample data (no-op when it exists)`,
    flags: {},
    async run(rt) {
      const tenant = await seedDemo(rt.knex);
      return {
        output: {
          created: Boolean(tenant),
          slug: DEMO.slug,
          restBaseUrl: restBaseUrl(rt.config, DEMO.slug),
          ...(tenant ? { email: DEMO.email, password: DEMO.password } : {}),
        },
      };
    },
  },
};

function usage(): string {
  const lines = ['Usage: npm run cli -- <command> [--flags]', '', 'Commands:'];
  for (const [name, cmd] of Object.entries(COMMANDS)) {
    const flags = Object.entries(cmd.flags).map(([f, d]) => (d.required ? `--${f} <${d.description}>` : `[--${f} <${d.description}>]`));
    lines.push(`  ${name.padEnd(21)} ${cmd.summary}`, ...(flags.length ? [`  ${' '.repeat(21)} ${flags.join(' ')}`] : []));
  }
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    process.stderr.write(`error: unknown command '${name}'\n\n${usage()}\n`);
    return 2;
  }
  let flags: Flags;
  try {
    flags = parseArgs({
      args: rest,
      options: Object.fromEntries(Object.keys(cmd.flags).map((f) => [f, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }).values;
    for (const [f, d] of Object.entries(cmd.flags)) if (d.required) str(flags, f);
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n\n${usage()}\n`);
    return 2;
  }

  const config = loadConfig();
  // Logs go to stderr so stdout stays pure JSON for scripts.
  const log = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }, 'cli', 2);
  const rt = await createRuntime(config, 'cli', log);
  try {
    await migratePlatform(rt.knex);
    const { output, exitCode = 0 } = await cmd.run(rt, flags);
    process.stdout.write(JSON.stringify(output, null, 2) + '\n');
    return exitCode;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 2;
    }
    if (err instanceof AppError && err.expose) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await rt.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
