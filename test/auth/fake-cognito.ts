/**
 * A local stand-in for the parts of Cognito's managed login the sign-in routes talk to, as the
 * Amazon Cognito developer guide documents them:
 * - `GET /oauth2/authorize` ("The authorize endpoint"): signs in `user` at once and redirects to
 *   `redirect_uri` with a one-time `code` and the `state` it was given; it remembers the PKCE
 *   challenge (S256 only) and the redirect URI for that code.
 * - `POST /oauth2/token` ("The token endpoint"): `application/x-www-form-urlencoded`;
 *   `authorization_code` needs the code, the same `redirect_uri` and `client_id`, and a
 *   `code_verifier` whose S256 is the challenge; a code is good once. `refresh_token` answers new
 *   access and ID tokens (no new refresh token: Cognito returns one only with rotation on).
 *   Refusals are 400 `{"error":"invalid_grant"}`, `unsupported_grant_type`, `invalid_client`, `invalid_request`.
 * - `POST /oauth2/revoke` ("The revoke endpoint"): the refresh token stops working.
 * Tokens are opaque strings shaped like JWTs (the routes never check their signatures).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface FakeCognito {
  readonly url: string;
  /** The form bodies the token endpoint got, in order. */
  readonly tokenRequests: URLSearchParams[];
  readonly revoked: Set<string>;
  /** The refresh token issued for each code exchanged. */
  readonly issued: Map<string, string>;
  /** Whether the token endpoint fails with a 500 (Cognito unavailable). */
  failing: boolean;
  close(): Promise<void>;
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwtLike = (claims: object) => `${b64({ alg: 'RS256', kid: 'fake' })}.${b64(claims)}.${randomBytes(16).toString('base64url')}`;

export async function startFakeCognito(options: { clientId: string; user: { sub: string; email: string } }): Promise<FakeCognito> {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const refreshTokens = new Set<string>();
  const tokenRequests: URLSearchParams[] = [];
  const revoked = new Set<string>();
  const issued = new Map<string, string>();
  const tokens = () => ({
    access_token: jwtLike({ sub: options.user.sub, client_id: options.clientId, token_use: 'access', n: randomBytes(4).toString('hex') }),
    id_token: jwtLike({ sub: options.user.sub, email: options.user.email, aud: options.clientId, token_use: 'id' }),
    expires_in: 3600,
    token_type: 'Bearer',
  });

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const send = (status: number, body: object) => {
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method === 'GET' && url.pathname === '/oauth2/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== options.clientId || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256') {
        return send(400, { error: 'invalid_request' });
      }
      const code = randomBytes(16).toString('hex');
      codes.set(code, { challenge: q.get('code_challenge') ?? '', redirectUri: q.get('redirect_uri') ?? '' });
      const back = new URL(q.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      response.writeHead(302, { Location: back.href });
      return response.end();
    }
    if (request.method !== 'POST' || !['/oauth2/token', '/oauth2/revoke'].includes(url.pathname)) return send(404, { error: 'not_found' });
    if (request.headers['content-type'] !== 'application/x-www-form-urlencoded') return send(400, { error: 'invalid_request' });
    const form = new URLSearchParams(await text(request));
    if (form.get('client_id') !== options.clientId) return send(400, { error: 'invalid_client' });
    if (url.pathname === '/oauth2/revoke') {
      const token = form.get('token') ?? '';
      refreshTokens.delete(token);
      revoked.add(token);
      return send(200, {});
    }
    tokenRequests.push(form);
    if (fake.failing) return send(500, { error: 'internal' });
    if (form.get('grant_type') === 'authorization_code') {
      const grantFor = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!grantFor || grantFor.redirectUri !== form.get('redirect_uri') || grantFor.challenge !== challenge) {
        return send(400, { error: 'invalid_grant' });
      }
      const refresh_token = randomBytes(24).toString('hex');
      refreshTokens.add(refresh_token);
      issued.set(form.get('code') ?? '', refresh_token);
      return send(200, { ...tokens(), refresh_token });
    }
    if (form.get('grant_type') === 'refresh_token') {
      if (!refreshTokens.has(form.get('refresh_token') ?? '')) return send(400, { error: 'invalid_grant' });
      return send(200, tokens());
    }
    return send(400, { error: 'unsupported_grant_type' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const fake: FakeCognito = {
    url: `http://127.0.0.1:${port}`,
    tokenRequests,
    revoked,
    issued,
    failing: false,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return fake;
}

async function text(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
