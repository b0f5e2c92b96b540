import crypto from 'node:crypto';

/**
 * Secrets the authorization server hands out: client secrets, authorization codes, access and
 * refresh tokens. Each is 256 random bits with a short prefix naming its kind (so a leaked one
 * is recognisable in logs and secret scanners), and only its SHA-256 is stored.
 */
export type SecretKind = 'client_id' | 'client_secret' | 'code' | 'access_token' | 'refresh_token';

const PREFIX: Record<SecretKind, string> = {
  client_id: 'lc_',
  client_secret: 'lcs_',
  code: 'lac_',
  access_token: 'lat_',
  refresh_token: 'lrt_',
};

export function newSecret(kind: SecretKind): string {
  // Client ids are public identifiers: shorter, still unguessable.
  return PREFIX[kind] + crypto.randomBytes(kind === 'client_id' ? 16 : 32).toString('base64url');
}

export function hashSecret(value: string): string {
  return crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Whether `presented` hashes to `storedHash`, in time that does not depend on where they differ. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
