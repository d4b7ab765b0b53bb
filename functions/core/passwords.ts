/**
 * Share-link passwords (docs/api.md: Share links), kept only as a slow, salted hash: scrypt
 * (RFC 7914) from Node's crypto, which needs no native build on Lambda's arm64 runtime.
 * N = 2^15, r = 8, p = 1: 32 MiB of memory and tens of milliseconds per check
 * (bench/results.md: link password check), so a stolen table costs an attacker the same per
 * guess; online guesses are capped by the link's lock (10 per 15 minutes, ./items/link.ts).
 * The parameters are stored with each hash, so they can be raised for new links later.
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

export interface PasswordHash {
  /** base64 */
  salt: string;
  /** base64 */
  hash: string;
  N: number;
  r: number;
  p: number;
}

export const SCRYPT_PARAMETERS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/** scrypt needs 128 · N · r bytes; Node's default cap (32 MiB) is exactly that, so leave room. */
const maxmem = (N: number, r: number) => 2 * 128 * N * r;

function derive(password: string, salt: Buffer, { N, r, p }: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: maxmem(N, r) };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** The hash to keep of a new password (NFC first, as the contract counts it). */
export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, SCRYPT_PARAMETERS);
  return { salt: salt.toString('base64'), hash: hash.toString('base64'), ...SCRYPT_PARAMETERS };
}

/** Whether `password` is the one `stored` was made of, in constant time. */
export async function passwordMatches(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = await derive(password, Buffer.from(stored.salt, 'base64'), stored);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
