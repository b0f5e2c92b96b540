import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import test from 'ava';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { seedDemoContent, type DemoCatalogue } from '../../seeds/demo.js';
import { addPortal } from '../../src/modules/portals/portals.service.js';
import { platformBaseUrl } from '../../src/platform/config.js';
import { freePort } from '../../src/platform/util/net.js';
import { withTenant } from '../../src/platform/tenancy/with-tenant.js';
import { hex, ROOT, setupTestRuntime, startTestApp, type TestContext } from '../helpers/harness.js';

/**
 * The WebLink example page (examples/weblink/) in a real browser, as a training company would put
 * it on its own site: served from another origin by a static server, it gets a guest token for
 * its portal from Lectern, asks the catalogue and the events through the portal, and shows the
 * demo catalogue (names, images, prices, dates); the language switch asks again in French. The
 * pictures are the demo's own, served by Lectern (/demo-images/) and loaded for real.
 * `npm run test:browser`; CHROMIUM_PATH names the browser (default /usr/bin/chromium);
 * WEBLINK_SCREENSHOT=<file.png> saves the catalogue as the page shows it.
 */
let ctx: TestContext;
let app: { port: number; close(): Promise<void> };
let site: http.Server;
let pageUrl: string;
let browser: Browser;
let catalogue: DemoCatalogue;
const domain = `www.demo-${hex(3)}.test`;

const FILES: Record<string, string> = { '/index.html': 'text/html; charset=utf-8', '/app.js': 'text/javascript; charset=utf-8' };

