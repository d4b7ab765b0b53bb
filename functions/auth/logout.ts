/**
 * GET /auth/logout — signs out: the refresh token is revoked at Cognito (best effort), the
 * session cookie cleared, and the browser sent to Cognito's logout endpoint (Amazon Cognito
 * developer guide, "The logout endpoint"), which ends the managed login's own session and comes
 * back to the app. A GET: it is a navigation, and the app's CSP (`form-action 'self'`) would
 * stop a form's POST from being redirected to Cognito.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { answering, appUrl, clearCookie, readSessionCookie, redirect, revoke, SESSION_COOKIE, settings } from './session';

export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  answering(async () => {
    const s = settings();
    const refreshToken = await readSessionCookie(event);
    if (refreshToken) await revoke(s, refreshToken);
    const logout = new URL(`${s.cognitoDomain}/logout`);
    logout.search = new URLSearchParams({ client_id: s.clientId, logout_uri: appUrl(s) }).toString();
    return redirect(logout.href, [clearCookie(s, SESSION_COOKIE)]);
  });
