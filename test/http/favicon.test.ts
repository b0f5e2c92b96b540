import test from 'ava';
import { request, setupTestRuntime, startTestApp, type TestContext } from '../helpers/harness.js';

/** A browser opening any page asks for /favicon.ico: it gets Lectern's icon on every address, not a 404 in the log. */
let ctx: TestContext;
let app: { port: number; close(): Promise<void> };

test.before(async () => {
  ctx = await setupTestRuntime();
  app = await startTestApp(ctx.rt);
});
test.after.always(async () => {
  await app?.close();
  await ctx?.cleanup();
});

test('when a browser asks for /favicon.ico on the platform or an instance address, then it gets an icon', async (t) => {
  const tenant = await ctx.freshTenant('fav');
  for (const host of [`localhost:${app.port}`, `${tenant.slug}.localhost:${app.port}`]) {
    const r = await request(app.port, { path: '/favicon.ico', host });
    t.is(r.status, 200, host);
    t.regex(r.headers['content-type'] ?? '', /^image\/svg\+xml/);
    t.regex(r.text, /^<svg /);
    t.regex(r.headers['cache-control'] ?? '', /max-age=\d+/);
  }
  t.is((await request(app.port, { method: 'POST', path: '/favicon.ico', host: `localhost:${app.port}` })).status === 200, false);
});
