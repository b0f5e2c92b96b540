import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';
import pg from 'pg';
import { DEMO } from '../../seeds/demo.js';
import { AREAS } from '../../src/cli/areas.js';
import { COMMANDS, type CommandSpec } from '../../src/cli/manifest.js';
import { ageInWords } from '../../src/cli/tenants.commands.js';
import { ROOT, hex, runTs, type ProcResult } from '../helpers/harness.js';

const slug = `t-cli-${hex(3)}`;

test.after.always(async () => {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query('delete from platform.tenants where slug = $1', [slug]);
  await client.query(`drop schema if exists ${client.escapeIdentifier(`tenant_${slug.replace(/-/g, '_')}`)} cascade`);
  await client.end();
});

test.serial('tenants:create prints the tenant as JSON', async (t) => {
  const r = await runTs('src/cli/main.ts', ['tenants:create', '--slug', slug, '--name', 'CLI Training'], { PORT: '4000' });
  t.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  t.deepEqual(Object.keys(out).sort(), ['id', 'restBaseUrl', 'schema', 'slug']);
  t.is(out.slug, slug);
  t.is(out.schema, `tenant_${slug.replace(/-/g, '_')}`);
  t.is(out.restBaseUrl, `http://${slug}.localhost:4000/api/v2`);
  t.true(Number.isInteger(out.id));
});

test.serial('tenants:create refuses a duplicate and a bad slug on stderr with a non-zero exit', async (t) => {
  const dup = await runTs('src/cli/main.ts', ['tenants:create', '--slug', slug, '--name', 'Again']);
  t.is(dup.code, 1);
  t.is(dup.stdout, '');
  t.regex(dup.stderr, new RegExp(`error: Tenant '${slug}' already exists`));
  const bad = await runTs('src/cli/main.ts', ['tenants:create', '--slug', 'Bad Slug!', '--name', 'x']);
  t.is(bad.code, 1);
  t.regex(bad.stderr, /Invalid tenant slug/);
});

test.serial('when the worker has never counted a tenant, then tenants:list says so', async (t) => {
  const r = await runTs('src/cli/main.ts', ['tenants:list']);
  t.is(r.code, 0, r.stderr);
  const mine = JSON.parse(r.stdout).find((x: { slug: string }) => x.slug === slug);
  t.like(mine, { stats: {}, statsAsOf: null, statsAge: 'never counted' });
});

test.serial('users:create makes a user with a role and prints it', async (t) => {
  const r = await runTs('src/cli/main.ts', [
    'users:create',
    '--tenant',
    slug,
    '--email',
    'Admin@CLI.test',
    '--password',
    'a-long-password',
    '--role',
    'admin',
  ]);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(JSON.parse(r.stdout), { id: 1, email: 'admin@cli.test', tenant: slug, role: 'admin' });
  const weak = await runTs('src/cli/main.ts', [
    'users:create',
    '--tenant',
    slug,
    '--email',
    'x@cli.test',
    '--password',
    'short',
    '--role',
    'admin',
  ]);
  t.is(weak.code, 1);
  t.regex(weak.stderr, /password must be at least 10 characters/);
  const role = await runTs('src/cli/main.ts', [
    'users:create',
    '--tenant',
    slug,
    '--email',
    'y@cli.test',
    '--password',
    'a-long-password',
    '--role',
    'wizard',
  ]);
  t.is(role.code, 1);
  t.regex(role.stderr, /Role 'wizard' does not exist/);
  const noTenant = await runTs('src/cli/main.ts', [
    'users:create',
    '--tenant',
    'nope-nope',
    '--email',
    'z@cli.test',
    '--password',
    'a-long-password',
  ]);
  t.is(noTenant.code, 1);
  t.regex(noTenant.stderr, /No tenant 'nope-nope'/);
});

test.serial('tenants:list includes the new tenant', async (t) => {
  const r = await runTs('src/cli/main.ts', ['tenants:list']);
  t.is(r.code, 0, r.stderr);
  const mine = JSON.parse(r.stdout).find((x: { slug: string }) => x.slug === slug);
  t.is(mine.name, 'CLI Training');
  t.is(mine.status, 'active');
});

test.serial('when the counters were counted a while ago, then tenants:list says when and how long ago', async (t) => {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  const { rows } = await client.query<{ at: Date }>(
    `update platform.tenants set stats = '{"users":1,"contacts":0,"companies":0}', stats_updated_at = now() - interval '12 minutes 10 seconds'
     where slug = $1 returning stats_updated_at as at`,
    [slug],
  );
  await client.end();
  const r = await runTs('src/cli/main.ts', ['tenants:list']);
  t.is(r.code, 0, r.stderr);
  const mine = JSON.parse(r.stdout).find((x: { slug: string }) => x.slug === slug);
  t.deepEqual(mine.stats, { users: 1, contacts: 0, companies: 0 });
  t.is(mine.statsAsOf, rows[0]!.at.toISOString());
  t.regex(mine.statsAge, /^1[23] minutes$/);
});

