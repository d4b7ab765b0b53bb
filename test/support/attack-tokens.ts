/**
 * Tokens an authorizer must refuse, made against a local issuer, each with the words its
 * rejection must name: alg none, HS256 key confusion, other algorithms, unknown, missing and
 * foreign kids, wrong issuer and audience, expired, not yet valid, no exp, iat in the future,
 * tampered payload and signature, garbage. The one list of them: test/unit/jwt.test.ts holds the
 * local issuer's verify to each (one test a case), test/unit/sam-local-auth.test.ts the gateway
 * and the functions' own check under sam local.
 */
import { type CryptoKey, decodeJwt, exportSPKI, generateKeyPair, importJWK, SignJWT } from 'jose';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, type LocalIssuer } from '#lib/local/jwt';

export interface AttackToken {
  label: string;
  token: string;
  /** What the rejection's reason must say. */
  reason: RegExp;
}

/** What the cases are made from: the issuer, its key id, keys that are not its, and a good token of its. */
export interface AttackKit {
  issuer: LocalIssuer;
  now: number;
  kid: string;
  /** The issuer's public key as PEM: the HMAC secret of the key-confusion attack. */
  publicPem: string;
  /** An RS256 key that is not the issuer's. */
  foreign: CryptoKey;
  /** A PS256 key. */
  pss: CryptoKey;
  /** A good token of the issuer's, cut in its three parts. */
  good: { token: string; header: string; payload: string; signature: string };
}

export interface AttackCase {
  label: string;
  /** What the rejection's reason must say. */
  reason: RegExp;
  token(kit: AttackKit): Promise<string> | string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const claims = { sub: 'mallory', iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE };
const sign = (header: { alg: string; kid?: string }, key: CryptoKey | Uint8Array) =>
  new SignJWT(claims).setProtectedHeader(header).setExpirationTime('10m').sign(key);
/** A JWS signature with one character in the middle changed (the last ones carry spare bits base64url decoding ignores). */
export const tamperedSignature = (signature: string) => {
  const middle = signature.length >> 1;
  return signature.slice(0, middle) + (signature[middle] === 'A' ? 'B' : 'A') + signature.slice(middle + 1);
};

export async function attackKit(issuer: LocalIssuer): Promise<AttackKit> {
  const good = await issuer.issueToken('alice');
  const [header, payload, signature] = good.split('.') as [string, string, string];
  return {
    issuer,
    now: Math.floor(Date.now() / 1000),
    kid: issuer.jwks.keys[0]!.kid!,
    publicPem: await exportSPKI((await importJWK(issuer.jwks.keys[0]!, 'RS256', { extractable: true })) as CryptoKey),
    foreign: (await generateKeyPair('RS256')).privateKey,
    pss: (await generateKeyPair('PS256')).privateKey,
    good: { token: good, header, payload, signature },
  };
}

export const attackCases: readonly AttackCase[] = [
  {
    label: 'alg none',
    reason: /algorithm/,
    token: ({ kid, now }) => `${b64({ alg: 'none', kid })}.${b64({ ...claims, exp: now + 600 })}.`,
  },
  {
    label: 'HS256 keyed with the public key',
    reason: /algorithm/,
    token: ({ kid, publicPem }) => sign({ alg: 'HS256', kid }, new TextEncoder().encode(publicPem)),
  },
  { label: 'PS256', reason: /algorithm/, token: ({ kid, pss }) => sign({ alg: 'PS256', kid }, pss) },
  { label: 'unknown kid', reason: /kid/, token: ({ foreign }) => sign({ alg: 'RS256', kid: 'some-other-key' }, foreign) },
  { label: 'no kid', reason: /kid/, token: ({ foreign }) => sign({ alg: 'RS256' }, foreign) },
  { label: 'a foreign key under our kid', reason: /signature/, token: ({ kid, foreign }) => sign({ alg: 'RS256', kid }, foreign) },
  { label: 'wrong issuer', reason: /issuer/, token: ({ issuer }) => issuer.issueToken('alice', {}, { iss: 'https://issuer.invalid/' }) },
  { label: 'wrong audience', reason: /audience/, token: ({ issuer }) => issuer.issueToken('alice', {}, { aud: 'someone-else' }) },
  {
    label: 'no aud, wrong client_id',
    reason: /audience/,
    token: ({ issuer }) => issuer.issueToken('alice', { client_id: 'other' }, { aud: null }),
  },
  { label: 'expired', reason: /expired/, token: ({ issuer, now }) => issuer.issueToken('alice', {}, { exp: now - 1 }) },
  { label: 'nbf in the future', reason: /nbf/, token: ({ issuer, now }) => issuer.issueToken('alice', {}, { nbf: now + 3600 }) },
  { label: 'no exp', reason: /exp/, token: ({ issuer }) => issuer.issueToken('alice', {}, { exp: null }) },
  { label: 'iat in the future', reason: /iat/, token: ({ issuer, now }) => issuer.issueToken('alice', {}, { iat: now + 3600 }) },
  {
    label: 'tampered payload',
    reason: /signature/,
    token: ({ good }) => `${good.header}.${b64({ ...decodeJwt(good.token), sub: 'mallory' })}.${good.signature}`,
  },
  {
    label: 'tampered signature',
    reason: /signature/,
    token: ({ good }) => `${good.header}.${good.payload}.${tamperedSignature(good.signature)}`,
  },
  { label: 'stripped signature', reason: /signature|malformed/, token: ({ good }) => `${good.header}.${good.payload}.` },
  { label: 'garbage', reason: /not a signed JWT/, token: () => 'garbage' },
];

/** Every case's token, made against `issuer`. */
export async function attackTokens(issuer: LocalIssuer): Promise<AttackToken[]> {
  const kit = await attackKit(issuer);
  return Promise.all(attackCases.map(async ({ label, reason, token }) => ({ label, reason, token: await token(kit) })));
}
