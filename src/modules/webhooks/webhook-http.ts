import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, errors as undiciErrors, request } from 'undici';

/**
 * The outbound HTTP side of webhooks: one POST of a JSON body to a receiver's URL, with the SSRF
 * guard applied where it cannot be walked around (at connect time, to the addresses the socket is
 * about to use), bounded in time and in how much of the answer it reads, and never throwing for
 * anything a receiver or the network does: every such case is a {@link DeliveryOutcome}.
 */

/**
 * Which otherwise-refused destinations the operator allows (the webhook allowlist setting,
 * parsed by {@link parseAllowance}). Public unicast addresses are always allowed; everything
 * else (private, loopback, link-local and cloud metadata, CGNAT, multicast, reserved, and IPv6
 * forms that embed one of those) is refused unless listed here.
 *
 * - `loopback`: allow 127.0.0.0/8 and ::1 (and ::ffff:127.x). The embedded default (`npm start`
 *   without DATABASE_URL) and the tests set it; production should not. `0.0.0.0` and `::` stay
 *   refused, although Linux routes them to the local host: allow them by CIDR if ever needed.
 * - `cidrs`: ranges in CIDR form (`10.1.0.0/16`, `fd00:1::/32`) to allow, e.g. a receiver inside
 *   the operator's own network. An IPv4-mapped IPv6 address matches its IPv4 range.
 */
export type AddressAllowance = { readonly loopback: boolean; readonly cidrs: readonly string[] };

/** How one delivery attempt is made. */
export type SenderOptions = {
  /** The whole attempt: connect, send, and wait for the status line (10 000 in production). */
  timeoutMs: number;
  allow: AddressAllowance;
  /** The resolver, `dns.lookup` by default; tests pass a stub so names resolve without DNS. */
  lookup?: LookupFunction;
  /** Reading stops (and the connection is closed) after this many bytes of the answer; 64 KiB. */
  maxResponseBytes?: number;
  /** How much of the answer is kept as {@link DeliveryOutcome.responseExcerpt}; 1 KiB. */
  keepBytes?: number;
};

/** What one attempt came to. Never thrown: the caller stores it and decides on retries. */
export type DeliveryOutcome = {
  /** A 2xx status. */
  ok: boolean;
  /** The receiver's status, or null when none arrived (refused, bad URL, network error, timeout). */
  status: number | null;
  durationMs: number;
  /** The first `keepBytes` of the answer as UTF-8 text (a character cut in two is dropped, a NUL is U+FFFD). */
  responseExcerpt: string | null;
  /** One line saying why it failed, for the delivery log; null when ok. */
  error: string | null;
  /**
   * Worth another attempt: a network error, a timeout or any non-2xx but 410. A 410 asks for the
   * webhook to be disabled; a refused address or a bad URL will not change by waiting.
   */
  retryable: boolean;
};

const USER_AGENT = 'Lectern-Webhooks/1';
const REFUSED = 'ERR_WEBHOOK_ADDRESS_REFUSED';

/** Thrown inside the connector and lookup so undici fails the request before any socket connects. */
class AddressRefusedError extends Error {
  readonly code = REFUSED;
}

// ---------------------------------------------------------------------------------------------
// Address policy

const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
// ::/96 (IPv4-compatible, RFC 4291 deprecated): ipaddr.js calls all but :: and ::1 'unicast'.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

const V4_REASONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  private: 'a private address',
};
const V6_REASONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  loopback: 'a loopback address',
  uniqueLocal: 'a private (unique local) address',
  deprecatedSiteLocal: 'a reserved (deprecated site-local) address',
};

/**
 * Why `address` may not be connected to under `allow`, as one line ("refused: 10.0.0.5 is a
 * private address"), or null when it may. Also refuses anything that is not a plain IPv4 or IPv6
 * address, so a caller cannot pass a name by mistake.
 */
export function addressRefusal(address: string, allow: AddressAllowance): string | null {
  if (net.isIP(address) === 0) return `refused: "${address}" is not an IP address`;
  const why = reasonFor(ipaddr.parse(address), allow);
  return why === null ? null : `refused: ${address} is ${why}`;
}