test('when an age is put in words, then it is in the largest unit that keeps it readable', (t) => {
  const now = new Date('2025-03-01T12:00:00Z');
  const ago = (s: number) => ageInWords(new Date(now.getTime() - s * 1000), now);
  t.is(ago(0), '0 seconds');
  t.is(ago(1), '1 second');
  t.is(ago(119), '119 seconds');
  t.is(ago(120), '2 minutes');
  t.is(ago(7199), '119 minutes');
  t.is(ago(7200), '2 hours');
  t.is(ago(172_800), '2 days');
  t.is(ago(-5), '0 seconds', 'a clock a little ahead of the database');
});

const cli = (...args: string[]) => runTs('src/cli/main.ts', args);
const HINT = 'The commands: npm run cli -- --help\n';

test('when a command is mistyped, then one line suggests the nearest and one points to --help (exit 2)', async (t) => {
  for (const [typed, meant] of [
    ['tenant:list', "'tenants:list'"],
    ['Tenants:List', "'tenants:list'"],
    ['list:tenants', "'tenants:list'"],
    ['orders:lsit', "'orders:list'"],
    ['roles', "'roles:create' or 'roles:list'"],
  ] as const) {
    const r = await cli(typed, '--tenant', 'acme');
    t.is(r.code, 2, typed);
    t.is(r.stdout, '');
    t.is(r.stderr, `error: unknown command '${typed}'. Did you mean ${meant}?\n${HINT}`);
  }
});

test('when nothing is close to the command typed, then there is no suggestion', async (t) => {
  for (const typed of ['frobnicate', 'tenants:explode', 'constructor']) {
    const r = await cli(typed);
    t.is(r.code, 2, typed);
    t.is(r.stderr, `error: unknown command '${typed}'.\n${HINT}`);
  }
  const flagFirst = await cli('--tenant', 'acme');
  t.is(flagFirst.code, 2);
  t.regex(flagFirst.stderr, /^error: '--tenant' is a flag, not a command: the command comes first/);
});

test('when --help is asked for, then it lists every command of the table, in its order, with its flags', async (t) => {
  for (const ask of ['--help', 'help']) {
    const r = await cli(ask);
    t.is(r.code, 0, r.stderr);
    const listed = r.stdout
      .split('\n')
      .map((l) => /^ {2}([a-z][\w:-]*) /.exec(l)?.[1])
      .filter(Boolean);
    t.deepEqual(listed, Object.keys(COMMANDS));
    for (const [name, spec] of Object.entries(COMMANDS) as [string, CommandSpec][])
      for (const [flag, d] of Object.entries(spec.flags))
        t.true(r.stdout.includes(d.required ? `--${flag} <${d.description}>` : `[--${flag} <${d.description}>]`), `${name} --${flag}`);
  }
  const one = await cli('locales:enable', '--help');
  t.is(one.code, 0);
  t.is(
    one.stdout,
    [
      'Usage: npm run cli -- locales:enable --tenant <tenant> --code <code>',
      '',
      COMMANDS['locales:enable'].summary,
      '',
      'Flags:',
      '  --tenant   (required) tenant slug',
      '  --code     (required) e.g. fr, pt-BR',
      '',
    ].join('\n'),
  );
  t.is((await cli('help', 'locales:enable')).stdout, one.stdout);
});

test("when a flag is unknown, missing or malformed, then the error names it and the command's own flags, not the whole usage", async (t) => {
  const none = await cli('tenants:list', '--colour', 'red');
  t.is(none.code, 2);
  t.is(none.stderr, "error: unknown flag '--colour' for tenants:list.\ntenants:list takes no flags.\n");
  const near = await cli('locales:list', '--tenent', 'acme');
  t.is(near.code, 2);
  t.is(
    near.stderr,
    "error: unknown flag '--tenent' for locales:list. Did you mean '--tenant'?\n" +
      'locales:list takes --tenant (required). More: npm run cli -- locales:list --help\n',
  );
  const takes = 'tenants:create takes --slug (required), --name (required). More: npm run cli -- tenants:create --help\n';
  const missing = await cli('tenants:create', '--slug', 'x-y');
  t.is(missing.code, 2);
  t.is(missing.stderr, `error: --name is required\n${takes}`);
  const noValue = await cli('tenants:create', '--name', 'X', '--slug');
  t.is(noValue.code, 2);
  t.is(noValue.stderr, `error: Option '--slug <value>' argument missing\n${takes}`);
});

