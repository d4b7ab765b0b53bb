/**
 * The local issuer (an RS256 key pair kept under `${dataDir}/jwt/`), so the service runs without
 * an identity provider, and the choice between it and an external issuer. Verification itself,
 * as API Gateway's JWT authorizer does it, is #core/jwt (shared with the functions under `sam local`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { ALGORITHM, createExternalVerifier, createVerifier, type TokenVerifier } from '#core/jwt';
import { readOrCreateOnce } from './write-once';

export {
  type AuthorizerJwt,
  createExternalVerifier,
  createVerifier,
  type JwtClaims,
  type TokenVerifier,
  toAuthorizerJwt,
  type VerifyResult,
} from '#core/jwt';

export const LOCAL_ISSUER = 'urn:documents-service:local';
export const LOCAL_AUDIENCE = 'documents-api';

/** Claims and header overrides, for tests that need expired, early or foreign tokens. */
export interface IssueTokenOptions {
  /** Lifetime when `exp` is not given; default 3600 s. */
  expiresInSeconds?: number;
  /** Seconds since the epoch; `null` leaves the claim out. */
  exp?: number | null;
  nbf?: number;
  iat?: number | null;
  iss?: string;
  /** `null` leaves `aud` out (e.g. to test `client_id`). */
  aud?: string | string[] | null;
  kid?: string;
}

export interface LocalIssuer extends TokenVerifier {
  /** The public keys, as served at `/.well-known/jwks.json`. */
  readonly jwks: JSONWebKeySet;
  issueToken(sub: string, extraClaims?: Record<string, unknown>, options?: IssueTokenOptions): Promise<string>;
}

/**
 * Local issuer mode: loads the key pair from `${dataDir}/jwt/`, creating it on first use.
 * Several processes may start at once (server and `npm run token`): the private key is
 * created once (readOrCreateOnce), so they all end up with the same key.
 */
export async function loadLocalIssuer(dataDir: string): Promise<LocalIssuer> {
  const dir = join(dataDir, 'jwt');
  const privatePath = join(dir, 'private-key.json');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const privateJwk = JSON.parse(
    await readOrCreateOnce(privatePath, async () => {
      const { privateKey } = await generateKeyPair(ALGORITHM, { modulusLength: 2048, extractable: true });
      const jwk = await exportJWK(privateKey);
      const kid = await calculateJwkThumbprint(publicPart(jwk));
      return `${JSON.stringify({ ...jwk, kid, alg: ALGORITHM, use: 'sig' } satisfies JWK, null, 2)}\n`;
    }),
  ) as JWK;

  const publicJwk: JWK = { ...publicPart(privateJwk), kid: privateJwk.kid, alg: ALGORITHM, use: 'sig' };
  const jwks: JSONWebKeySet = { keys: [publicJwk] };
  // Published for tools that want the public key from disk; the server also serves it.
  await writeFile(join(dir, 'jwks.json'), `${JSON.stringify(jwks, null, 2)}\n`);

  const signingKey = await importJWK(privateJwk, ALGORITHM);
  const keySet = createLocalJWKSet(jwks);
  const verifier = createVerifier({ issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, keySet: async () => keySet });
  return {
    ...verifier,
    jwks,
    async issueToken(sub, extraClaims = {}, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const claims: Record<string, unknown> = {
        iss: LOCAL_ISSUER,
        aud: LOCAL_AUDIENCE,
        sub,
        iat: now,
        exp: now + (options.expiresInSeconds ?? 3600),
        ...extraClaims,
      };
      if (options.iss !== undefined) claims.iss = options.iss;
      if (options.aud !== undefined) claims.aud = options.aud;
      if (options.exp !== undefined) claims.exp = options.exp;
      if (options.iat !== undefined) claims.iat = options.iat;
      if (options.nbf !== undefined) claims.nbf = options.nbf;
      for (const [name, value] of Object.entries(claims)) if (value === null) delete claims[name];
      return new SignJWT(claims as JWTPayload)
        .setProtectedHeader({ alg: ALGORITHM, kid: options.kid ?? privateJwk.kid!, typ: 'JWT' })
        .sign(signingKey);
    },
  };
}

/**
 * External mode when JWT_ISSUER and JWT_AUDIENCE are both set, local issuer otherwise.
 * Setting only one of them is a configuration mistake, reported as such.
 */
export async function verifierFromEnv(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ verifier: TokenVerifier; localIssuer?: LocalIssuer }> {
  const issuer = env.JWT_ISSUER?.trim();
  const audience = env.JWT_AUDIENCE?.trim();
  if (issuer && audience) return { verifier: createExternalVerifier(issuer, audience) };
  if (issuer || audience)
    throw new Error('Set both JWT_ISSUER and JWT_AUDIENCE to use an external issuer, or neither to use the local one.');
  const localIssuer = await loadLocalIssuer(dataDir);
  return { verifier: localIssuer, localIssuer };
}

function publicPart(jwk: JWK): JWK {
  return { kty: jwk.kty, n: jwk.n, e: jwk.e };
}
