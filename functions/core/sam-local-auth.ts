/**
 * The caller of a request under `sam local` only. SAM CLI does not run an HTTP API's JWT
 * authorizer, so under `sam local start-api` a function gets no `requestContext.authorizer` and
 * would answer every request 401. When SAM runs it (SAM sets `AWS_SAM_LOCAL=true` in its
 * containers; Lambda never does, and test/infra/sam-template.test.ts proves the stack sets it on
 * no function), the function checks the bearer token itself, with the rules of the gateway
 * (./jwt.ts), against the issuer env.json names:
 *
 * - `JWT_ISSUER`, `JWT_AUDIENCE`: as the stack's authorizer would have them;
 * - the issuer's public keys: `JWT_JWKS` (the key set itself, JSON), else `JWT_JWKS_URL`, else
 *   OpenID discovery at `<JWT_ISSUER>/.well-known/openid-configuration`.
 *
 * An event that already carries `requestContext.authorizer.jwt` (`sam local invoke` with an event
 * from `npm run event`, as API Gateway would have made it) is taken as it is, as on Lambda.
 *
 * Loaded by ./auth.ts with a dynamic import, and only under `sam local`: a deployed function never
 * runs this module's code.
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { createLocalJWKSet, createRemoteJWKSet, type JSONWebKeySet } from 'jose';
import { callerOf } from './auth';
import { HttpError } from './errors';
import { bearerToken, createExternalVerifier, createVerifier, type TokenVerifier, toAuthorizerJwt } from './jwt';
import type { Caller } from './resources';

let verifier: { key: string; verifier: TokenVerifier } | undefined;

/** The verifier the environment describes (made once per configuration). */
export function samLocalVerifier(env: NodeJS.ProcessEnv = process.env): TokenVerifier {
  const issuer = env.JWT_ISSUER?.trim();
  const audience = env.JWT_AUDIENCE?.trim();
  const jwks = env.JWT_JWKS?.trim();
  const jwksUrl = env.JWT_JWKS_URL?.trim();
  if (!issuer || !audience) {
    // A setup mistake of the person running SAM: a 500 here, and this line in SAM's output.
    throw new Error('Under sam local (AWS_SAM_LOCAL=true) set JWT_ISSUER and JWT_AUDIENCE in env.json: SAM does not run JWT authorizers.');
  }
  const key = JSON.stringify([issuer, audience, jwks, jwksUrl]);
  if (verifier?.key === key) return verifier.verifier;
  let made: TokenVerifier;
  if (jwks) {
    let keySet: ReturnType<typeof createLocalJWKSet>;
    try {
      keySet = createLocalJWKSet(JSON.parse(jwks) as JSONWebKeySet);
    } catch {
      throw new Error('JWT_JWKS must be a JSON Web Key Set ({"keys": [...]}).');
    }
    made = createVerifier({ issuer, audience, keySet: async () => keySet });
  } else if (jwksUrl) {
    const keySet = createRemoteJWKSet(new URL(jwksUrl));
    made = createVerifier({ issuer, audience, keySet: async () => keySet });
  } else {
    made = createExternalVerifier(issuer, audience);
  }
  verifier = { key, verifier: made };
  return made;
}

/** The caller, after checking the bearer token as the stack's JWT authorizer would. */
export async function samLocalCaller(event: APIGatewayProxyEventV2WithJWTAuthorizer): Promise<Caller> {
  if (event.requestContext?.authorizer?.jwt) return callerOf(event);
  const token = bearerToken(event.headers?.authorization);
  if (!token) {
    throw new HttpError('unauthorized', 'A bearer token is required: send `Authorization: Bearer <JWT>`.', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  const verified = await samLocalVerifier().verify(token);
  if (!verified.ok) {
    throw new HttpError('unauthorized', `The bearer token was rejected: ${verified.reason}.`, {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  event.requestContext.authorizer = { jwt: toAuthorizerJwt(verified.claims) } as typeof event.requestContext.authorizer;
  return callerOf(event);
}