test('when the manifest names a command, then its area implements it, and no area implements one it does not name', async (t) => {
  for (const [area, load] of Object.entries(AREAS)) {
    const { runners } = await load();
    const named = Object.entries(COMMANDS as Record<string, CommandSpec>)
      .filter(([, c]) => c.area === area)
      .map(([name]) => name);
    t.deepEqual(Object.keys(runners).sort(), named.sort(), area);
    for (const run of Object.values(runners)) t.is(typeof run, 'function');
  }
  t.true(COMMANDS['seed:demo'].summary.includes(`'${DEMO.slug}'`), "seed:demo's summary names the demo slug");
});

/**
 * `npm run cli -- <args>` as a process, with a module resolve hook that writes each module it
 * loads to a file: what the process loaded.
 */
async function modulesLoaded(args: string[]): Promise<{ run: ProcResult; loaded: string[] }> {
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cli-loaded-')), 'loaded.txt');
  const hook = `import fs from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  fs.appendFileSync(process.env.CLI_LOADED_LOG, r.url + '\\n');
  return r;
}`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(register)}`, 'src/cli/main.ts', ...args],
    { cwd: ROOT, env: { ...process.env, CLI_LOADED_LOG: log }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const run = await new Promise<ProcResult>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  const loaded = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  fs.rmSync(path.dirname(log), { recursive: true, force: true });
  return { run, loaded };
}

test('when help or a usage error is answered, then only the command table is loaded (no area, no runtime, no package)', async (t) => {
  const table = ['main.ts', 'manifest.ts', 'areas.ts', 'suggest.ts'].map((f) => pathToFileURL(path.join(ROOT, 'src/cli', f)).href);
  for (const args of [['--help'], ['tenant:list'], ['tenants:list', '--colour', 'red'], ['tenants:create', '--help']]) {
    const { run, loaded } = await modulesLoaded(args);
    t.true(run.code === 0 || run.code === 2, run.stderr);
    t.true(loaded.includes(table[0]!), `the hook saw the entry point (${args.join(' ')})`);
    t.deepEqual(
      loaded.filter((url) => !url.startsWith('node:') && !table.includes(url)),
      [],
      args.join(' '),
    );
  }
  // And a command that runs loads its own area, not the others.
  const { run, loaded } = await modulesLoaded(['tenants:list']);
  t.is(run.code, 0, run.stderr);
  const areas = loaded.filter((url) => url.endsWith('.commands.ts')).map((url) => path.basename(new URL(url).pathname));
  t.deepEqual(areas, ['tenants.commands.ts']);
});

test.serial(
  "clients:create registers an integration and a tenant's client credentials; clients:list shows them without secrets; clients:revoke revokes",
  async (t) => {
    const integration = await runTs(
      'src/cli/main.ts',
      ['clients:create', '--name', 'CLI Integration', '--redirect-uri', 'https://app.example.com/oauth/callback'],
      { PORT: '4000' },
    );
    t.is(integration.code, 0, integration.stderr);
    const i = JSON.parse(integration.stdout);
    t.regex(i.clientId, /^lc_/);
    t.regex(i.clientSecret, /^lcs_/);
    t.deepEqual(i.grants, ['authorization_code', 'refresh_token']);
    t.deepEqual(i.redirectUris, ['https://app.example.com/oauth/callback']);
    t.is(i.authorizationEndpoint, 'http://localhost:4000/oauth/authorize');

    const service = await runTs('src/cli/main.ts', [
      'clients:create',
      '--tenant',
      slug,
      '--grant',
      'client_credentials',
      '--service-user',
      'admin@cli.test',
    ]);
    t.is(service.code, 0, service.stderr);
    const s = JSON.parse(service.stdout);
    t.like(s, { tenant: slug, serviceUser: 'admin@cli.test', grants: ['client_credentials'] });

    const listed = await runTs('src/cli/main.ts', ['clients:list', '--tenant', slug]);
    t.is(listed.code, 0, listed.stderr);
    t.false(listed.stdout.includes(s.clientSecret));
    t.deepEqual(
      JSON.parse(listed.stdout).map((c: { clientId: string }) => c.clientId),
      [s.clientId],
    );

    const revoked = await runTs('src/cli/main.ts', ['clients:revoke', '--client-id', s.clientId]);
    t.is(revoked.code, 0, revoked.stderr);
    t.truthy(JSON.parse(revoked.stdout).revokedAt);
    await runTs('src/cli/main.ts', ['clients:revoke', '--client-id', i.clientId]);

    const badUri = await runTs('src/cli/main.ts', ['clients:create', '--name', 'Insecure', '--redirect-uri', 'http://app.example.com/cb']);
    t.is(badUri.code, 1);
    t.regex(badUri.stderr, /https:\/\//);
    const noUser = await runTs('src/cli/main.ts', [
      'clients:create',
      '--tenant',
      slug,
      '--grant',
      'client_credentials',
      '--service-user',
      'ghost@cli.test',
    ]);
    t.is(noUser.code, 1);
    t.regex(noUser.stderr, /not an active user/);
  },
);
