/**
 * What the sign-in routes (functions/auth/*.ts, deployed with the stack's own Cognito user pool)
 * share: their settings, the sealed cookies, and the calls to Cognito's OAuth 2.0 endpoints.
 *
 * The browser never holds a refresh token in reach of script (OAuth 2.0 for Browser-Based
 * Applications, "token-mediating backend"): the refresh token lives only in a sealed
 * `HttpOnly; Secure; SameSite=Strict` cookie scoped to these routes, and /auth/refresh hands the
 * app an access token, which it keeps in memory.
 *
 * Sealing is a compact JWE (RFC 7516) with `alg: dir`, `enc: A256GCM` made with node:crypto:
 * `jose` is replaced by a stub in every deployed bundle (lib/bundling.ts, `joseStub`), and
 * AES-256-GCM with the protected header as additional data is all a `dir` JWE is (RFC 7518 §5.3).
 * The tests open these cookies with `jose` to prove the format.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { HttpError, problemResponse, unavailable } from '#core/errors';
import { logger } from '#core/logger';

/** The settings the stack gives these functions (lib/stack/documents-stack.ts). */
export interface SignInSettings {
  /** The Cognito domain of the managed login, e.g. `https://docs-123.auth.eu-west-1.amazoncognito.com`. */
  readonly cognitoDomain: string;
  readonly clientId: string;
  /** Where these routes are reached by the browser, e.g. `https://d111.cloudfront.net/api/auth`. */
  readonly authBaseUrl: URL;
}

export function settings(): SignInSettings {
  const { COGNITO_DOMAIN, COGNITO_CLIENT_ID, AUTH_BASE_URL } = process.env;
  if (!COGNITO_DOMAIN || !COGNITO_CLIENT_ID || !AUTH_BASE_URL) {
    throw new Error('COGNITO_DOMAIN, COGNITO_CLIENT_ID and AUTH_BASE_URL must be set');
  }
  return { cognitoDomain: COGNITO_DOMAIN.replace(/\/+$/, ''), clientId: COGNITO_CLIENT_ID, authBaseUrl: new URL(AUTH_BASE_URL) };
}

export const callbackUrl = (s: SignInSettings) => `${s.authBaseUrl.href.replace(/\/+$/, '')}/callback`;
/** Where a signed-in (or signed-out) person lands: the app. */
export const appUrl = (s: SignInSettings) => `${s.authBaseUrl.origin}/app/`;

// ---- The sealing key: read once per cold start -----------------------------------------------

let key: Promise<Buffer> | undefined;

/**
 * The 256-bit key of the cookies, derived (HKDF-SHA256, a label of its own, so it is not the
 * paging key it shares its input with) from the stack's Secrets Manager secret (`SESSION_KEY_SECRET_ARN`), read once per cold start; `SESSION_KEY` gives the secret itself
 * (tests). A failed read is not kept, so the next request tries again.
 */
function sealingKey(): Promise<Buffer> {
  key ??= readSecret().then(
    (secret) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'documents-service sign-in cookies A256GCM', 32)),
    (error: unknown) => {
      key = undefined;
      logger.error('sign-in: could not read the cookie key', { error: error as Error });
      throw unavailable('The service could not read its sign-in key; retry shortly.');
    },
  );
  return key;
}

async function readSecret(): Promise<string> {
  if (process.env.SESSION_KEY) return process.env.SESSION_KEY;
  const secretId = process.env.SESSION_KEY_SECRET_ARN;
  if (!secretId) throw new Error('Neither SESSION_KEY nor SESSION_KEY_SECRET_ARN is set');
  const { SecretString } = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString) throw new Error(`The secret ${secretId} has no string value`);
  return SecretString;
}

// ---- Sealed values (compact JWE, dir + A256GCM) ---------------------------------------------

const PROTECTED_HEADER = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM' })).toString('base64url');

/** What a cookie holds: which cookie it is for (one cannot stand in for the other) and until when. */
type Sealed<T> = T & { use: CookieName; exp: number };

