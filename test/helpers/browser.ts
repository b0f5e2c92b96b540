import { CookieJar } from 'tough-cookie';
import { request, type HttpResult } from './harness.js';

/**
 * A user at a browser, for the server-rendered pages: real HTTP requests with a cookie jar
 * (tough-cookie, with the browser's rules for domains, paths, Secure and expiry) and the
 * forms of the pages it got, submitted with their hidden fields (the CSRF token). Requests go
 * to 127.0.0.1 with the URL's host in the Host header, so tenant hosts (`acme.localhost`) work.
 */
export class Browser {
  readonly jar = new CookieJar();
  /** The last page received. */
  page: HttpResult | undefined;

  constructor(private readonly port: number) {}

  async send(
    method: string,
    url: string,
    opts: { form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<HttpResult & { location?: string }> {
    const u = new URL(url);
    const cookie = await this.jar.getCookieString(u.toString());
    const rawBody = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
    const res = await request(this.port, {
      method,
      path: u.pathname + u.search,
      host: u.host,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(rawBody !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...opts.headers,
      },
      ...(rawBody !== undefined ? { rawBody } : {}),
    });
    const setCookie = res.headers['set-cookie'] ?? [];
    for (const c of setCookie) await this.jar.setCookie(c, u.toString());
    const location = typeof res.headers.location === 'string' ? new URL(res.headers.location, u).toString() : undefined;
    if (res.status < 300 || res.status >= 400) this.page = res;
    return { ...res, ...(location ? { location } : {}) };
  }

  get(url: string) {
    return this.send('GET', url);
  }

  /** Follows redirects from `url` until a page answers, or the next hop leaves for `stopAt` (a callback). */
  async follow(url: string, stopAt?: string): Promise<{ page: HttpResult; url: string } | { redirect: string }> {
    let next = url;
    for (let hop = 0; hop < 10; hop++) {
      const res = await this.get(next);
      if (!res.location) return { page: res, url: next };
      if (stopAt && res.location.startsWith(stopAt)) return { redirect: res.location };
      next = res.location;
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /**
   * Submits the form of the last page whose action is `action` (or the only/first form), with
   * its hidden fields and `fields`; a form chosen by a hidden field value can be picked with `where`.
   */
  async submit(pageUrl: string, fields: Record<string, string>, opts: { action?: string; where?: Record<string, string> } = {}) {
    const forms = formsOf(this.page?.text ?? '');
    const form = forms.find(
      (f) => (!opts.action || f.action === opts.action) && Object.entries(opts.where ?? {}).every(([k, v]) => f.hidden[k] === v),
    );
    if (!form)
      throw new Error(`no form${opts.action ? ` with action ${opts.action}` : ''} on the last page:\n${this.page?.text.slice(0, 2000)}`);
    return this.send('POST', new URL(form.action, pageUrl).toString(), { form: { ...form.hidden, ...fields } });
  }
}

/** The forms of a page: action and hidden inputs. */
export function formsOf(page: string): { action: string; hidden: Record<string, string> }[] {
  return [...page.matchAll(/<form\b[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)].map((m) => ({
    action: decode(m[1]!),
    hidden: Object.fromEntries(
      [...m[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((h) => [decode(h[1]!), decode(h[2]!)]),
    ),
  }));
}

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
