import test from 'ava';
import pg from 'pg';
import { hex, runTs } from '../helpers/harness.js';

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

test('usage errors exit 2 with help on stderr', async (t) => {
  const unknown = await runTs('src/cli/main.ts', ['tenants:explode']);
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /unknown command 'tenants:explode'[\s\S]*Usage: npm run cli/);
  const missing = await runTs('src/cli/main.ts', ['tenants:create', '--slug', 'x-y']);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /--name is required/);
  const extra = await runTs('src/cli/main.ts', ['tenants:list', '--colour', 'red']);
  t.is(extra.code, 2);
  t.regex(extra.stderr, /Unknown option '--colour'/);
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