async function seal<T extends object>(use: CookieName, value: T, maxAgeSeconds: number): Promise<string> {
  const payload: Sealed<T> = { ...value, use, exp: Math.floor(Date.now() / 1000) + maxAgeSeconds };
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await sealingKey(), iv);
  cipher.setAAD(Buffer.from(PROTECTED_HEADER, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return [PROTECTED_HEADER, '', iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join(
    '.',
  );
}

/** The value sealed for `use`, or undefined when it is not one of ours, was altered, is for another cookie, or expired. */
async function unseal<T extends object>(use: CookieName, jwe: string): Promise<T | undefined> {
  const parts = jwe.split('.');
  if (parts.length !== 5 || parts[0] !== PROTECTED_HEADER || parts[1] !== '') return undefined;
  const [, , iv, ciphertext, tag] = parts as [string, string, string, string, string];
  try {
    const decipher = createDecipheriv('aes-256-gcm', await sealingKey(), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(PROTECTED_HEADER, 'ascii'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const payload = JSON.parse(Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8'));
    if (payload?.use !== use || typeof payload.exp !== 'number' || payload.exp * 1000 <= Date.now()) return undefined;
    return payload as T;
  } catch (error) {
    if (error instanceof HttpError) throw error;
    return undefined;
  }
}

// ---- Cookies ---------------------------------------------------------------------------------

/**
 * The two cookies. `__Secure-` makes browsers refuse them over plain HTTP. The sign-in cookie
 * (state and PKCE verifier) must come back on Cognito's redirect to /auth/callback, a top-level
 * navigation from another site, which SameSite=Strict would withhold: it is `Lax`, lives ten
 * minutes and is path-scoped to the callback. The session cookie is `Strict`: only the app's own
 * requests carry it.
 */
export const SIGN_IN_COOKIE = '__Secure-documents-sign-in';
export const SESSION_COOKIE = '__Secure-documents-session';
type CookieName = typeof SIGN_IN_COOKIE | typeof SESSION_COOKIE;

export const SIGN_IN_MAX_AGE_SECONDS = 600;
/** The web client's refresh-token validity (lib/stack/auth.ts sets the same on the app client). */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

const cookiePath = (s: SignInSettings, cookie: CookieName) =>
  cookie === SIGN_IN_COOKIE ? new URL('callback', `${s.authBaseUrl.href.replace(/\/+$/, '')}/`).pathname : s.authBaseUrl.pathname;

function setCookie(s: SignInSettings, cookie: CookieName, value: string, maxAgeSeconds: number): string {
  const sameSite = cookie === SIGN_IN_COOKIE ? 'Lax' : 'Strict';
  return `${cookie}=${value}; Path=${cookiePath(s, cookie)}; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=${sameSite}`;
}

export const clearCookie = (s: SignInSettings, cookie: CookieName) => setCookie(s, cookie, '', 0);

/** A cookie of the request (payload format 2.0 gives them in `cookies`, one `name=value` each). */
function cookieOf(event: APIGatewayProxyEventV2, cookie: CookieName): string | undefined {
  for (const pair of event.cookies ?? []) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === cookie) return pair.slice(at + 1).trim();
  }
  return undefined;
}

export interface SignInAttempt {
  state: string;
  verifier: string;
}

export async function signInCookie(s: SignInSettings, attempt: SignInAttempt): Promise<string> {
  return setCookie(s, SIGN_IN_COOKIE, await seal(SIGN_IN_COOKIE, attempt, SIGN_IN_MAX_AGE_SECONDS), SIGN_IN_MAX_AGE_SECONDS);
}

export async function readSignInCookie(event: APIGatewayProxyEventV2): Promise<SignInAttempt | undefined> {
  const value = cookieOf(event, SIGN_IN_COOKIE);
  return value ? unseal<SignInAttempt>(SIGN_IN_COOKIE, value) : undefined;
}

export async function sessionCookie(s: SignInSettings, refreshToken: string): Promise<string> {
  return setCookie(s, SESSION_COOKIE, await seal(SESSION_COOKIE, { refreshToken }, SESSION_MAX_AGE_SECONDS), SESSION_MAX_AGE_SECONDS);
}

export async function readSessionCookie(event: APIGatewayProxyEventV2): Promise<string | undefined> {
  const value = cookieOf(event, SESSION_COOKIE);
  return value ? (await unseal<{ refreshToken: string }>(SESSION_COOKIE, value))?.refreshToken : undefined;
}

// ---- PKCE (RFC 7636) -------------------------------------------------------------------------

/** A fresh state and code verifier: 32 random bytes each, base64url (43 characters). */
export const newAttempt = (): SignInAttempt => ({
  state: randomBytes(32).toString('base64url'),
  verifier: randomBytes(32).toString('base64url'),
});

export const codeChallenge = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

export function sameState(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

// ---- Cognito's token endpoint ----------------------------------------------------------------

export interface Tokens {
  accessToken: string;
  idToken?: string;
  refreshToken?: string;
  expiresIn: number;
}

/**
 * A grant at Cognito's token endpoint (Amazon Cognito developer guide, "The token endpoint":
 * `POST /oauth2/token`, `application/x-www-form-urlencoded`, a public client names itself with
 * `client_id`). A refused grant (`invalid_grant`: a used, expired or revoked code or refresh
 * token, a wrong verifier) is `refused`; anything else Cognito answers is a 503 to the caller.
 */
export async function tokenGrant(s: SignInSettings, grant: Record<string, string>): Promise<Tokens | 'refused'> {
  let answer: Response;
  try {
    answer = await fetch(`${s.cognitoDomain}/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({ ...grant, client_id: s.clientId }),
      signal: AbortSignal.timeout(5000),
    });
  } catch (error) {
    logger.error('sign-in: the token endpoint could not be reached', { error: error as Error });
    throw upstreamUnavailable();
  }
  const body = (await answer.json().catch(() => ({}))) as Record<string, unknown>;
  if (answer.status === 400 && body.error === 'invalid_grant') return 'refused';
  if (!answer.ok || typeof body.access_token !== 'string') {
    logger.error('sign-in: the token endpoint refused the request', { status: answer.status, error: String(body.error ?? '') });
    throw upstreamUnavailable();
  }
  return {
    accessToken: body.access_token,
    expiresIn: typeof body.expires_in === 'number' ? body.expires_in : 3600,
    ...(typeof body.id_token === 'string' ? { idToken: body.id_token } : {}),
    ...(typeof body.refresh_token === 'string' ? { refreshToken: body.refresh_token } : {}),
  };
}

/** Cognito's revocation endpoint (`POST /oauth2/revoke`): best effort, a sign-out goes on without it. */
export async function revoke(s: SignInSettings, refreshToken: string): Promise<void> {
  try {
    const answer = await fetch(`${s.cognitoDomain}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshToken, client_id: s.clientId }),
      signal: AbortSignal.timeout(5000),
    });
    if (!answer.ok) logger.warn('sign-out: the refresh token was not revoked', { status: answer.status });
  } catch (error) {
    logger.warn('sign-out: the revocation endpoint could not be reached', { error: error as Error });
  }
}

/**
 * Who signed in, for the app to show: the ID token's e-mail or user name. The ID token came
 * straight from the token endpoint over TLS, which OpenID Connect Core (§3.1.3.7) accepts in
 * place of checking its signature; it is shown, never trusted for access (the API checks the
 * access token).
 */
export function displayName(tokens: Tokens): string | undefined {
  const payload = tokens.idToken?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const name = claims.email ?? claims['cognito:username'] ?? claims.sub;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

// ---- Answers ---------------------------------------------------------------------------------

const upstreamUnavailable = () => unavailable('The sign-in service did not answer as expected; retry shortly.');

export const redirect = (location: string, cookies: string[] = []): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 302,
  headers: { Location: location, 'Cache-Control': 'no-store' },
  cookies,
});

/** Runs a sign-in handler: an HttpError becomes its problem+json, with cookies to clear if given. */
export async function answering(run: () => Promise<APIGatewayProxyStructuredResultV2>): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SignInError) return { ...problemResponse(error.problem), cookies: error.cookies };
    if (error instanceof HttpError) return problemResponse(error);
    logger.error('sign-in: unexpected failure', { error: error as Error });
    return problemResponse(new HttpError('internal', 'The request failed.'));
  }
}

/** A refusal that also clears cookies (a sign-in attempt used up, a session that is over). */
export class SignInError extends Error {
  constructor(
    readonly problem: HttpError,
    readonly cookies: string[],
  ) {
    super(problem.message);
  }
}
