import { parseArgs } from 'node:util';
import { loadConfig } from '../platform/config.js';
import { AppError } from '../platform/errors.js';
import { createLogger } from '../platform/logger.js';
import { createRuntime } from '../app/runtime.js';
import { migratePlatform } from '../platform/tenancy/migrate.js';
import { adminCommands } from './admins.commands.js';
import { clientCommands } from './clients.commands.js';
import { UsageError, str, type Command, type Flags } from './command.js';
import { databaseCommands } from './database.commands.js';
import { localeCommands } from './locales.commands.js';
import { orderCommands } from './orders.commands.js';
import { placementCommands } from './placement.commands.js';
import { portalCommands } from './portals.commands.js';
import { tenantCommands } from './tenants.commands.js';
import { usageCommands } from './usage.commands.js';
import { userCommands } from './users.commands.js';

/**
 * Ops CLI: `npm run cli -- <command> [--flags]`. JSON on stdout, errors on stderr, non-zero exit
 * on failure. Works against DATABASE_URL, or the embedded database (a running one, found through
 * its state file, or one it starts for the duration of the command).
 *
 * The commands live by area in `src/cli/<area>.commands.ts`; this file parses the command line
 * and dispatches. Commands call services and data functions (never SQL), and work in a tenant
 * through `inTenant` (command.ts), the same tenant transaction as a web request.
 */

const AREAS = {
  ...tenantCommands,
  ...userCommands,
  ...adminCommands,
  ...usageCommands,
  ...orderCommands,
  ...localeCommands,
  ...clientCommands,
  ...portalCommands,
  ...placementCommands,
  ...databaseCommands,
};

/** The order `help` lists them in. */
const HELP_ORDER: (keyof typeof AREAS)[] = [
  'tenants:create',
  'tenants:list',
  'users:create',
  'admins:create',
  'legacy-usage',
  'tenants:configure',
  'payment-types:create',
  'payment-types:list',
  'stock-items:create',
  'stock-items:list',
  'orders:show',
  'orders:list',
  'orders:release',
  'orders:retry',
  'roles:create',
  'roles:list',
  'locales:enable',
  'locales:disable',
  'locales:default',
  'locales:list',
  'clients:create',
  'clients:list',
  'clients:revoke',
  'tokens:create',
  'portals:add',
  'portals:list',
  'portals:remove',
  'tenants:move',
  'migrate',
  'seed:demo',
];

const COMMANDS: Record<string, Command> = Object.fromEntries(
  [...new Set([...HELP_ORDER, ...Object.keys(AREAS)])].map((name) => [name, AREAS[name]!]),
);

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
