import type { PlatformRuntime } from '../platform/runtime.js';

/**
 * The ops CLI's command table: every command's name, summary and flags, in the order `help` lists
 * them, and the area whose file (`src/cli/<area>.commands.ts`) implements it. The one place a
 * command is described: help, usage errors and flag parsing read it, and each area's file
 * implements exactly its commands ({@link Runners}; tsc refuses a missing or an extra one).
 *
 * It imports nothing at run time (types only), so `--help` and a mistyped command answer without
 * loading the runtime (knex, bullmq, the services); an area's file is imported only when one of
 * its commands runs (areas.ts).
 */

export interface FlagSpec {
  required?: boolean;
  description: string;
}

export interface CommandSpec {
  area: Area;
  summary: string;
  flags: Readonly<Record<string, FlagSpec>>;
}

export type Flags = Record<string, string | boolean | undefined>;

export interface CommandResult {
  output: unknown;
  exitCode?: number;
}

/** A command's implementation: the flags are parsed and the required ones present (main.ts). */
export type Run = (rt: PlatformRuntime, flags: Flags) => Promise<CommandResult>;

export type Area = 'tenants' | 'users' | 'admins' | 'usage' | 'orders' | 'locales' | 'clients' | 'portals' | 'placement' | 'database';

const tenantFlag = { tenant: { required: true, description: 'tenant slug' } } as const;
const orderFlags = { ...tenantFlag, id: { required: true, description: 'order id (order_id of POST /api/v2/orders)' } } as const;

