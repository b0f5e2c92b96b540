import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com), so a receiver can check a
 * delivery with any of that project's libraries: `webhook-id`, `webhook-timestamp` (seconds) and
 * `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256>`.
 */

const PREFIX = 'whsec_';

/** The three headers Lectern adds to every delivery. */
export type SignatureHeaders = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

/**
 * A new per-webhook signing secret: `whsec_` and the base64 of 32 random bytes (the spec asks for
 * 24 to 64). Shown to the webhook's owner once, at create or rotation.
 */
export function newSigningSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/**
 * The Standard Webhooks headers for one delivery attempt.
 *
 * @param secrets every secret that is valid now, newest last or first: during a rotation's overlap
 *   a receiver that still holds the old secret and one that already has the new one both verify.
 * @param msgId stable across retries of the same delivery, so a receiver can drop duplicates.
 * @param timestamp when this attempt is sent (receivers refuse ones more than about 5 minutes off).
 * @param body the exact bytes sent, as a string: any re-serialisation breaks the signature.
 * @throws Error for no secret, a malformed secret, id or timestamp: a caller's bug, and sending
 *   such a delivery unsigned would be worse than not sending it.
 */
export function signatureHeaders(secrets: readonly string[], msgId: string, timestamp: Date, body: string): SignatureHeaders {
  if (secrets.length === 0) throw new Error('signatureHeaders: no signing secret given');
  // The id is a header value and part of the signed content: visible ASCII only.
  if (!/^[\x21-\x7e]{1,256}$/.test(msgId)) throw new Error('signatureHeaders: the webhook id must be 1-256 visible ASCII characters');
  const ms = timestamp.getTime();
  if (!Number.isFinite(ms)) throw new Error('signatureHeaders: the timestamp is not a valid date');
  const seconds = String(Math.floor(ms / 1000));
  const signed = `${msgId}.${seconds}.${body}`;
  const signatures = secrets.map((secret) => `v1,${createHmac('sha256', secretBytes(secret)).update(signed, 'utf8').digest('base64')}`);
  return { 'webhook-id': msgId, 'webhook-timestamp': seconds, 'webhook-signature': signatures.join(' ') };
}

/** The key bytes of a `whsec_` secret, strictly: Buffer's base64 decoder skips junk silently. */
function secretBytes(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error('signatureHeaders: a signing secret must start with whsec_');
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new Error('signatureHeaders: a signing secret must be whsec_ followed by base64');
  }
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length < 24 || bytes.length > 64)
    throw new Error(`signatureHeaders: a signing secret must be 24 to 64 bytes, not ${bytes.length}`);
  return bytes;
}
