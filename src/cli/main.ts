import { parseArgs } from 'node:util';
import { AREAS } from './areas.js';
import { COMMANDS, commandNamed, type CommandSpec, type Flags, type Run } from './manifest.js';
import { didYouMean, suggest } from './suggest.js';

/**
 * Ops CLI: `npm run cli -- <command> [--flags]`. JSON on stdout, errors on stderr, non-zero exit
 * on failure. Works against DATABASE_URL, or the embedded database (a running one, found through
 * its state file, or one it starts for the duration of the command).
 *
 * The command table is manifest.ts; the commands live by area in `src/cli/<area>.commands.ts`.
 * This file parses the command line against the table and dispatches. Until a command is known
 * and its flags are right it loads nothing but the table (help and usage errors answer in a
 * moment); then it loads the runtime and that command's area only. Commands call services and
 * data functions (never SQL), and work in a tenant through `inTenant` (command.ts), the same
 * tenant transaction as a web request.
 */

type Command = CommandSpec & { name: string };

const HELP = 'npm run cli -- --help';

const flagUsage = (flag: string, d: { required?: boolean; description: string }) =>
  d.required ? `--${flag} <${d.description}>` : `[--${flag} <${d.description}>]`;

function usage(): string {
  const lines = ['Usage: npm run cli -- <command> [--flags]', '', 'Commands:'];
  for (const [name, cmd] of Object.entries(COMMANDS) as [string, CommandSpec][]) {
    const flags = Object.entries(cmd.flags).map(([f, d]) => flagUsage(f, d));
    lines.push(`  ${name.padEnd(21)} ${cmd.summary}`, ...(flags.length ? [`  ${' '.repeat(21)} ${flags.join(' ')}`] : []));
  }
  lines.push('', "One command's flags: npm run cli -- <command> --help");
  return lines.join('\n');
}

function commandUsage(cmd: Command): string {
  const flags = Object.entries(cmd.flags);
  const required = flags.filter(([, d]) => d.required).map(([f]) => ` --${f} <${f}>`);
  const lines = [
    `Usage: npm run cli -- ${cmd.name}${required.join('')}${flags.length > required.length ? ' [--flags]' : ''}`,
    '',
    cmd.summary,
  ];
  if (flags.length) {
    const width = Math.max(...flags.map(([f]) => f.length)) + 2;
    lines.push('', 'Flags:', ...flags.map(([f, d]) => `  --${f.padEnd(width)} ${d.required ? '(required) ' : ''}${d.description}`));
  }
  return lines.join('\n');
}

/** The line after a flag error: the command's own flags, not the whole usage. */
function flagsLine(cmd: Command): string {
  const flags = Object.entries(cmd.flags).map(([f, d]) => `--${f}${d.required ? ' (required)' : ''}`);
  return flags.length ? `${cmd.name} takes ${flags.join(', ')}. More: npm run cli -- ${cmd.name} --help` : `${cmd.name} takes no flags.`;
}

function unknownCommand(name: string): number {
  const message = `error: unknown command '${name}'.${didYouMean(suggest(name, Object.keys(COMMANDS)))}`;
  process.stderr.write(`${message}\nThe commands: ${HELP}\n`);
  return 2;
}

function usageError(cmd: Command, message: string): number {
  process.stderr.write(`error: ${message}\n${flagsLine(cmd)}\n`);
  return 2;
}

/** The flags given, checked against the command's: a usage error's message, or the values. */
function readFlags(cmd: Command, args: string[]): { error: string } | { flags: Flags } {
  // Unknown flags first, by name (parseArgs's own message suggests quoting it as a positional).
  const { tokens } = parseArgs({ args, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind !== 'option' || Object.hasOwn(cmd.flags, t.name)) continue;
    const near = suggest(t.name, Object.keys(cmd.flags)).map((f) => `--${f}`);
    return { error: `unknown flag '${t.rawName}' for ${cmd.name}.${didYouMean(near)}` };
  }
  let flags: Flags;
  try {
    flags = parseArgs({
      args,
      options: Object.fromEntries(Object.keys(cmd.flags).map((f) => [f, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    return { error: (err as Error).message };
  }
  const missing = Object.entries(cmd.flags)
    .filter(([f, d]) => d.required && (typeof flags[f] !== 'string' || flags[f] === ''))
    .map(([f]) => `--${f}`);
  if (missing.length) return { error: `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} required` };
  return { flags };
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    if (name && rest[0]) {
      const cmd = commandNamed(rest[0]);
      if (!cmd) return unknownCommand(rest[0]);
      process.stdout.write(commandUsage(cmd) + '\n');
      return 0;
    }
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  if (name.startsWith('-')) {
    process.stderr.write(
      `error: '${name}' is a flag, not a command: the command comes first (npm run cli -- <command> [--flags]).\nThe commands: ${HELP}\n`,
    );
    return 2;
  }
  const cmd = commandNamed(name);
  if (!cmd) return unknownCommand(name);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandUsage(cmd) + '\n');
    return 0;
  }
  const read = readFlags(cmd, rest);
  if ('error' in read) return usageError(cmd, read.error);

  // The command is right: now the runtime, and the command's own area (not the others').
  const [{ loadConfig }, { createLogger }, { AppError }, { createPlatformRuntime }, { migratePlatform }, { UsageError }, area] =
    await Promise.all([
      import('../platform/config.js'),
      import('../platform/logger.js'),
      import('../platform/errors.js'),
      import('../platform/runtime.js'),
      import('../platform/tenancy/migrate.js'),
      import('./command.js'),
      AREAS[cmd.area](),
    ]);
  // Each area's runners type lists its own commands (manifest.ts); here any area's, by name.
  const run = (area.runners as Partial<Record<string, Run>>)[cmd.name];
  if (!run) throw new Error(`${cmd.area}.commands.ts has no runner for ${cmd.name}`);

  const config = loadConfig();
  // Logs go to stderr so stdout stays pure JSON for scripts.
  const log = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }, 'cli', 2);
  const rt = await createPlatformRuntime(config, 'cli', log);
  try {
    await migratePlatform(rt.knex);
    const { output, exitCode = 0 } = await run(rt, read.flags);
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
