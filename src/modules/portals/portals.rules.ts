import { domainToASCII } from 'node:url';
import { problem, type Problem } from '../../platform/problems.js';

/**
 * What a portal's domain may be: a host name as a browser sends it in `Host` and a WebLink
 * client in `weblink-portal` (RFC 1123 labels: letters, digits and inner hyphens, 1-63 each,
 * at most 253 characters, at least two labels, a top-level label that is not all digits, so
 * no IP address). What an administrator pastes from the address bar is taken too:
 * `https://Acme.Example/` is `acme.example` (scheme, a trailing slash and a trailing dot
 * dropped, lower-cased, an internationalised name in its ASCII `xn--` form); a port, a path, a
 * query or credentials are refused, since a portal is a whole site.
 */

export const MAX_DOMAIN_LENGTH = 253;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MESSAGE = 'must be a website host name such as courses.example.com (no port or path)';

/** The domain in its stored form, or the problem with it. */
export function normaliseDomain(
  value: unknown,
  field = 'domain',
): { domain: string; problems: [] } | { domain: null; problems: Problem[] } {
  const refuse = (message = `${field} ${MESSAGE}`) => ({ domain: null, problems: [problem(field, value, message)] });
  if (typeof value !== 'string') return refuse(`${field} must be a text`);
  let host = value.trim();
  if (host === '' || host.length > 2 * MAX_DOMAIN_LENGTH) return refuse();
  const scheme = /^https?:\/\//i.exec(host);
  if (scheme) {
    let url: URL;
    try {
      url = new URL(host);
    } catch {
      return refuse();
    }
    const rest = host.slice(scheme[0].length);
    // Only `https://host` or `https://host/`: what URL parsing would quietly drop (a default port, `/./`) is refused too.
    if (url.username || url.password || url.port || url.search || url.hash || !/^[^/?#@:]+\/?$/.test(rest)) return refuse();
    host = rest.replace(/\/$/, '');
  }
  if (/[^A-Za-z0-9.\-\u0080-\uFFFF]/.test(host)) return refuse();
  const ascii = domainToASCII(host.toLowerCase()).replace(/\.$/, '');
  if (!ascii || ascii.length > MAX_DOMAIN_LENGTH) return refuse();
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) return refuse();
  return { domain: ascii, problems: [] };
}
