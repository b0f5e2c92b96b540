import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The benchmarks' own packages: bench/package.json (PostGraphile 5, the peer of
 * `npm run bench -- graphql`, with graphql and pg at Lectern's versions) and its
 * bench/package-lock.json, installed into bench/node_modules and kept out of Lectern's own
 * install: PostGraphile's packages declare Node >= 22, and in the main package.json they made
 * every `npm ci` on Node 20 print some 75 lines of EBADENGINE warnings for packages that only
 * one benchmark loads.
 *
 * `npm run bench:install` (this file run as a script) installs them (`npm ci` in bench/);
 * `npm run bench -- graphql` (and `all`) does so first when they are missing or not the locked
 * versions (bench/run.ts).
 */
const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

type Lock = { packages: Record<string, { version?: string }> };
const versions = (file: string) =>
  Object.entries((JSON.parse(readFileSync(file, 'utf8')) as Lock).packages)
    .filter(([key]) => key !== '')
    .map(([key, p]) => `${key}@${p.version}`)
    .sort()
    .join('\n');

/** Whether bench/node_modules holds exactly what bench/package-lock.json locks (npm's own record of the tree it installed). */
export function benchExtrasInstalled(): boolean {
  const installed = path.join(BENCH_DIR, 'node_modules', '.package-lock.json');
  return existsSync(installed) && versions(installed) === versions(path.join(BENCH_DIR, 'package-lock.json'));
}

/** `npm ci` in bench/: the locked versions, nothing else. */
export function installBenchExtras(): void {
  const node = process.versions.node;
  const quiet = Number(node.split('.')[0]) < 22;
  if (quiet)
    process.stderr.write(
      `PostGraphile 5's packages declare Node >= 22 (this is Node ${node}): npm's engine warnings for them are left out; ` +
        'bench/lib/postgraphile.ts adds the one call Node 20 lacks (Promise.withResolvers)\n',
    );
  execFileSync('npm', ['ci', '--prefix', BENCH_DIR, '--no-audit', '--no-fund', ...(quiet ? ['--loglevel=error'] : [])], {
    cwd: BENCH_DIR,
    stdio: 'inherit',
  });
}

/** Installs the benchmarks' packages unless they are already there, at the locked versions. */
export function ensureBenchExtras(): void {
  if (benchExtrasInstalled()) return;
  process.stderr.write("installing the benchmarks' own packages into bench/node_modules (npm run bench:install)...\n");
  try {
    installBenchExtras();
  } catch {
    process.stderr.write("the benchmarks' packages could not be installed (npm's answer above); try again with `npm run bench:install`\n");
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) installBenchExtras();
