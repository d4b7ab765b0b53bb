/**
 * The deployed sign-in routes (functions/auth/), run against a local stand-in for Cognito's
 * managed login and token endpoint (./fake-cognito.ts): the authorization-code flow with PKCE,
 * the refresh token only ever in the sealed `HttpOnly; Secure; SameSite=Strict` cookie, the access
 * token in the body, and every refusal a problem+json that leaves no session behind.
 */
import { createHash, hkdfSync } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { compactDecrypt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler as callback } from '#functions/auth/callback';
import { handler as login } from '#functions/auth/login';
import { handler as logout } from '#functions/auth/logout';
import { handler as refresh } from '#functions/auth/refresh';
import { SESSION_COOKIE, SIGN_IN_COOKIE } from '#functions/auth/session';
import { type FakeCognito, startFakeCognito } from './fake-cognito';

const CLIENT_ID = 'web-client-id';
const APP = 'https://d111111abcdef8.cloudfront.net';
const SESSION_KEY = 'test-session-key-secret';
let cognito: FakeCognito;

beforeAll(async () => {
  cognito = await startFakeCognito({ clientId: CLIENT_ID, user: { sub: 'user-1', email: 'ada@example.com' } });
  process.env.COGNITO_DOMAIN = cognito.url;
  process.env.COGNITO_CLIENT_ID = CLIENT_ID;
  process.env.AUTH_BASE_URL = `${APP}/api/auth`;
  process.env.SESSION_KEY = SESSION_KEY;
});
afterAll(() => cognito.close());
beforeEach(() => {
  cognito.failing = false;
  cognito.tokenRequests.length = 0;
});

type Handler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;
const event = (method: string, path: string, query: Record<string, string> = {}, cookies: string[] = []): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    rawPath: path,
    rawQueryString: new URLSearchParams(query).toString(),
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(cookies.length ? { cookies } : {}),
    headers: {},
    requestContext: { http: { method, path } },
  }) as unknown as APIGatewayProxyEventV2;

