import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { pointDemoPictures, seedDemoContent } from '../../seeds/demo.js';
import { demoImagesDir } from '../../seeds/images/index.js';
import { platformBaseUrl } from '../../src/platform/config.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { request, ROOT, setupTestRuntime, startTestApp, type TestContext } from '../helpers/harness.js';

/**
 * The demo's pictures are Lectern's own: seeds/images/ served at `/demo-images/<file>` (image
 * type, cacheable, revalidated by ETag), and the seeded documents are absolute addresses there,
 * at the platform address, so what a website shows (WebLink `imageUrl`) loads. Nothing but the
 * folder's pictures can be named.
 */
let ctx: TestContext;
let app: { port: number; close(): Promise<void> };
let tenant: Tenant;
let urls: string[];

test.serial.before(async () => {
  ctx = await setupTestRuntime();
  tenant = await ctx.freshTenant('dim');
  app = await startTestApp(ctx.rt);
  urls = await withTenant(ctx.rt.knex, tenant, async (db) => {
    await seedDemoContent(db, new Date(), platformBaseUrl(ctx.rt.config));
    return db('documents').orderBy('id').pluck('url');
  });
});
test.after.always(async () => {
  await app?.close();
  await ctx?.cleanup();
});

/** GET (or another method) of an absolute address, sent to the test app with that address's Host. */
const fetchUrl = (url: string, opts: { method?: string; headers?: Record<string, string> } = {}) => {
  const u = new URL(url);
  return request(app.port, { method: opts.method ?? 'GET', path: u.pathname + u.search, host: u.host, headers: opts.headers ?? {} });
};

test.serial(
  "when the demo is seeded, then each course's and learning path's picture is an absolute address at the platform address that answers a real picture",
  async (t) => {
    const base = `http://localhost:${app.port}/demo-images/`;
    t.is(urls.length, 10, 'eight courses and two learning paths');
    const files = await fs.readdir(path.join(ROOT, 'seeds/images'));
    for (const url of urls) {
      t.true(url.startsWith(base), url);
      const res = await fetchUrl(url);
      t.is(res.status, 200, url);
      t.is(res.headers['content-type'], 'image/svg+xml', url);
      t.is(res.headers['cache-control'], 'public, max-age=86400');
      t.regex(String(res.headers.etag), /^"[\w-]+"$/);
      t.is(res.headers['x-content-type-options'], 'nosniff');
      const file = url.slice(base.length);
      t.true(files.includes(file), file);
      t.is(res.text, await fs.readFile(path.join(ROOT, 'seeds/images', file), 'utf8'), `${file} is the committed picture`);
      // A picture: drawn shapes and a title, no script, a few KB.
      t.regex(res.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 800 350"/);
      t.regex(res.text, /<title>[^<]{10,}<\/title>/);
      t.true((res.text.match(/<(path|circle|rect|ellipse|polyline)\b/g) ?? []).length >= 8, `${file} draws something`);
      t.notRegex(res.text, /<script|\bon\w+=|href="(?!#)/i);
      t.true(res.text.length < 8000, `${file}: ${res.text.length} bytes`);
    }
    t.is(new Set(urls).size, urls.length, 'one picture each');
  },
);

test.serial('a picture is served on the platform and on an instance address, revalidates with its ETag, and answers HEAD', async (t) => {
  const first = await request(app.port, { path: '/demo-images/first-aid.svg', host: 'localhost' });
  t.is(first.status, 200);
  const onInstance = await request(app.port, { path: '/demo-images/first-aid.svg', host: `${tenant.slug}.localhost` });
  t.is(onInstance.status, 200);
  t.is(onInstance.text, first.text);
  const again = await request(app.port, {
    path: '/demo-images/first-aid.svg',
    host: 'localhost',
    headers: { 'if-none-match': String(first.headers.etag) },
  });
  t.is(again.status, 304);
  t.is(again.text, '');
  const head = await request(app.port, { method: 'HEAD', path: '/demo-images/fire-safety.svg', host: 'localhost' });
  t.is(head.status, 200);
  t.is(head.headers['content-type'], 'image/svg+xml');
  t.is(head.text, '');
  const post = await request(app.port, { method: 'POST', path: '/demo-images/first-aid.svg', host: 'localhost', body: {} });
  t.is(post.status, 405);
  t.is(post.headers.allow, 'GET, HEAD');
});

test.serial('only the pictures of seeds/images can be named: no other file, folder or encoding of a path reaches the disk', async (t) => {
  for (const asked of [
    '/demo-images/',
    '/demo-images/demo.ts',
    '/demo-images/../demo.ts',
    '/demo-images/..%2Fdemo.ts',
    '/demo-images/%2e%2e%2f%2e%2e%2fpackage.json',
    '/demo-images/..%5C..%5Cpackage.json',
    '/demo-images/%2Fetc%2Fpasswd',
    '/demo-images/first-aid.svg/',
    '/demo-images/first-aid.svg%00.png',
    '/demo-images/FIRST-AID.SVG',
    '/demo-images/images/first-aid.svg',
    '/demo-images/.first-aid.svg',
  ]) {
    const res = await request(app.port, { path: asked, host: 'localhost' });
    t.is(res.status, 404, asked);
    t.is(res.json?.error?.code, 'not_found', `${asked}: ${res.text.slice(0, 200)}`);
    t.notRegex(res.text, /"name": "lectern"|root:x:0|<svg/, asked);
  }
});

test.serial(
  'when the demo starts again on another address, or was seeded before Lectern served its pictures, then its pictures point at this address and nothing else moves',
  async (t) => {
    const other = await ctx.freshTenant('dim2');
    const moved = await withTenant(ctx.rt.knex, other, async (db) => {
      await seedDemoContent(db, new Date(), 'http://localhost:3999');
      // A demo seeded before: a picture on the host that never existed; and a document of the customer's own.
      await db('documents').where({ id: 2 }).update({ url: 'https://images.demo-training.test/leading-teams.jpg' });
      await db('documents').insert({ name: 'Brochure', url: 'https://cdn.example.com/demo-images/first-aid.svg' });
      const n = await pointDemoPictures(db, 'http://localhost:3001');
      return { n, urls: await db('documents').orderBy('id').pluck('url') };
    });
    t.is(moved.n, urls.length, 'every demo picture moved');
    t.deepEqual(
      moved.urls.slice(0, urls.length),
      urls.map((u) => u.replace(platformBaseUrl(ctx.rt.config), 'http://localhost:3001')),
    );
    t.is(moved.urls[1], 'http://localhost:3001/demo-images/leading-teams.svg');
    t.is(moved.urls.at(-1), 'https://cdn.example.com/demo-images/first-aid.svg', "a document of the customer's own stays where it is");
    t.is(await withTenant(ctx.rt.knex, other, (db) => pointDemoPictures(db, 'http://localhost:3001')), 0, 'a second start moves nothing');
  },
);

test('when the first folder to look in has no pictures (the build: dist/seeds/images/ holds only the compiled index), then the pictures are found in the next', async (t) => {
  const built = await fs.mkdtemp(path.join(os.tmpdir(), 'lectern-built-images-'));
  try {
    await fs.writeFile(path.join(built, 'index.js'), '');
    t.is(demoImagesDir([built, path.join(ROOT, 'seeds/images')]), path.join(ROOT, 'seeds/images'));
    t.is(demoImagesDir([built]), undefined);
  } finally {
    await fs.rm(built, { recursive: true, force: true });
  }
});
