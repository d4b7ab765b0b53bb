import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, type LocalIssuer, loadLocalIssuer, toAuthorizerJwt, verifierFromEnv } from '#lib/local/jwt';
import { type AttackKit, attackCases, attackKit, tamperedSignature } from '#test/support/attack-tokens';
import { useTempDir } from '#test/support/temp-dir';

const dataDir = useTempDir('jwt-test-');
let issuer: LocalIssuer;
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  issuer = await loadLocalIssuer(dataDir);
});

async function expectRejected(token: string, reason?: RegExp) {
  const result = await issuer.verify(token);
  expect(result.ok, `accepted: ${JSON.stringify(result)}`).toBe(false);
  if (!result.ok && reason) expect(result.reason).toMatch(reason);
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('local issuer keys', () => {
  it('creates a key pair once, private key 0600, and reuses it', async () => {
    const privatePath = join(dataDir, 'jwt', 'private-key.json');
    expect((await stat(privatePath)).mode & 0o777).toBe(0o600);
    const jwks = JSON.parse(await readFile(join(dataDir, 'jwt', 'jwks.json'), 'utf8'));
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: issuer.jwks.keys[0]!.kid });
    expect(jwks.keys[0].d).toBeUndefined(); // no private part in the public set

    const again = await loadLocalIssuer(dataDir);
    expect(again.jwks).toEqual(issuer.jwks);
    expect((await again.verify(await issuer.issueToken('alice'))).ok).toBe(true);
  });

  it('agrees on one key when several loaders race on a fresh directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jwt-race-'));
    try {
      const issuers = await Promise.all([1, 2, 3, 4].map(() => loadLocalIssuer(dir)));
      const kids = new Set(issuers.map((i) => i.jwks.keys[0]!.kid));
      expect(kids.size).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('verify', () => {
  it('accepts a good token and returns its claims', async () => {
    const token = await issuer.issueToken('alice', { scope: 'read write' });
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'RS256', kid: issuer.jwks.keys[0]!.kid });
    const result = await issuer.verify(token);
    expect(result).toEqual({ ok: true, claims: expect.objectContaining({ sub: 'alice', iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE }) });
    const claims = decodeJwt(token);
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  // Beyond the attack tokens (below): other shapes of the same attacks, and what is accepted.
  it('rejects alg none without a kid too', async () => {
    const payload = b64({ sub: 'alice', iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE, exp: now() + 600 });
    await expectRejected(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`, /algorithm/);
  });

  it('rejects HS256 with the public JWK as the HMAC secret (key confusion)', async () => {
    const token = await new SignJWT({ sub: 'mallory', iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE })
      .setProtectedHeader({ alg: 'HS256', kid: issuer.jwks.keys[0]!.kid })
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(JSON.stringify(issuer.jwks.keys[0])));
    await expectRejected(token, /algorithm/);
  });

  it('rejects a kid it does not hold in a token signed by its own key', async () => {
    await expectRejected(await issuer.issueToken('alice', {}, { kid: 'unknown' }), /kid/);
  });

  it('rejects the wrong audience as one of several, and accepts ours among others', async () => {
    await expectRejected(await issuer.issueToken('alice', {}, { aud: ['a', 'b'] }), /audience/);
    expect((await issuer.verify(await issuer.issueToken('alice', {}, { aud: ['a', LOCAL_AUDIENCE] }))).ok).toBe(true);
  });

  it('accepts client_id when aud is missing, but not when aud is present and wrong', async () => {
    const viaClientId = await issuer.issueToken('alice', { client_id: LOCAL_AUDIENCE }, { aud: null });
    expect(await issuer.verify(viaClientId)).toMatchObject({ ok: true });
    await expectRejected(await issuer.issueToken('alice', {}, { aud: null }), /audience/);
    await expectRejected(await issuer.issueToken('alice', { client_id: LOCAL_AUDIENCE }, { aud: 'other' }), /audience/);
  });

  it('rejects a token that expired two minutes ago', async () => {
    await expectRejected(await issuer.issueToken('alice', {}, { expiresInSeconds: -120 }), /expired/);
  });

  it('accepts nbf in the past', async () => {
    expect((await issuer.verify(await issuer.issueToken('alice', {}, { nbf: now() - 60 }))).ok).toBe(true);
  });

  it('remembers a verified token only while it is valid, and never a rejected one', async () => {
    const token = await issuer.issueToken('alice', {}, { expiresInSeconds: 60 });
    expect((await issuer.verify(token)).ok).toBe(true);
    expect((await issuer.verify(token)).ok).toBe(true); // from the cache
    vi.useFakeTimers({ now: Date.now() + 61_000 });
    try {
      await expectRejected(token, /expired/);
    } finally {
      vi.useRealTimers();
    }
    // A tampered copy of a remembered token is checked afresh, and fails.
    const good = await issuer.issueToken('bob');
    expect((await issuer.verify(good)).ok).toBe(true);
    const [header, payload, signature] = good.split('.') as [string, string, string];
    await expectRejected(`${header}.${payload}.${tamperedSignature(signature)}`, /signature/);
  });

  it('rejects more garbage', async () => {
    for (const token of ['', 'a.b', '...', `${b64({ alg: 'RS256' })}.!!!.x`]) {
      await expectRejected(token, /not a signed JWT/);
    }
    for (const token of ['a.b.c', 'x.y.z', 'e30.e30.e30']) await expectRejected(token, /malformed|algorithm/);
  });

  it('rejects a signature stripped with its dot', async () => {
    const [header, payload] = (await issuer.issueToken('alice')).split('.') as [string, string, string];
    await expectRejected(`${header}.${payload}`);
  });

  it('never throws, whatever the input', async () => {
    await expect(issuer.verify('\u0000\u0001.\u0002.\u0003')).resolves.toMatchObject({ ok: false });
  });
});

describe('verify refuses every attack token (test/support/attack-tokens.ts)', () => {
  let kit: AttackKit;
  beforeAll(async () => {
    kit = await attackKit(issuer);
  });
  for (const attack of attackCases) {
    it(`rejects ${attack.label}`, async () => {
      await expectRejected(await attack.token(kit), attack.reason);
    });
  }
});

describe('verifierFromEnv', () => {
  it('uses the local issuer unless both JWT_ISSUER and JWT_AUDIENCE are set', async () => {
    const local = await verifierFromEnv(dataDir, {});
    expect(local.localIssuer).toBeDefined();
    expect(local.verifier.issuer).toBe(LOCAL_ISSUER);

    const external = await verifierFromEnv(dataDir, { JWT_ISSUER: 'https://issuer.invalid', JWT_AUDIENCE: 'api' });
    expect(external.localIssuer).toBeUndefined();
    expect(external.verifier).toMatchObject({ issuer: 'https://issuer.invalid', audience: 'api' });
    // Discovery fails here (no such host): a failed verification, not an exception.
    const result = await external.verifier.verify(await issuer.issueToken('alice'));
    expect(result.ok).toBe(false);

    await expect(verifierFromEnv(dataDir, { JWT_ISSUER: 'https://issuer.invalid' })).rejects.toThrow(/JWT_AUDIENCE/);
  });
});

describe('toAuthorizerJwt', () => {
  it('turns every claim into a string the way API Gateway does', () => {
    const jwt = toAuthorizerJwt({
      sub: 'alice',
      exp: 1787996002,
      email_verified: true,
      aud: ['a', 'b'],
      'cognito:groups': ['admins', 'users'],
      address: { street: 'Main', city: 'X' },
      scope: 'read write',
    });
    expect(jwt.claims).toEqual({
      sub: 'alice',
      exp: '1787996002',
      email_verified: 'true',
      aud: '[a b]',
      'cognito:groups': '[admins users]',
      address: 'map[city:X street:Main]',
      scope: 'read write',
    });
    // No route declares authorization scopes, and API Gateway then sends null.
    expect(jwt.scopes).toBeNull();
  });

  it('lists the token scopes when the route declares scopes', () => {
    expect(toAuthorizerJwt({ scope: 'a b' }, ['a']).scopes).toEqual(['a', 'b']);
    expect(toAuthorizerJwt({ scp: ['a', 'b'] }, ['a']).scopes).toEqual(['a', 'b']);
    expect(toAuthorizerJwt({}, ['a']).scopes).toEqual([]);
  });
});
