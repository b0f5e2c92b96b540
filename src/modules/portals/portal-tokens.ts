import crypto from 'node:crypto';

/**
 * Portal tokens: stateless bearer tokens a portal's website gets from `POST /portal/guest` and
 * sends with its WebLink requests. A token says which portal and instance it is for and until
 * when, signed with HMAC-SHA256 under PORTAL_TOKEN_SECRET (the newest key signs, every listed
 * key verifies, so keys rotate without signing websites out). Nothing is stored: a token is
 * checked by its signature and expiry, and the portal it names must still exist (the caller
 * looks it up), so removing a portal ends its tokens.
 *
 * Form: `lpt_<payload>.<signature>`, both base64url; the payload is `{"p":portal,"t":tenant,"exp":unix seconds}`.
 */

/** Two hours: websites (the WordPress plugin assumes 60 minutes) ask again well before that. */
export const PORTAL_TOKEN_TTL_SECONDS = 2 * 3600;

const PREFIX = 'lpt_';

export interface PortalTokenClaims {
  portalId: number;
  tenantId: number;
  /** Unix seconds. */
  expiresAt: number;
}

const mac = (key: string, signed: string) => crypto.createHmac('sha256', key).update(signed).digest();

/** A token for a portal, valid for {@link PORTAL_TOKEN_TTL_SECONDS} from `now` (ms). */
export function signPortalToken(
  keys: readonly string[],
  portal: { portalId: number; tenantId: number },
  now = Date.now(),
): { token: string; claims: PortalTokenClaims } {
  const claims = { ...portal, expiresAt: Math.floor(now / 1000) + PORTAL_TOKEN_TTL_SECONDS };
  const signed = `${PREFIX}${Buffer.from(JSON.stringify({ p: claims.portalId, t: claims.tenantId, exp: claims.expiresAt })).toString('base64url')}`;
  return { token: `${signed}.${mac(keys[0]!, signed).toString('base64url')}`, claims };
}

export type PortalTokenCheck = { ok: true; claims: PortalTokenClaims } | { ok: false; reason: 'invalid' | 'expired' };

/** The claims of a token signed with one of `keys` and not expired at `now` (ms). */
export function verifyPortalToken(keys: readonly string[], token: string, now = Date.now()): PortalTokenCheck {
  const dot = token.lastIndexOf('.');
  if (!token.startsWith(PREFIX) || dot < 0 || token.length > 512) return { ok: false, reason: 'invalid' };
  const signed = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  if (
    !keys.some((key) => {
      const expected = mac(key, signed);
      return given.length === expected.length && crypto.timingSafeEqual(given, expected);
    })
  ) {
    return { ok: false, reason: 'invalid' };
  }
  let payload: { p?: unknown; t?: unknown; exp?: unknown };
  try {
    payload = JSON.parse(Buffer.from(signed.slice(PREFIX.length), 'base64url').toString('utf8')) as typeof payload;
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  const { p, t, exp } = payload;
  if (!Number.isSafeInteger(p) || !Number.isSafeInteger(t) || !Number.isSafeInteger(exp)) return { ok: false, reason: 'invalid' };
  if ((exp as number) * 1000 <= now) return { ok: false, reason: 'expired' };
  return { ok: true, claims: { portalId: p as number, tenantId: t as number, expiresAt: exp as number } };
}
