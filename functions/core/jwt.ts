/**
 * Bearer-token verification as the API Gateway HTTP API JWT authorizer does it (RS256 against
 * the issuer's keys, `iss`, `aud` or `client_id`, `exp`, `nbf`), and the claims as that
 * authorizer hands them to a function. The local gateway (lib/local/gateway.ts) and the
 * functions under `sam local` (./sam-local-auth.ts) both verify with this module, so the rules
 * are one. Callers get a result, never a raw jose error.
 */
import type { APIGatewayEventRequestContextJWTAuthorizer } from 'aws-lambda';
import { createRemoteJWKSet, decodeProtectedHeader, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';

/** API Gateway's JWT authorizer accepts only RSA keys; this service's issuers use RS256. */
export const ALGORITHM = 'RS256';

export type JwtClaims = JWTPayload;
export type VerifyResult = { ok: true; claims: JwtClaims } | { ok: false; reason: string };

export interface TokenVerifier {
  readonly issuer: string;
  readonly audience: string;
  /** Never throws: a token that fails for any reason is `{ ok: false, reason }`. */
  verify(token: string): Promise<VerifyResult>;
}

/** API Gateway takes the token with or without the `Bearer ` prefix. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const token = authorization.replace(/^\s*bearer\s+/i, '').trim();
  return token === '' ? undefined : token;
}

/** Verifies a token exactly as configured: RS256, iss, aud/client_id, exp, nbf, iat. */
export function createVerifier(opts: {
  issuer: string;
  audience: string;
  /** The key set to check signatures against (may be fetched lazily). */
  keySet: () => Promise<JWTVerifyGetKey>;
}): TokenVerifier {
  const { issuer, audience } = opts;
  // The RS256 signature check is most of the local gateway's CPU per request. A token that
  // passed is remembered until it expires: its signature, issuer and audience cannot change,
  // and the times are checked again on every use. Bounded; the oldest entry goes first.
  const verified = new Map<string, JwtClaims>();
  return {
    issuer,
    audience,
    async verify(token) {
      const known = verified.get(token);
      if (known && withinLifetime(known)) return { ok: true, claims: known };
      verified.delete(token);
      try {
        const claims = await verifyOrThrow(token, issuer, audience, opts.keySet);
        if (verified.size >= VERIFIED_TOKENS_KEPT) verified.delete(verified.keys().next().value!);
        verified.set(token, claims);
        return { ok: true, claims };
      } catch (error) {
        return { ok: false, reason: failureReason(error) };
      }
    },
  };
}

const VERIFIED_TOKENS_KEPT = 10_000;

/** `exp` in the future and `nbf` (if any) not: what the full check would say of the times. */
function withinLifetime(claims: JwtClaims): boolean {
  const now = Math.floor(Date.now() / 1000);
  return typeof claims.exp === 'number' && claims.exp > now && (claims.nbf === undefined || claims.nbf <= now);
}

class TokenRejected extends Error {}

async function verifyOrThrow(token: string, issuer: string, audience: string, keySet: () => Promise<JWTVerifyGetKey>): Promise<JwtClaims> {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) throw new TokenRejected('the token is not a signed JWT');
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw new TokenRejected('the token is malformed');
  }
  // Checked before any key lookup: rules out `none`, HS256 key confusion and the rest.
  if (header.alg !== ALGORITHM) throw new TokenRejected(`the token's algorithm must be ${ALGORITHM}`);
  // API Gateway picks the key by kid; a token without one matches no key.
  if (typeof header.kid !== 'string' || header.kid === '') throw new TokenRejected('the token has no key id (kid)');
  const { payload } = await jwtVerify(token, await keySet(), {
    algorithms: [ALGORITHM],
    issuer,
    requiredClaims: ['exp'],
    clockTolerance: 0,
  });
  // API Gateway: `aud` must contain the audience; only when there is no `aud` is `client_id` used.
  if (payload.aud !== undefined) {
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!audiences.includes(audience)) throw new TokenRejected('the token does not have a valid audience');
  } else if (payload.client_id !== audience) {
    throw new TokenRejected('the token does not have a valid audience');
  }
  if (typeof payload.iat === 'number' && payload.iat > Math.floor(Date.now() / 1000)) {
    throw new TokenRejected('the token was issued in the future (iat)');
  }
  return payload;
}

/** A short, safe description of why a token failed: it goes into the 401's `detail`. */
function failureReason(error: unknown): string {
  if (error instanceof TokenRejected) return error.message;
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'the token is not valid yet (nbf)';
    if (error.claim === 'iss') return 'the token has the wrong issuer';
    if (error.claim === 'exp') return 'the token has no valid expiry (exp)';
    return `the token's "${error.claim}" claim is invalid`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return 'no signing key matches the token (kid)';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature is invalid';
  if (error instanceof errors.JOSEAlgNotAllowed) return `the token's algorithm must be ${ALGORITHM}`;
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return "the issuer's signing keys could not be fetched";
  if (error instanceof errors.JOSEError) return 'the token is malformed';
  if (error instanceof DiscoveryError) return error.message;
  return 'the token could not be verified';
}

class DiscoveryError extends Error {}

/**
 * External issuer mode: keys come from the issuer's `jwks_uri` (OpenID discovery), fetched
 * on first use and cached by jose; a failed discovery is retried on the next request.
 */
export function createExternalVerifier(issuer: string, audience: string): TokenVerifier {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const discover = async (): Promise<JWTVerifyGetKey> => {
    const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const { jwks_uri } = (await response.json()) as { jwks_uri?: unknown };
      if (typeof jwks_uri !== 'string') throw new Error('no jwks_uri');
      return createRemoteJWKSet(new URL(jwks_uri));
    } catch (error) {
      throw new DiscoveryError(
        `the issuer's signing keys could not be found (${url}: ${error instanceof Error ? error.message : String(error)})`,
      );
    }
  };
  return createVerifier({
    issuer,
    audience,
    keySet: () =>
      (keys ??= discover().catch((error: unknown) => {
        keys = undefined;
        throw error;
      })),
  });
}

export type AuthorizerJwt = APIGatewayEventRequestContextJWTAuthorizer['jwt'];

/**
 * What API Gateway puts in `event.requestContext.authorizer.jwt`. Every claim value becomes
 * a string: numbers and booleans as written, arrays Go-style as "[a b]", objects as
 * "map[k:v]". `scopes` is null unless the route declares authorization scopes (none here
 * do; observed events show null even when the token has a `scope` claim); with route scopes
 * it lists the token's `scope`/`scp` values.
 */
export function toAuthorizerJwt(claims: JwtClaims, routeScopes: readonly string[] = []): AuthorizerJwt {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(claims)) if (value !== undefined) out[name] = claimToString(value);
  let scopes: string[] | null = null;
  if (routeScopes.length > 0) {
    const raw = claims.scope ?? claims.scp;
    scopes = typeof raw === 'string' ? raw.split(' ').filter(Boolean) : Array.isArray(raw) ? raw.map(String) : [];
  }
  return { claims: out, scopes };
}

function claimToString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map(claimToString).join(' ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, v]) => `${k}:${claimToString(v)}`).join(' ')}]`;
  }
  return String(value);
}
