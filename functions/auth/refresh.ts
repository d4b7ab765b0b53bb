/**
 * POST /auth/refresh — the app's access token, from the refresh token in the sealed session
 * cookie (Cognito's token endpoint, `grant_type=refresh_token`). The body carries the access
 * token only, for the app to keep in memory; no session (no cookie, or one Cognito refuses) is
 * a 401, and a refused one's cookie is cleared. A rotated refresh token replaces the cookie.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { HttpError } from '#core/errors';
import {
  answering,
  clearCookie,
  displayName,
  readSessionCookie,
  SESSION_COOKIE,
  SignInError,
  sessionCookie,
  settings,
  tokenGrant,
} from './session';

export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  answering(async () => {
    const s = settings();
    const signedOut = (detail: string) =>
      new SignInError(new HttpError('unauthorized', detail, { headers: { 'WWW-Authenticate': 'Bearer' } }), [
        clearCookie(s, SESSION_COOKIE),
      ]);
    const refreshToken = await readSessionCookie(event);
    if (!refreshToken) throw signedOut('Not signed in: sign in at /auth/login.');
    const tokens = await tokenGrant(s, { grant_type: 'refresh_token', refresh_token: refreshToken });
    if (tokens === 'refused') throw signedOut('The session has ended (expired or signed out elsewhere): sign in again.');
    const user = displayName(tokens);
    return {
      statusCode: 200,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
      cookies: tokens.refreshToken ? [await sessionCookie(s, tokens.refreshToken)] : [],
      body: JSON.stringify({
        accessToken: tokens.accessToken,
        tokenType: 'Bearer',
        expiresIn: tokens.expiresIn,
        ...(user ? { user } : {}),
      }),
    };
  });