test.serial.before(async () => {
  ctx = await setupTestRuntime();
  const tenant = await ctx.freshTenant('wlx');
  // The pictures at the address this test's Lectern answers on (its platform address), as npm start seeds them.
  catalogue = await withTenant(ctx.rt.knex, tenant, (db) => seedDemoContent(db, new Date(), platformBaseUrl(ctx.rt.config)));
  await addPortal(ctx.rt.knex, tenant, { domain });
  app = await startTestApp(ctx.rt);
  // The training company's own web server: the example's files as they are, nothing else.
  const sitePort = await freePort();
  site = http
    .createServer((req, res) => {
      const file = new URL(req.url ?? '/', 'http://site').pathname;
      const type = FILES[file === '/' ? '/index.html' : file];
      if (!type) return void res.writeHead(404).end();
      void fs.readFile(path.join(ROOT, 'examples/weblink', file === '/' ? 'index.html' : file)).then(
        (body) => res.writeHead(200, { 'content-type': type }).end(body),
        () => res.writeHead(500).end(),
      );
    })
    .listen(sitePort, '127.0.0.1');
  // Another origin than Lectern's: the page calls the API cross-origin, as a real site does.
  pageUrl = `http://127.0.0.1:${sitePort}/index.html?api=${encodeURIComponent(`http://localhost:${app.port}`)}&portal=${domain}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
test.after.always(async () => {
  await browser?.close();
  site?.close();
  await app?.close();
  await ctx?.cleanup();
});

const DAYS = { en: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'], fr: ['lun.', 'mar.', 'mer.', 'jeu.', 'ven.', 'sam.', 'dim.'] };
const MONTHS = {
  en: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
  fr: ['janv.', 'févr.', 'mars', 'avr.', 'mai', 'juin', 'juil.', 'août', 'sept.', 'oct.', 'nov.', 'déc.'],
};

/** A seeded local date-time ("2027-01-12T09:00:00") as the page writes its day: "Tue 12 Jan 2027". */
function day(localDateTime: string, lang: 'en' | 'fr'): string {
  const [y, m, d] = localDateTime.slice(0, 10).split('-').map(Number) as [number, number, number];
  const weekday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
  return `${DAYS[lang][weekday]} ${d} ${MONTHS[lang][m - 1]} ${y}`;
}

/** Opens the page (the company's site's copy unless told) and waits for the catalogue. */
async function open(url = pageUrl): Promise<{ page: Page; requests: Request[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  const requests: Request[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/weblink/graphql') && r.method() === 'POST') requests.push(r);
  });
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await settled(page, 'en');
  return { page, requests };
}

/** Waits until the page shows the catalogue in `lang`, or fails with the error it shows. */
async function settled(page: Page, lang: 'en' | 'fr'): Promise<void> {
  await page.waitForSelector(`body[data-lang="${lang}"][data-state="ready"], body[data-state="error"]`, { timeout: 30_000 });
  const state = await page.locator('body').getAttribute('data-state');
  if (state !== 'ready') throw new Error(`the page shows an error: ${await page.locator('#error').textContent()}`);
}

const card = (page: Page, name: string) => page.locator('li.item', { has: page.getByRole('heading', { name, exact: true }) });

test.serial(
  'when the page opens, then it lists the demo catalogue by name with images, £ prices and the dates of each course',
  async (t) => {
    const { page, requests } = await open();
    const names = [...catalogue.courses.map((c) => c.title), ...catalogue.learningPaths.map((p) => p.name)];
    const shown = await page.locator('li.item h2').allTextContents();
    t.deepEqual([...shown].sort(), [...names].sort());
    t.deepEqual(
      shown,
      [...names].sort((a, b) => a.localeCompare(b, 'en')),
      'ordered by name, as the plugin asks',
    );
    t.is(await page.locator('li.item[data-type="LearningPath"]').count(), catalogue.learningPaths.length);

    // Through the portal, as the website plugins call it.
    t.true(requests.length >= 2);
    for (const r of requests) {
      const headers = await r.allHeaders();
      t.regex(headers.authorization ?? '', /^Bearer \S+/);
      t.is(headers['weblink-portal'], domain);
      t.is(headers['weblink-content-locale'], undefined);
    }

    const faw = card(page, 'First Aid at Work');
    t.is(await faw.locator('.price').textContent(), '£395');
    const image = faw.locator('img');
    t.is(await image.getAttribute('src'), `http://localhost:${app.port}/demo-images/first-aid.svg`);
    // Every card's picture loads from Lectern: decode() resolves once an image is there and
    // rejects for a broken one; a drawn picture has its size (800 by 350).
    const images = page.locator('li.item img');
    t.is(await images.count(), names.length, 'a picture on every card');
    for (const img of await images.all()) {
      await img.scrollIntoViewIfNeeded();
      const size = await img.evaluate(async (el) => {
        const picture = el as unknown as { decode(): Promise<void>; naturalWidth: number; naturalHeight: number; src: string };
        await picture.decode();
        return { src: picture.src, width: picture.naturalWidth, height: picture.naturalHeight };
      });
      t.regex(size.src, new RegExp(`^http://localhost:${app.port}/demo-images/[a-z-]+\\.svg$`));
      t.deepEqual([size.width, size.height], [800, 350], size.src);
    }
    if (process.env.WEBLINK_SCREENSHOT) {
      await page.locator('h1').scrollIntoViewIfNeeded();
      await page.screenshot({ path: process.env.WEBLINK_SCREENSHOT, fullPage: true });
    }
    t.regex((await faw.locator('.teaser').textContent())!, /qualified first aider/);
    // The seeded FAW event has 4 of its 12 places booked.
    t.regex((await faw.locator('.dates').textContent())!, /8 places left/);
    t.is(await card(page, 'Manual Handling Essentials').locator('.price').textContent(), '€140');
    t.is(await card(page, 'New Manager Bundle').locator('.price').textContent(), '£1,495');
    t.is(await card(page, 'Workplace Safety Pathway').locator('.price').textContent(), '£299');

    for (const course of catalogue.courses) {
      const dates = card(page, course.title).locator('.dates li');
      t.is(await dates.count(), course.events.length, `${course.code}: one line per event`);
      const text = (await dates.allTextContents()).join('\n');
      const symbol = course.price.currency === 'EUR' ? '€' : '£';
      for (const e of course.events) {
        t.true(text.includes(day(e.start, 'en')), `${course.code}: ${e.code} on ${day(e.start, 'en')} in\n${text}`);
        t.true(
          text.includes(`${symbol}${Number(e.amount).toLocaleString('en-GB')}`),
          `${course.code}: ${e.code} at ${e.amount} in\n${text}`,
        );
      }
    }
    const online = catalogue.courses.flatMap((c) => c.events).find((e) => e.deliveryMethod === 'lms')!;
    t.regex(
      (await page
        .locator(`li[data-event] >> text=${day(online.start, 'en')}`)
        .first()
        .textContent())!,
      /^Online: from /,
    );
    await page.context().close();
  },
);

test.serial(
  'when the visitor switches to French, then the page asks with weblink-content-locale and shows the French names, prices and dates',
  async (t) => {
    const { page, requests } = await open();
    await page.getByRole('button', { name: 'Français' }).click();
    await settled(page, 'fr');
    t.is(await page.locator('html').getAttribute('lang'), 'fr');
    t.is(await page.locator('h1').textContent(), 'Nos formations');

    const french = requests.slice(-2);
    for (const r of french) t.is((await r.allHeaders())['weblink-content-locale'], Buffer.from('Locale:3').toString('base64'));

    const shown = await page.locator('li.item h2').allTextContents();
    t.true(shown.includes('Secourisme d’urgence au travail'), shown.join(' | '));
    t.true(shown.includes('Pack nouveau manager'), shown.join(' | '));
    t.true(shown.includes('Diriger des équipes'), shown.join(' | '));
    // Not translated: the authored English name.
    t.true(shown.includes('First Aid at Work'), shown.join(' | '));
    t.false(shown.includes('Emergency First Aid at Work'));

    const efaw = catalogue.courses.find((c) => c.code === 'EFAW')!;
    const efawCard = card(page, 'Secourisme d’urgence au travail');
    t.is(await efawCard.locator('.price').textContent(), '120\u00a0£');
    t.true((await efawCard.locator('.dates').textContent())!.includes(day(efaw.events[0]!.start, 'fr')));
    await page.getByRole('button', { name: 'English' }).click();
    await settled(page, 'en');
    t.true((await page.locator('li.item h2').allTextContents()).includes('Emergency First Aid at Work'));
    await page.context().close();
  },
);

test.serial('when Lectern serves the page and no api is given, then the page calls the Lectern that served it', async (t) => {
  // The landing page's link carries ?api=; an address typed by hand (another port than npm start's) has none.
  const lectern = `http://localhost:${app.port}`;
  const { page, requests } = await open(`${lectern}/examples/weblink/?portal=${domain}`);
  t.true(requests.length >= 1);
  for (const r of requests) t.true(r.url().startsWith(`${lectern}/weblink/graphql`), r.url());
  t.true((await page.locator('li.item h2').count()) > 0);
});
