/**
 * Temporary credentials for the functions on this machine, as Lambda gives a function its role's
 * session: an access key, a secret and a session token that stops working at its expiry. A
 * presigned URL carries the token, so it dies with the session whatever its `X-Amz-Expires`
 * says (S3 user guide, "Sharing objects with presigned URLs": a URL signed with temporary
 * credentials expires when they do); the emulator (./s3.ts) then answers `400 ExpiredToken`,
 * as S3 does.
 *
 * A session lives `LOCAL_SESSION_SECONDS` (default one hour, the longest a chained AssumeRole
 * session may last; tests shorten it) and a function is given a new one once less than half of
 * its current one is left, as AWS renews a role's session before it runs out.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { S3Refusal } from './s3-signature';

export interface SessionCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

/** Default life of a function's session. */
export const DEFAULT_SESSION_SECONDS = 60 * 60;

/** How long a session lives: `seconds`, else LOCAL_SESSION_SECONDS, else an hour. */
export function sessionSecondsFrom(seconds: number | undefined, environment = process.env): number {
  const value = seconds ?? Number(environment.LOCAL_SESSION_SECONDS || DEFAULT_SESSION_SECONDS);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`LOCAL_SESSION_SECONDS must be a positive number of seconds, not ${value}`);
  return value;
}

const mac = (rootSecret: string, name: string, expiresMs: number) =>
  createHmac('sha256', rootSecret).update(`session\n${name}\n${expiresMs}`).digest('base64url');

/** A token for `name`'s session ending at `expiresMs`: only the emulator that holds `rootSecret` makes or checks one. */
export const sessionToken = (rootSecret: string, name: string, expiresMs: number) => `${expiresMs}.${mac(rootSecret, name, expiresMs)}`;

/**
 * Checks the session token a function's request carries, with S3's answers to temporary
 * credentials: none is `403 InvalidAccessKeyId` (a temporary key means nothing without its
 * token), a forged one `400 InvalidToken`, one past its expiry `400 ExpiredToken`.
 */
export function checkSessionToken(rootSecret: string, name: string, token: string | undefined, now = Date.now()): void {
  if (!token) throw new S3Refusal('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', 403);
  const [expires = '', given = ''] = token.split('.');
  const expiresMs = Number(expires);
  const expected = Buffer.from(mac(rootSecret, name, expiresMs));
  const ok = /^\d+$/.test(expires) && Buffer.byteLength(given) === expected.length && timingSafeEqual(Buffer.from(given), expected);
  if (!ok) throw new S3Refusal('InvalidToken', 'The provided token is malformed or otherwise invalid.', 400);
  if (now >= expiresMs) throw new S3Refusal('ExpiredToken', 'The provided token has expired.', 400);
}

/** Each function's current session, renewed once less than half of it is left. */
export class Sessions {
  private readonly current = new Map<string, SessionCredentials>();

  constructor(
    private readonly rootSecret: string,
    private readonly keyOf: (name: string) => { accessKeyId: string; secretAccessKey: string },
    private readonly seconds: number,
  ) {}

  of(name: string, now = Date.now()): SessionCredentials {
    const session = this.current.get(name);
    if (session && session.expiration.getTime() - now > (this.seconds * 1000) / 2) return session;
    const expiresMs = now + Math.round(this.seconds * 1000);
    const fresh = { ...this.keyOf(name), sessionToken: sessionToken(this.rootSecret, name, expiresMs), expiration: new Date(expiresMs) };
    this.current.set(name, fresh);
    return fresh;
  }
}
