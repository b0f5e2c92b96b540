import test from 'ava';
import { revokeClient } from '../../src/modules/oauth/clients.service.js';
import { issueUserToken } from '../../src/modules/oauth/user-tokens.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { request, runTs, setupTestRuntime, startTestApp, within, type TestContext } from '../helpers/harness.js';

/**
 * `tokens:create`: an access token for a tenant's user in one command, as a real CLI process
 * prints it, used on `/graphql` of a running app; issued through the OAuth store to client
 * credentials made once and reused, so revoking them stops the token.
 */
let ctx: TestContext;
let tenant: Tenant;
let app: { port: number; close(): Promise<void> };
const FIRST = 'zoe-first@tok.test'; // the first admin by id, not by email
const SECOND = 'amy@tok.test';

test.before(async () => {
  ctx = await setupTestRuntime();
  tenant = await ctx.freshTenant('tok');
  await withTenant(ctx.rt.knex, tenant, async (db) => {
    await createUser(db, { email: FIRST, password: 'a-long-password', role: 'admin' });
    await createUser(db, { email: SECOND, password: 'a-long-password', role: 'admin' });
  });
  app = await startTestApp(ctx.rt);
});
test.after.always(async () => {
  await app?.close();
  await ctx?.cleanup();
});

/** A real `npm run cli -- tokens:create --tenant <slug> ...` (as a process; the app's port shapes the printed endpoint). */
const cli = (...args: string[]) =>
  runTs('src/cli/main.ts', ['tokens:create', '--tenant', tenant.slug, ...args], { PORT: String(app.port) });
const hello = (token: string) =>
  request(app.port, { method: 'POST', path: '/graphql', headers: { authorization: `Bearer ${token}` }, body: { query: '{ hello }' } });

test('when tokens:create runs, then it prints a bearer token of the first admin and its expiry; again, another token of the same client', async (t) => {
  // Debug logs on: nothing secret may reach them.
  const first = await runTs('src/cli/main.ts', ['tokens:create', '--tenant', tenant.slug], {
    PORT: String(app.port),
    LOG_LEVEL: 'debug',
  });
  t.is(first.code, 0, first.stderr);
  const out = JSON.parse(first.stdout);
  t.deepEqual(Object.keys(out), ['accessToken', 'tokenType', 'expiresIn', 'expiresAt', 'tenant', 'user', 'clientId', 'graphqlEndpoint']);
  t.regex(out.accessToken, /^lat_/);
  t.like(out, {
    tokenType: 'Bearer',
    expiresIn: 3600,
    tenant: tenant.slug,
    user: FIRST,
    graphqlEndpoint: `http://localhost:${app.port}/graphql`,
  });
  const lifetime = Date.parse(out.expiresAt) - Date.now();
  t.true(lifetime > 3500_000 && lifetime <= 3600_000, out.expiresAt);
  t.false(first.stderr.includes(out.accessToken));
  t.false(/lcs_|lat_/.test(first.stderr), 'no secret or token in the logs');
  t.deepEqual((await hello(out.accessToken)).json, { data: { hello: `Hello, ${FIRST}!` } });

  // Again (the command's own function, as a second run would call it): another token of the same client.
  const second = await issueUserToken(ctx.rt, tenant);
  t.is(second.clientId, out.clientId, 'the client is reused');
  t.not(second.accessToken, out.accessToken);
  t.is((await hello(second.accessToken)).status, 200);
  const stored = await ctx.rt
    .knex('platform.oauth_tokens')
    .whereIn('client_id', ctx.rt.knex('platform.oauth_clients').select('id').where({ client_id: out.clientId }));
  t.is(stored.length, 2);
  t.false(JSON.stringify(stored).includes(out.accessToken), 'kept only as a hash');

  // Revoking the client (what clients:revoke and the Control Panel do) stops its tokens at once.
  await revokeClient(ctx.rt.knex, out.clientId);
  t.not(await within(1000, async () => (await hello(second.accessToken)).status === 401), undefined);
  const after = await issueUserToken(ctx.rt, tenant);
  t.not(after.clientId, out.clientId, 'a revoked client is not reused');
  t.is((await hello(after.accessToken)).status, 200);
});

test('with --user, the token acts as that user; a user who is not an active one of the tenant is an error on stderr', async (t) => {
  const [amy, ghost] = await Promise.all([cli('--user', 'AMY@tok.test'), cli('--user', 'ghost@tok.test')]);
  t.is(amy.code, 0, amy.stderr);
  const out = JSON.parse(amy.stdout);
  t.is(out.user, SECOND);
  t.deepEqual((await hello(out.accessToken)).json, { data: { hello: `Hello, ${SECOND}!` } });

  t.is(ghost.code, 1);
  t.is(ghost.stdout, '');
  t.regex(ghost.stderr, new RegExp(`error: No active user 'ghost@tok.test' in tenant '${tenant.slug}'`));
});