export const COMMANDS = {
  'tenants:create': {
    area: 'tenants',
    summary: 'Create a tenant with its own schema at the latest migration',
    flags: { slug: { required: true, description: 'host label, e.g. acme' }, name: { required: true, description: 'display name' } },
  },
  'tenants:list': {
    area: 'tenants',
    summary: 'List tenants with their schema, REST address and counters (counted by the worker: statsAsOf says when)',
    flags: {},
  },
  'users:create': {
    area: 'users',
    summary: "Create a tenant user with a role ('admin' has every permission)",
    flags: {
      tenant: { required: true, description: 'tenant slug' },
      email: { required: true, description: 'login email' },
      password: { required: true, description: 'at least 10 characters' },
      role: { description: 'role name (default admin)' },
    },
  },
  'admins:create': {
    area: 'admins',
    summary: 'Create a platform administrator (signs in to the queue dashboard at /admin/queues)',
    flags: { email: { required: true, description: 'login email' }, password: { required: true, description: 'at least 10 characters' } },
  },
  'legacy-usage': {
    area: 'usage',
    summary: 'Who still calls the deprecated REST API: calls per day, endpoint and user',
    flags: { tenant: { required: true, description: 'tenant slug' }, days: { description: 'how many days back (default 30)' } },
  },
  'tenants:configure': {
    area: 'orders',
    summary: 'Set how REST orders are processed: the workflow from their initial state, and the opt-in capacity check',
    flags: {
      ...tenantFlag,
      'order-workflow': { description: 'automatic or manual' },
      'prevent-overbooking': { description: 'true or false' },
    },
  },
  'payment-types:create': {
    area: 'orders',
    summary: 'Add a payment type: orders whose payment.type matches it get a payment method and an invoice',
    flags: { ...tenantFlag, name: { required: true, description: 'e.g. card' } },
  },
  'payment-types:list': { area: 'orders', summary: "List a tenant's payment types", flags: tenantFlag },
  'stock-items:create': {
    area: 'orders',
    summary: 'Add a stock item that order items can carry as children (a course book, a lunch)',
    flags: {
      ...tenantFlag,
      name: { required: true, description: 'e.g. "Course book"' },
      price: { required: true, description: 'unit price, e.g. 25' },
    },
  },
  'stock-items:list': { area: 'orders', summary: "List a tenant's stock items", flags: tenantFlag },
  'orders:show': {
    area: 'orders',
    summary: 'An order: state, lines, registration with delegates, invoice with lines and payments, failure reason',
    flags: orderFlags,
  },
  'orders:list': {
    area: 'orders',
    summary: "A tenant's orders, newest first",
    flags: {
      ...tenantFlag,
      'external-id': { description: 'only orders with this external_id' },
      state: { description: 'only orders in this state (e.g. failed)' },
    },
  },
  'orders:release': {
    area: 'orders',
    summary: 'Release an order held by the manual workflow; the worker then registers it',
    flags: orderFlags,
  },
  'orders:retry': { area: 'orders', summary: 'Run a failed order again from the step that failed', flags: orderFlags },
  'roles:create': {
    area: 'users',
    summary:
      "Create a role: a named set of permissions (<ENTITY>_VIEW / <ENTITY>_EDIT, '*', '*_VIEW'); give it to users with users:create --role",
    flags: {
      ...tenantFlag,
      name: { required: true, description: 'e.g. editor' },
      permissions: { required: true, description: 'comma-separated, e.g. COURSE_TEMPLATE_VIEW,COURSE_TEMPLATE_EDIT' },
    },
  },
  'roles:list': { area: 'users', summary: "A tenant's roles and their permissions", flags: tenantFlag },
  'locales:enable': {
    area: 'locales',
    summary: 'Let a tenant use a locale for content (primary, delivery, translations)',
    flags: { ...tenantFlag, code: { required: true, description: 'e.g. fr, pt-BR' } },
  },
  'locales:disable': {
    area: 'locales',
    summary: 'Stop offering a locale for new content (content in it keeps it; not the default)',
    flags: { ...tenantFlag, code: { required: true, description: 'e.g. fr' } },
  },
  'locales:default': {
    area: 'locales',
    summary: "Make a supported locale the tenant's default",
    flags: { ...tenantFlag, code: { required: true, description: 'e.g. fr' } },
  },
  'locales:list': { area: 'locales', summary: "A tenant's supported locales", flags: tenantFlag },
  'clients:create': {
    area: 'clients',
    summary:
      "Register an OAuth client: an integration (authorization code flow, any tenant's users authorize it) or, with --grant client_credentials, a tenant's client credentials acting as a service user",
    flags: {
      name: { description: 'what the application is called (shown on the consent page); required for an integration' },
      'redirect-uri': {
        description:
          'its OAuth callback URI, matched exactly (https://, or http:// on localhost, such as http://localhost:3000/oauth/dev-callback)',
      },
      grant: { description: 'authorization_code (default) or client_credentials' },
      tenant: { description: 'tenant slug (client_credentials only)' },
      'service-user': { description: 'email of the tenant user it acts as (client_credentials only)' },
    },
  },
  'clients:list': {
    area: 'clients',
    summary: 'List OAuth clients (never their secrets), newest first',
    flags: { tenant: { description: "only this tenant's client credentials" } },
  },
  'clients:revoke': {
    area: 'clients',
    summary: 'Revoke an OAuth client: no more tokens for its id and secret, and the tokens it has stop working',
    flags: { 'client-id': { required: true, description: 'the client id (Client Key)' } },
  },
  'tokens:create': {
    area: 'clients',
    summary:
      "Print an access token for Authorization: Bearer, acting as a tenant's user (its first admin unless --user); issued to client credentials made once and reused, which clients:revoke stops",
    flags: {
      tenant: { required: true, description: 'tenant slug' },
      user: { description: 'email of the user the token acts as (default: the first admin)' },
    },
  },
  'portals:add': {
    area: 'portals',
    summary:
      "Add a portal (a website address of the instance's WebLink catalogue; https://courses.example.com/ is taken as courses.example.com); a domain belongs to one instance",
    flags: { ...tenantFlag, domain: { required: true, description: 'host name, e.g. courses.example.com' } },
  },
  'portals:list': {
    area: 'portals',
    summary: 'List portals by domain, with their instance',
    flags: { tenant: { description: "only this tenant's portals" } },
  },
  'portals:remove': {
    area: 'portals',
    summary: 'Remove a portal: its website gets no more portal tokens, and the ones it has stop working',
    flags: { domain: { required: true, description: 'the portal host name' } },
  },
  'tenants:move': {
    area: 'placement',
    summary: 'Move a tenant schema to another node of a Citus 12.1+ cluster (citus_schema_move)',
    flags: {
      tenant: { required: true, description: 'the tenant slug' },
      node: { required: true, description: 'host:port of the target node, as in pg_dist_node' },
    },
  },
  migrate: {
    area: 'database',
    summary: 'Migrate the platform schema, then every tenant schema (bounded parallelism); a line per tenant on stderr',
    flags: { report: { description: 'file to write a JSON line per tenant to, as each finishes' } },
  },
  'seed:demo': {
    area: 'database',
    // The slug is seeds/demo.ts's DEMO.slug (not imported here: it would load the seed); a test compares them.
    summary:
      "Create the 'demo' tenant with an admin user and sample data (when it exists: only its pictures are pointed at this PORT/BASE_DOMAIN)",
    flags: {},
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/** An area's implementations: one {@link Run} for each of its commands in {@link COMMANDS}, no more, no fewer. */
export type Runners<A extends Area> = { [K in CommandName as (typeof COMMANDS)[K]['area'] extends A ? K : never]: Run };

/** The command named, or undefined (an own property only: not `constructor` or `toString`). */
export function commandNamed(name: string): (CommandSpec & { name: CommandName }) | undefined {
  return Object.hasOwn(COMMANDS, name) ? { name: name as CommandName, ...COMMANDS[name as CommandName] } : undefined;
}