/** The kind of refused address ("a private address"), or null when allowed. */
function reasonFor(ip: ipaddr.IPv4 | ipaddr.IPv6, allow: AddressAllowance): string | null {
  if (inAllowedCidr(ip, allow.cidrs)) return null;
  if (ip.kind() === 'ipv4') {
    const range = ip.range();
    if (range === 'unicast' || (range === 'loopback' && allow.loopback)) return null;
    if (range === 'linkLocal' && ip.toString() === '169.254.169.254') return 'a link-local address (cloud metadata)';
    return V4_REASONS[range] ?? 'a reserved address';
  }
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range() as string; // the typings miss some names the library returns
  const bytes = v6.toByteArray();
  switch (range) {
    case 'unicast':
      return v6.match(IPV4_COMPATIBLE) ? 'an IPv4-compatible IPv6 address (deprecated)' : null;
    case 'loopback':
      return allow.loopback ? null : V6_REASONS.loopback!;
    // Forms that carry an IPv4 address and can reach it: judged by that address.
    case 'ipv4Mapped':
      return embedded('an IPv4-mapped address', bytes.slice(12, 16), allow);
    case 'rfc6145':
      return embedded('an IPv4-translated address', bytes.slice(12, 16), allow);
    case 'rfc6052':
      return v6.match(NAT64_WELL_KNOWN) ? embedded('a NAT64 address', bytes.slice(12, 16), allow) : 'a local-use NAT64 address';
    case '6to4':
      return embedded('a 6to4 address', bytes.slice(2, 6), allow);
    case 'teredo':
      // The client's IPv4 address is stored inverted (RFC 4380).
      return embedded(
        'a Teredo address',
        bytes.slice(12, 16).map((b) => b ^ 0xff),
        allow,
      );
    default:
      return V6_REASONS[range] ?? 'a reserved address';
  }
}

function embedded(form: string, v4bytes: number[], allow: AddressAllowance): string | null {
  const inner = ipaddr.fromByteArray(v4bytes);
  const why = reasonFor(inner, allow);
  return why === null ? null : `${form} of ${inner.toString()}, ${why}`;
}

function inAllowedCidr(ip: ipaddr.IPv4 | ipaddr.IPv6, cidrs: readonly string[]): boolean {
  for (const cidr of cidrs) {
    const range = ipaddr.parseCIDR(cidr);
    // match() throws across families, so compare like with like.
    if (range[0].kind() === ip.kind() && ip.match(range)) return true;
  }
  return false;
}

/**
 * Reads the allowlist setting: comma-separated entries, each `loopback`, a CIDR (`10.1.0.0/16`,
 * `fd00:1::/32`) or a single address (taken as /32 or /128); blanks and `none` are ignored, so an
 * empty setting allows nothing beyond public addresses.
 *
 * @throws Error naming the first bad entry, for config validation at boot.
 */
export function parseAllowance(spec: string): AddressAllowance {
  let loopback = false;
  const cidrs: string[] = [];
  for (const raw of spec.split(',')) {
    const entry = raw.trim();
    if (entry === '' || entry.toLowerCase() === 'none') continue;
    if (entry.toLowerCase() === 'loopback') {
      loopback = true;
      continue;
    }
    const [address = '', bits, ...rest] = entry.split('/');
    const family = net.isIP(address); // strict: no "10.0.0" or hex shorthands
    const max = family === 4 ? 32 : 128;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (family === 0 || rest.length > 0 || !(prefix >= 0 && prefix <= max)) {
      throw new Error(
        `webhook address allowance: bad entry "${entry}": expected "loopback" or a CIDR such as 10.1.0.0/16 or fd00::/8, comma-separated`,
      );
    }
    cidrs.push(`${address}/${prefix}`);
  }
  return { loopback, cidrs };
}

// ---------------------------------------------------------------------------------------------
// The guarded connection

/**
 * Wraps the resolver so that every address a name resolves to is checked before the socket may
 * use it. One refused address refuses the name: falling through to the others would let a DNS
 * answer mixing public and private addresses steer some attempts inside.
 */
