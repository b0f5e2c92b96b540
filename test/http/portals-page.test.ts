import test from 'ava';
import { Browser } from '../helpers/browser.js';
import { hex } from '../helpers/harness.js';
import { PASSWORD, restFixture, type RestFixture } from '../helpers/rest.js';

/**
 * The Control Panel's Portals page as an administrator reads it: its examples are names anyone may
 * use (example.com), not another company's, and a refused address is explained in the words of the
 * form (its field is "Website address"), saying what to type.
 */
let f: RestFixture;
let host: string;
let b: Browser;
const section = '/control-panel/portals';

test.serial.before(async () => {
  f = await restFixture('ppg');
  host = `http://${f.tenant.slug}.localhost:${f.port}`;
  b = new Browser(f.port);
  const landed = await b.follow(`${host}${section}`);
  if (!('page' in landed)) throw new Error('expected the sign-in page');
  await b.submit(landed.url, { email: f.email, password: PASSWORD });
});
test.after.always(async () => f?.close());

/** The text of a page without its markup (what a reader sees). */
const textOf = (page: string) =>
  page
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

test.serial("when the page is shown, then its example addresses are example.com's, not another company's", async (t) => {
  const page = await b.get(`${host}${section}`);
  t.is(page.status, 200);
  t.notRegex(page.text, /administrateweblink/i);
  t.regex(textOf(page.text), /such as www\.example\.com or courses\.example\.com/);
  t.regex(page.text, /<label for="domain">Website address<\/label>/);
});

test.serial(
  'when the address is refused, then the error names the field as labelled and says what to type; the typed text stays',
  async (t) => {
    for (const typed of ['courses.example.com:8443', 'https://courses.example.com/catalogue', 'courses', 'my site.example']) {
      const refused = await b.submit(`${host}${section}`, { domain: typed }, { action: section });
      t.is(refused.status, 400, typed);
      const alert = textOf(/<p class="error" role="alert">([\s\S]*?)<\/p>/.exec(refused.text)?.[1] ?? '').trim();
      t.regex(alert, /^Website address: type the website's host name, such as courses\.example\.com/, typed);
      t.regex(alert, /no port and nothing after the name/, typed);
      t.notRegex(alert, /\bdomain\b/i, `${typed}: the form has no field called domain`);
      t.regex(refused.text, new RegExp(`id="domain" name="domain"[^>]*value="${typed.replace(/[.:/]/g, '\\$&')}"[^>]*aria-invalid="true"`));
    }
    // What the error says works does work: a pasted address of the site.
    const domain = `courses-${hex(3)}.example.com`;
    const added = await b.submit(`${host}${section}`, { domain: `https://${domain}/` }, { action: section });
    t.is(added.status, 200, added.text);
    t.regex(textOf(added.text), new RegExp(`${domain.replace(/\./g, '\\.')} is a portal of this instance now`));
    t.notRegex(added.text, /aria-invalid/);
  },
);
