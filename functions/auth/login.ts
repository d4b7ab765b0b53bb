/**
 * GET /auth/login — starts a sign-in: a fresh `state` and PKCE verifier go into the short-lived
 * sealed sign-in cookie, and the browser goes to Cognito's managed login (its authorize endpoint,
 * Amazon Cognito developer guide, "The authorize endpoint") with the S256 code challenge.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { answering, callbackUrl, codeChallenge, newAttempt, redirect, settings, signInCookie } from './session';

export const handler = (): Promise<APIGatewayProxyStructuredResultV2> =>
  answering(async () => {
    const s = settings();
    const attempt = newAttempt();
    const authorize = new URL(`${s.cognitoDomain}/oauth2/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: s.clientId,
      redirect_uri: callbackUrl(s),
      scope: 'openid email',
      state: attempt.state,
      code_challenge: codeChallenge(attempt.verifier),
      code_challenge_method: 'S256',
    }).toString();
    return redirect(authorize.href, [await signInCookie(s, attempt)]);
  });