function guardedLookup(resolve: LookupFunction, allow: AddressAllowance): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, result, family) => {
      if (err) return callback(err, '', 0);
      const list: dns.LookupAddress[] =
        typeof result === 'string' ? [{ address: result, family: family ?? net.isIP(result) }] : Array.isArray(result) ? result : [];
      if (list.length === 0) {
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND', hostname }), '', 0);
      }
      for (const { address } of list) {
        const why = net.isIP(address) === 0 ? 'not an IP address' : reasonFor(ipaddr.parse(address), allow);
        // The name, not what it resolved to: the address would tell an integrator what the
        // service's own DNS knows (internal names mapped to internal addresses).
        if (why !== null) return callback(new AddressRefusedError(`refused: ${hostname} resolves to ${why}`), '', 0);
      }
      const first = list[0]!;
      if (options.all) callback(null, list);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * undici's connector with the guard in front: a literal IP host never reaches the resolver (net
 * connects to it directly), so it is checked here; names are checked in the lookup above.
 */
function guardedConnector(allow: AddressAllowance, lookup: LookupFunction, timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs, lookup: guardedLookup(lookup, allow) });
  return (options, callback) => {
    if (net.isIP(options.hostname) !== 0) {
      const refusal = addressRefusal(options.hostname, allow);
      if (refusal !== null) {
        process.nextTick(() => callback(new AddressRefusedError(refusal), null));
        return;
      }
    }
    connect(options, callback);
  };
}

// One pooled Agent per distinct (allowance, resolver, timeout): in production that is one per
// process, and a pooled socket was checked under the same allowance it is reused for.
const agents = new Map<string, Agent>();
const lookupIds = new WeakMap<LookupFunction, number>();
let nextLookupId = 0;
const systemLookup = dns.lookup as unknown as LookupFunction; // its overloads include this shape

function agentFor(allow: AddressAllowance, lookup: LookupFunction, timeoutMs: number): Agent {
  let id = lookupIds.get(lookup);
  if (id === undefined) lookupIds.set(lookup, (id = nextLookupId++));
  const key = JSON.stringify([allow.loopback, [...allow.cidrs].sort(), id, timeoutMs]);
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      connect: guardedConnector(allow, lookup, timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    agents.set(key, agent);
  }
  return agent;
}

/** Closes the pooled connections (at worker shutdown, and after tests). */
export async function closeWebhookAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close()));
}

// ---------------------------------------------------------------------------------------------
// One delivery

/**
 * POSTs `body` as JSON to `url` once and says how it went. Redirects are not followed (a 3xx is a
 * failed, retryable attempt); at most `maxResponseBytes` of the answer are read and `keepBytes`
 * kept. When the status line arrived in time, the status decides the outcome even if the body
 * then stalls: the body is only kept for the log, and the wait still ends at `timeoutMs`.
 *
 * @param headers sent as given (names are case-insensitive), except that `content-type` is
 *   always `application/json` and `user-agent` is Lectern's.
 * @throws only for a caller's bug: bad options or a header value undici refuses (e.g. CR/LF).
 */
