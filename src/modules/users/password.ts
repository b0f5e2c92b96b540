import crypto from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** argon2id with the library's defaults (about 44 ms per verification on these machines). */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

export const MIN_PASSWORD_LENGTH = 10;

// A real argon2id hash of a random string, made once, to spend equal time on unknown users.
let dummyHash: Promise<string> | undefined;

/**
 * Verifies a password against a stored hash; with no hash (no such user) it still runs one
 * real verification, so timing does not tell which emails exist.
 */
export async function verifyPasswordOrDummy(passwordHash: string | null | undefined, password: string): Promise<boolean> {
  if (!passwordHash) {
    dummyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
    await verifyPassword(await dummyHash, password);
    return false;
  }
  return verifyPassword(passwordHash, password);
}
