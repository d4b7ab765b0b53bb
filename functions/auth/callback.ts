/**
 * GET /auth/callback — Cognito sends the browser back here with `code` and `state`. The state
 * must be the one sealed in this browser's sign-in cookie (else 400: a forged or replayed
 * callback); the code is exchanged with the PKCE verifier; the refresh token goes into the
 * sealed session cookie only, never into a body; the browser goes on to the app, which then
 * asks /auth/refresh for an access token.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { HttpError } from '#core/errors';
import {
  answering,
  appUrl,
  callbackUrl,
  clearCookie,
  readSignInCookie,
  redirect,
  SIGN_IN_COOKIE,
  SignInError,
  sameState,
  sessionCookie,
  settings,
  tokenGrant,
} from './session';

export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  answering(async () => {
    const s = settings();
    // Whatever happens, this attempt is over: its cookie goes.
    const refuse = (detail: string) => new SignInError(new HttpError('validation-error', detail), [clearCookie(s, SIGN_IN_COOKIE)]);
    const query = event.queryStringParameters ?? {};
    const attempt = await readSignInCookie(event);
    if (!attempt) throw refuse('No sign-in is in progress in this browser (or it took longer than ten minutes): start again.');
    if (typeof query.state !== 'string' || !sameState(attempt.state, query.state)) {
      throw refuse('The sign-in answer does not belong to the sign-in this browser started (`state` differs).');
    }
    if (query.error) throw refuse(`The sign-in was not completed: ${query.error}.`);
    if (!query.code) throw refuse('The sign-in answer has no `code`.');

    const tokens = await tokenGrant(s, {
      grant_type: 'authorization_code',
      code: query.code,
      redirect_uri: callbackUrl(s),
      code_verifier: attempt.verifier,
    });
    if (tokens === 'refused' || !tokens.refreshToken)
      throw refuse('The sign-in code was refused (used, expired or not issued for this sign-in).');
    return redirect(appUrl(s), [clearCookie(s, SIGN_IN_COOKIE), await sessionCookie(s, tokens.refreshToken)]);
  });