export async function deliverJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: SenderOptions,
): Promise<DeliveryOutcome> {
  const { timeoutMs, allow, lookup = systemLookup, maxResponseBytes = 64 * 1024, keepBytes = 1024 } = opts;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0))
    throw new TypeError(`deliverJson: timeoutMs must be a positive number, not ${timeoutMs}`);
  if (!(Number.isInteger(maxResponseBytes) && Number.isInteger(keepBytes) && keepBytes >= 0 && maxResponseBytes >= keepBytes)) {
    throw new TypeError('deliverJson: keepBytes and maxResponseBytes must be integers with 0 <= keepBytes <= maxResponseBytes');
  }
  if (typeof body !== 'string') throw new TypeError('deliverJson: body must be the serialised JSON string');

  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string, retryable: boolean): DeliveryOutcome => ({
    ok: false,
    status: null,
    durationMs: elapsed(),
    responseExcerpt: null,
    error,
    retryable,
  });

  const target = parseTarget(url);
  if (typeof target === 'object') return failed(target.error, false);

  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) sent[name.toLowerCase()] = value;
  sent['content-type'] = 'application/json';
  sent['user-agent'] = USER_AGENT;

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('webhook delivery deadline')), timeoutMs);
  try {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(target, {
        method: 'POST',
        headers: sent,
        body,
        dispatcher: agentFor(allow, lookup, timeoutMs),
        signal: deadline.signal,
      });
    } catch (err) {
      if (err instanceof undiciErrors.InvalidArgumentError) throw err;
      if (deadline.signal.aborted) return failed(`timed out after ${formatMs(timeoutMs)} waiting for the response`, true);
      const refused = findRefusal(err);
      if (refused) return failed(refused, false);
      return failed(describeNetworkError(err, timeoutMs), true);
    }
    const status = response.statusCode;
    const excerpt = await readExcerpt(response.body, maxResponseBytes, keepBytes);
    const ok = status >= 200 && status < 300;
    return {
      ok,
      status,
      durationMs: elapsed(),
      responseExcerpt: excerpt,
      error: ok ? null : describeStatus(status, response.headers.location),
      retryable: !ok && status !== 410,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** The URL to request (fragment dropped), or why it is not one Lectern sends to. */
function parseTarget(url: string): string | { error: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The URL itself is not repeated: it may hold a token.
    return { error: 'bad URL: not an absolute URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { error: `bad URL: only http and https are sent to, not ${parsed.protocol}` };
  }
  if (parsed.username !== '' || parsed.password !== '') return { error: 'bad URL: credentials in the URL are not supported' };
  return `${parsed.origin}${parsed.pathname}${parsed.search}`;
}

/**
 * Reads up to `maxBytes` of the body, keeps the first `keepBytes` as text, and destroys the stream
 * (closing the connection) if there is more. A read that fails or hits the deadline part-way ends
 * the excerpt there: the status has already decided the outcome.
 */
async function readExcerpt(body: Readable, maxBytes: number, keepBytes: number): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let read = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (keptBytes < keepBytes) {
        const part = chunk.subarray(0, keepBytes - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      read += chunk.length;
      if (read >= maxBytes) break; // leaving the loop destroys the stream and its socket
    }
  } catch {
    // aborted or reset mid-body: keep what arrived
  } finally {
    if (!body.destroyed) body.destroy();
  }
  // StringDecoder holds back a trailing partial character instead of emitting U+FFFD. A NUL (a
  // binary answer) becomes U+FFFD too: PostgreSQL text cannot hold it, and recording the attempt
  // would fail after the receiver took the delivery, so it would be sent again and again.
  return new StringDecoder('utf8').write(Buffer.concat(kept)).replaceAll('\u0000', '\ufffd');
}

function describeStatus(status: number, location: string | string[] | undefined): string {
  if (status === 410) return 'HTTP 410 Gone: the receiver asks for this webhook to be disabled';
  if (status >= 300 && status < 400) {
    const to = typeof location === 'string' ? ` to ${oneLine(location).slice(0, 200)}` : '';
    return `HTTP ${status}: a redirect${to}, not followed`;
  }
  return `HTTP ${status}`;
}

function findRefusal(err: unknown): string | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === REFUSED) return e.message;
  }
  return null;
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  EPIPE: 'connection closed by the receiver while sending',
  UND_ERR_SOCKET: 'connection closed by the receiver before it answered',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EAI_AGAIN: 'DNS lookup failed for now (EAI_AGAIN)',
};

/** One line for a failure before a status arrived. */
function describeNetworkError(err: unknown, timeoutMs: number): string {
  const e = err instanceof Error ? err : new Error(String(err));
  const code = String((e as { code?: unknown }).code ?? (e.cause as { code?: unknown } | undefined)?.code ?? '');
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `timed out after ${formatMs(timeoutMs)} connecting`;
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return `timed out after ${formatMs(timeoutMs)} waiting for the response`;
  if (code === 'ENOTFOUND') return `DNS: ${String((e as { hostname?: unknown }).hostname ?? 'the host')} not found`;
  const known = NETWORK_ERRORS[code];
  if (known) return known;
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) return `TLS: ${oneLine(e.message)}`;
  if (code.startsWith('HPE_')) return `invalid HTTP response: ${oneLine(e.message)}`;
  return oneLine(code ? `${code}: ${e.message}` : e.message);
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
