/**
 * Tokens an authorizer must refuse, made against a local issuer: the cases of
 * test/unit/jwt.test.ts (alg none, HS256 key confusion, other algorithms, unknown, missing and
 * foreign kids, wrong issuer and audience, expired, not yet valid, no exp, iat in the future,
 * tampered payload and signature, garbage). Each comes with the words its rejection must name.
 */
import { type CryptoKey, decodeJwt, exportSPKI, generateKeyPair, importJWK, SignJWT } from 'jose';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, type LocalIssuer } from '#lib/local/jwt';

export interface AttackToken {
  label: string;
  token: string;
  /** What the rejection's reason must say. */
  reason: RegExp;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export async function attackTokens(issuer: LocalIssuer): Promise<AttackToken[]> {
  const now = Math.floor(Date.now() / 1000);
  const kid = issuer.jwks.keys[0]!.kid!;
  const claims = { sub: 'mallory', iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE };
  const payload = b64({ ...claims, exp: now + 600 });
  const publicPem = await exportSPKI((await importJWK(issuer.jwks.keys[0]!, 'RS256', { extractable: true })) as CryptoKey);
  const foreign = (await generateKeyPair('RS256')).privateKey;
  const pss = (await generateKeyPair('PS256')).privateKey;
  const sign = (header: { alg: string; kid?: string }, key: CryptoKey | Uint8Array) =>
    new SignJWT(claims).setProtectedHeader(header).setExpirationTime('10m').sign(key);

  const good = await issuer.issueToken('alice');
  const [header, goodPayload, signature] = good.split('.') as [string, string, string];
  const middle = signature.length >> 1;
  const tamperedSignature = signature.slice(0, middle) + (signature[middle] === 'A' ? 'B' : 'A') + signature.slice(middle + 1);

  return [
    { label: 'alg none', token: `${b64({ alg: 'none', kid })}.${payload}.`, reason: /algorithm/ },
    {
      label: 'HS256 keyed with the public key',
      token: await sign({ alg: 'HS256', kid }, new TextEncoder().encode(publicPem)),
      reason: /algorithm/,
    },
    { label: 'PS256', token: await sign({ alg: 'PS256', kid }, pss), reason: /algorithm/ },
    { label: 'unknown kid', token: await sign({ alg: 'RS256', kid: 'some-other-key' }, foreign), reason: /kid/ },
    { label: 'no kid', token: await sign({ alg: 'RS256' }, foreign), reason: /kid/ },
    { label: 'a foreign key under our kid', token: await sign({ alg: 'RS256', kid }, foreign), reason: /signature/ },
    { label: 'wrong issuer', token: await issuer.issueToken('alice', {}, { iss: 'https://issuer.invalid/' }), reason: /issuer/ },
    { label: 'wrong audience', token: await issuer.issueToken('alice', {}, { aud: 'someone-else' }), reason: /audience/ },
    {
      label: 'no aud, wrong client_id',
      token: await issuer.issueToken('alice', { client_id: 'other' }, { aud: null }),
      reason: /audience/,
    },
    { label: 'expired', token: await issuer.issueToken('alice', {}, { exp: now - 1 }), reason: /expired/ },
    { label: 'nbf in the future', token: await issuer.issueToken('alice', {}, { nbf: now + 3600 }), reason: /nbf/ },
    { label: 'no exp', token: await issuer.issueToken('alice', {}, { exp: null }), reason: /exp/ },
    { label: 'iat in the future', token: await issuer.issueToken('alice', {}, { iat: now + 3600 }), reason: /iat/ },
    {
      label: 'tampered payload',
      token: `${header}.${b64({ ...decodeJwt(good), sub: 'mallory' })}.${signature}`,
      reason: /signature/,
    },
    { label: 'tampered signature', token: `${header}.${goodPayload}.${tamperedSignature}`, reason: /signature/ },
    { label: 'stripped signature', token: `${header}.${goodPayload}.`, reason: /signature|malformed/ },
    { label: 'garbage', token: 'garbage', reason: /not a signed JWT/ },
  ];
}
