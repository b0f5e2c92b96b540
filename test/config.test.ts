import test from 'ava';
import { ConfigError, loadConfig, platformBaseUrl, tenantBaseUrl } from '../src/platform/config.js';
import { runTs } from './helpers/harness.js';

test('when nothing is set, then the defaults describe the embedded local setup', (t) => {
  const c = loadConfig({});
  t.is(c.port, 3000);
  t.is(c.baseDomain, 'localhost');
  t.is(c.databaseUrl, undefined);
  t.is(c.redisUrl, undefined);
  t.is(c.logLevel, 'info');
  t.true(c.seedDemo);
  t.is(tenantBaseUrl(c, 'acme'), 'http://acme.localhost:3000');
});

test('when NODE_ENV is production, then the demo is not seeded and public URLs are https without a port', (t) => {
  const c = loadConfig({ NODE_ENV: 'production', BASE_DOMAIN: 'lectern.example.com', PORT: '8080', SESSION_SECRET: 's'.repeat(32) });
  t.false(c.seedDemo);
  t.is(tenantBaseUrl(c, 'acme'), 'https://acme.lectern.example.com');
  t.is(platformBaseUrl(c), 'https://lectern.example.com');
});

test('in production a SESSION_SECRET is required, at least 32 characters each, and several rotate', (t) => {
  const missing = t.throws(() => loadConfig({ NODE_ENV: 'production' }), { instanceOf: ConfigError });
  t.regex(missing!.message, /SESSION_SECRET: is required in production/);
  const short = t.throws(() => loadConfig({ SESSION_SECRET: 'short' }), { instanceOf: ConfigError });
  t.regex(short!.message, /SESSION_SECRET: must be at least 32 characters/);
  t.deepEqual(loadConfig({ SESSION_SECRET: `${'a'.repeat(32)}, ${'b'.repeat(32)}` }).sessionKeys, ['a'.repeat(32), 'b'.repeat(32)]);
  // Outside production a random key per process, so local runs need no setup.
  t.is(loadConfig({}).sessionKeys.length, 1);
});

test('when PORTAL_TOKEN_SECRET is unset, then portal tokens get keys of their own derived from SESSION_SECRET (production needs no new setting), never the development key', (t) => {
  const session = { NODE_ENV: 'production' as const, SESSION_SECRET: `${'a'.repeat(32)},${'b'.repeat(32)}` };
  const derived = loadConfig(session).portalTokenKeys;
  t.is(derived.length, 2);
  t.false(derived.includes('a'.repeat(32)), 'not the session key itself');
  t.deepEqual(loadConfig(session).portalTokenKeys, derived, 'the same in every process');
  t.notDeepEqual(loadConfig({ NODE_ENV: 'production', SESSION_SECRET: 'c'.repeat(32) }).portalTokenKeys, [derived[0]]);
  t.deepEqual(loadConfig({ ...session, PORTAL_TOKEN_SECRET: 'p'.repeat(32) }).portalTokenKeys, ['p'.repeat(32)]);
  t.deepEqual(
    loadConfig({}).portalTokenKeys,
    loadConfig({}).portalTokenKeys,
    'outside production a fixed key, so tokens survive a restart',
  );
});

test('when a variable is invalid, then the error names each bad variable', (t) => {
  const err = t.throws(() => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', REDIS_URL: 'http://r', LOG_LEVEL: 'loud' }), {
    instanceOf: ConfigError,
  });
  for (const name of ['PORT', 'DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL']) t.regex(err!.message, new RegExp(`^  ${name}: `, 'm'));
});

test('when PORT is out of range, then it is refused', (t) => {
  t.throws(() => loadConfig({ PORT: '70000' }), { message: /PORT: must be between 0 and 65535/ });
});

test('when a variable is empty, then it counts as unset', (t) => {
  t.is(loadConfig({ DATABASE_URL: '', PORT: '' }).databaseUrl, undefined);
});

test('when the web process boots with a bad variable, then it exits non-zero naming it', async (t) => {
  const r = await runTs('src/web.ts', [], { PORT: 'not-a-port' });
  t.is(r.code, 1);
  t.regex(r.stderr, /PORT: must be a whole number/);
  t.notRegex(r.stderr, /at .*\.ts:\d+/); // a message, not a stack trace
});
