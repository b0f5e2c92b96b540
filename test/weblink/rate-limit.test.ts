import test from 'ava';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { createApp } from '../../src/app/web.js';
import { startHttpServer } from '../../src/kit/http/server.js';
import { request } from '../helpers/harness.js';
import { restFixture, type RestFixture } from '../helpers/rest.js';

/** WebLink is public, so each client address gets a budget per instance and minute (WEBLINK_RATE_LIMIT). */
let f: RestFixture;
let other: Tenant;

test.serial.before(async () => {
  f = await restFixture('wlrl', { WEBLINK_RATE_LIMIT: '3' });
  other = await f.ctx.freshTenant('wlrl2');
});
test.after.always(async () => f?.close());

const ask = (tenant: Tenant) =>
  request(f.port, { method: 'POST', path: '/weblink/graphql', host: `${tenant.slug}.localhost`, body: { query: '{ locales { code } }' } });

test.serial(
  'when an address passes its budget, then 429 with Retry-After and a GraphQL error, and other instances still answer it',
  async (t) => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await ask(f.tenant));
    t.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 429],
    );
    t.deepEqual(
      answers.map((a) => a.headers['ratelimit-remaining']),
      ['2', '1', '0', '0'],
    );
    const refused = answers[3]!;
    t.is(refused.json.errors[0].extensions.code, 'RATE_LIMITED');
    t.regex(refused.json.errors[0].message, /Too many requests/);
    const retry = Number(refused.headers['retry-after']);
    t.true(retry >= 1 && retry <= 60, String(retry));
    t.is((await ask(other)).status, 200);
  },
);

// Without REDIS_URL each web process counts in memory on its own (docs/weblink.md), so there is nothing shared to test.
(process.env.REDIS_URL ? test.serial : test.serial.skip)('with Redis, every web process counts against the same budget', async (t) => {
  const second = await startHttpServer(createApp(f.ctx.rt), 0, '127.0.0.1');
  try {
    const third = await f.ctx.freshTenant('wlrl3');
    const via = (port: number) =>
      request(port, { method: 'POST', path: '/weblink/graphql', host: `${third.slug}.localhost`, body: { query: '{ locales { code } }' } });
    const statuses = [
      (await via(f.port)).status,
      (await via(second.port)).status,
      (await via(f.port)).status,
      (await via(second.port)).status,
    ];
    t.deepEqual(statuses, [200, 200, 200, 429]);
  } finally {
    await second.close(1000);
  }
});

test.serial(
  'in production behind the router, the address is the one the router added: a client cannot pass the limit by writing its own X-Forwarded-For',
  async (t) => {
    const rt = f.ctx.rt;
    const behindRouter = await startHttpServer(
      createApp({ ...rt, config: { ...rt.config, env: 'production', proxyHops: 1 } }),
      0,
      '127.0.0.1',
    );
    try {
      const fourth = await f.ctx.freshTenant('wlrl4');
      const via = (forwardedFor: string) =>
        request(behindRouter.port, {
          method: 'POST',
          path: '/weblink/graphql',
          host: `${fourth.slug}.localhost`,
          headers: { 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': 'https' },
          body: { query: '{ locales { code } }' },
        });
      // Each request claims another address on the left; the router appended the same real one.
      const statuses = [];
      for (let i = 1; i <= 4; i++) statuses.push((await via(`10.9.0.${i}, 203.0.113.7`)).status);
      t.deepEqual(statuses, [200, 200, 200, 429]);
      // Another real client (another address appended by the router) has its own budget.
      t.is((await via('10.9.0.1, 203.0.113.8')).status, 200);
    } finally {
      await behindRouter.close(1000);
    }
  },
);