/** A browser's cookie jar, enough for these routes: `name=value` kept until Max-Age=0. */
class Browser {
  readonly jar = new Map<string, string>();
  async call(run: Handler, method: string, path: string, query: Record<string, string> = {}) {
    const answer = await run(
      event(
        method,
        path,
        query,
        [...this.jar].map(([name, value]) => `${name}=${value}`),
      ),
    );
    for (const cookie of answer.cookies ?? []) {
      const [pair] = cookie.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (/Max-Age=0(;|$)/.test(cookie)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return answer;
  }
}

const setCookie = (answer: APIGatewayProxyStructuredResultV2, name: string) => (answer.cookies ?? []).find((c) => c.startsWith(`${name}=`));
const attributes = (cookie: string | undefined) =>
  new Set(
    (cookie ?? '')
      .split(';')
      .slice(1)
      .map((a) => a.trim()),
  );
const location = (answer: APIGatewayProxyStructuredResultV2) => new URL(String(answer.headers?.Location));
const problem = (answer: APIGatewayProxyStructuredResultV2) => {
  expect(answer.headers?.['Content-Type']).toBe('application/problem+json');
  return JSON.parse(String(answer.body)) as { status: number; type: string; detail: string };
};

/** Cognito's managed login, signed in at once: what the authorize endpoint sends the browser back with. */
async function signInAtCognito(authorize: URL): Promise<Record<string, string>> {
  const answer = await fetch(authorize, { redirect: 'manual' });
  expect(answer.status).toBe(302);
  return Object.fromEntries(new URL(answer.headers.get('location')!).searchParams);
}

/** A browser that went through the whole sign-in. */
async function signedIn(): Promise<Browser> {
  const browser = new Browser();
  const started = await browser.call(login, 'GET', '/auth/login');
  const back = await signInAtCognito(location(started));
  const done = await browser.call(callback, 'GET', '/auth/callback', back);
  expect(done.statusCode).toBe(302);
  return browser;
}

describe('GET /auth/login', () => {
  it('sends the browser to the managed login with state and an S256 code challenge, the verifier sealed in a short-lived cookie', async () => {
    const answer = await login();
    expect(answer.statusCode).toBe(302);
    const to = location(answer);
    expect(`${to.origin}${to.pathname}`).toBe(`${cognito.url}/oauth2/authorize`);
    const q = Object.fromEntries(to.searchParams);
    expect(q).toMatchObject({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${APP}/api/auth/callback`,
      code_challenge_method: 'S256',
    });
    expect(q.state).toMatch(/^[\w-]{43}$/);
    expect(q.code_challenge).toMatch(/^[\w-]{43}$/);

    const cookie = setCookie(answer, SIGN_IN_COOKIE);
    expect(attributes(cookie)).toEqual(new Set(['Path=/api/auth/callback', 'Max-Age=600', 'HttpOnly', 'Secure', 'SameSite=Lax']));
    // A compact JWE (dir, A256GCM) that jose opens with the key derived from the secret.
    const key = new Uint8Array(hkdfSync('sha256', SESSION_KEY, Buffer.alloc(0), 'documents-service sign-in cookies A256GCM', 32));
    const jwe = cookie!.split(';')[0]!.slice(SIGN_IN_COOKIE.length + 1);
    const { plaintext, protectedHeader } = await compactDecrypt(jwe, key);
    expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256GCM' });
    const sealed = JSON.parse(new TextDecoder().decode(plaintext));
    expect(sealed.state).toBe(q.state);
    expect(createHash('sha256').update(sealed.verifier).digest('base64url')).toBe(q.code_challenge);
    expect(cookie).not.toContain(q.state);
  });
});

describe('GET /auth/callback', () => {
  it('exchanges the code with the verifier, keeps the refresh token in the sealed Strict cookie only, and sends the browser to the app', async () => {
    const browser = new Browser();
    const back = await signInAtCognito(location(await browser.call(login, 'GET', '/auth/login')));
    const answer = await browser.call(callback, 'GET', '/auth/callback', back);

    expect(answer.statusCode).toBe(302);
    expect(answer.headers?.Location).toBe(`${APP}/app/`);
    const [exchange] = cognito.tokenRequests;
    expect(Object.fromEntries(exchange!)).toMatchObject({
      grant_type: 'authorization_code',
      code: back.code,
      redirect_uri: `${APP}/api/auth/callback`,
      client_id: CLIENT_ID,
      code_verifier: expect.stringMatching(/^[\w-]{43}$/),
    });
    const session = setCookie(answer, SESSION_COOKIE);
    expect(attributes(session)).toEqual(new Set(['Path=/api/auth', `Max-Age=${30 * 24 * 3600}`, 'HttpOnly', 'Secure', 'SameSite=Strict']));
    expect(attributes(setCookie(answer, SIGN_IN_COOKIE))).toContain('Max-Age=0');
    // The refresh token Cognito issued is nowhere in the answer: not in the body, not in clear in a cookie.
    const refreshToken = refreshTokenIssued()!;
    expect(JSON.stringify(answer)).not.toContain(refreshToken);
    expect(answer.body ?? '').toBe('');
  });

  it('refuses an answer whose state is not the one this browser started with (400, no code exchanged)', async () => {
    const browser = new Browser();
    const back = await signInAtCognito(location(await browser.call(login, 'GET', '/auth/login')));
    const answer = await browser.call(callback, 'GET', '/auth/callback', { ...back, state: `x${back.state!.slice(1)}` });
    expect(answer.statusCode).toBe(400);
    expect(problem(answer)).toMatchObject({ status: 400, type: 'urn:problem-type:documents:validation-error' });
    expect(cognito.tokenRequests).toEqual([]);
    expect(setCookie(answer, SESSION_COOKIE)).toBeUndefined();
    expect(browser.jar.has(SIGN_IN_COOKIE)).toBe(false);
  });

  it('refuses a callback with no sign-in started, a tampered cookie, or the session cookie in its place', async () => {
    const noAttempt = await callback(event('GET', '/auth/callback', { code: 'c', state: 's' }));
    expect(problem(noAttempt).status).toBe(400);

    const browser = new Browser();
    const back = await signInAtCognito(location(await browser.call(login, 'GET', '/auth/login')));
    const sealed = browser.jar.get(SIGN_IN_COOKIE)!;
    const tampered = `${sealed.slice(0, -3)}${sealed.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    const forged = await callback(event('GET', '/auth/callback', back, [`${SIGN_IN_COOKIE}=${tampered}`]));
    expect(problem(forged).status).toBe(400);

    const other = await signedIn();
    const swapped = await callback(event('GET', '/auth/callback', back, [`${SIGN_IN_COOKIE}=${other.jar.get(SESSION_COOKIE)}`]));
    expect(problem(swapped).status).toBe(400);
    expect(cognito.tokenRequests.filter((f) => f.get('code') === back.code)).toEqual([]);
  });

  it('refuses a code used twice (invalid_grant) with a 400, and answers 503 when Cognito fails', async () => {
    const browser = new Browser();
    const back = await signInAtCognito(location(await browser.call(login, 'GET', '/auth/login')));
    const signInCookie = `${SIGN_IN_COOKIE}=${browser.jar.get(SIGN_IN_COOKIE)}`;
    expect((await callback(event('GET', '/auth/callback', back, [signInCookie]))).statusCode).toBe(302);
    const replay = await callback(event('GET', '/auth/callback', back, [signInCookie]));
    expect(problem(replay).status).toBe(400);

    const again = new Browser();
    const next = await signInAtCognito(location(await again.call(login, 'GET', '/auth/login')));
    cognito.failing = true;
    const down = await again.call(callback, 'GET', '/auth/callback', next);
    expect(problem(down).status).toBe(503);
    expect(down.headers?.['Retry-After']).toBe('1');
  });
});

describe('POST /auth/refresh', () => {
  it('reads the session cookie and answers a new access token in the body (never the refresh token)', async () => {
    const browser = await signedIn();
    const answer = await browser.call(refresh, 'POST', '/auth/refresh');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toMatchObject({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    const body = JSON.parse(String(answer.body));
    expect(body).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 3600, user: 'ada@example.com' });
    const grant = cognito.tokenRequests.at(-1)!;
    expect(grant.get('grant_type')).toBe('refresh_token');
    expect(grant.get('refresh_token')).toBe(refreshTokenIssued());
    expect(String(answer.body)).not.toContain(grant.get('refresh_token')!);
    // Each call a fresh token.
    const second = JSON.parse(String((await browser.call(refresh, 'POST', '/auth/refresh')).body));
    expect(second.accessToken).not.toBe(body.accessToken);
  });

  it('answers 401 without a session, and clears a session Cognito no longer honours', async () => {
    const none = await refresh(event('POST', '/auth/refresh'));
    expect(problem(none)).toMatchObject({ status: 401, type: 'urn:problem-type:documents:unauthorized' });

    const browser = await signedIn();
    const stale = browser.jar.get(SESSION_COOKIE)!;
    await browser.call(logout, 'GET', '/auth/logout');
    const ended = await refresh(event('POST', '/auth/refresh', {}, [`${SESSION_COOKIE}=${stale}`]));
    expect(problem(ended).status).toBe(401);
    expect(attributes(setCookie(ended, SESSION_COOKIE))).toContain('Max-Age=0');
  });
});

describe('GET /auth/logout', () => {
  it('revokes the refresh token, clears the cookie and sends the browser to Cognito’s logout, back to the app', async () => {
    const browser = await signedIn();
    const refreshToken = refreshTokenIssued();
    const answer = await browser.call(logout, 'GET', '/auth/logout');
    expect(answer.statusCode).toBe(302);
    const to = location(answer);
    expect(`${to.origin}${to.pathname}`).toBe(`${cognito.url}/logout`);
    expect(Object.fromEntries(to.searchParams)).toEqual({ client_id: CLIENT_ID, logout_uri: `${APP}/app/` });
    expect(attributes(setCookie(answer, SESSION_COOKIE))).toEqual(
      new Set(['Path=/api/auth', 'Max-Age=0', 'HttpOnly', 'Secure', 'SameSite=Strict']),
    );
    expect(cognito.revoked).toContain(refreshToken);
    expect(browser.jar.has(SESSION_COOKIE)).toBe(false);
  });
});

/** The refresh token the last code exchange issued (the fake's own record of what it answered). */
function refreshTokenIssued(): string | undefined {
  const exchange = cognito.tokenRequests.findLast((f) => f.get('grant_type') === 'authorization_code');
  return exchange ? cognito.issued.get(exchange.get('code')!) : undefined;
}
