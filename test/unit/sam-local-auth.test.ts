/**
 * The bearer-token check the functions make themselves under `sam local` (AWS_SAM_LOCAL=true;
 * functions/core/sam-local-auth.ts): the same answers as the local gateway's authorizer for every
 * attack token, nothing of it without AWS_SAM_LOCAL, and the setup mistakes said plainly. No
 * database: a refused token is answered before any store call, and an accepted one reaches the
 * id validator (400) first.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setMetricsSink } from '#core/metrics';
import { samLocalCaller } from '#core/sam-local-auth';
import { createGateway } from '#lib/local/gateway';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, type LocalIssuer, loadLocalIssuer } from '#lib/local/jwt';
import { buildContext, buildEvent, resolveRoute } from '#lib/local/lambda-event';
import { type AttackToken, attackTokens } from '#test/support/attack-tokens';

let dataDir: string;
let issuer: LocalIssuer;
let attacks: AttackToken[];
let gateway: Server;
let gatewayUrl: string;
let getDocument: typeof import('#functions/documents/get-document')['handler'];

beforeAll(async () => {
  // The handlers' request lines, the logged 500 and their metric lines are not this test's output.
  process.env.LOG_LEVEL = 'SILENT';
  ({ handler: getDocument } = await import('#functions/documents/get-document'));
  setMetricsSink(() => {});
  dataDir = await mkdtemp(join(tmpdir(), 'sam-local-auth-'));
  issuer = await loadLocalIssuer(dataDir);
  attacks = await attackTokens(issuer);
  // The local gateway with the same issuer; its handlers are never reached by a refused token.
  gateway = createServer(
    createGateway({
      verifier: issuer,
      log: () => {},
      loadHandler: async () => async () => ({ statusCode: 200, body: '{}' }),
    }),
  );
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
afterAll(async () => {
  setMetricsSink(undefined);
  await new Promise((resolve) => gateway.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

const SAM_ENV = ['AWS_SAM_LOCAL', 'JWT_ISSUER', 'JWT_AUDIENCE', 'JWT_JWKS', 'JWT_JWKS_URL'] as const;
afterEach(() => {
  for (const name of SAM_ENV) delete process.env[name];
});
function underSamLocal(env: Partial<Record<(typeof SAM_ENV)[number], string>> = {}) {
  Object.assign(process.env, {
    AWS_SAM_LOCAL: 'true',
    JWT_ISSUER: LOCAL_ISSUER,
    JWT_AUDIENCE: LOCAL_AUDIENCE,
    JWT_JWKS: JSON.stringify(issuer.jwks),
    ...env,
  });
}

/** `GET /document/{id}` as `sam local start-api` hands it over: no authorizer in the event. */
function samEvent(path: string, authorization?: string): APIGatewayProxyEventV2WithJWTAuthorizer {
  const rawHeaders = ['Host', '127.0.0.1:3000', ...(authorization === undefined ? [] : ['Authorization', authorization])];
  return buildEvent({ method: 'GET', url: path, rawHeaders, body: Buffer.alloc(0), sourceIp: '127.0.0.1' }, resolveRoute('GET', path));
}
async function invoke(event: APIGatewayProxyEventV2WithJWTAuthorizer) {
  const result = (await getDocument(event, buildContext('GetDocument'))) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body ?? '{}') as Record<string, unknown> };
}

describe('under sam local (AWS_SAM_LOCAL=true)', () => {
  it('refuses every attack token with the answer the local gateway gives', async () => {
    underSamLocal();
    expect(attacks.length).toBeGreaterThan(10);
    for (const { label, token, reason } of attacks) {
      const fromGateway = await fetch(`${gatewayUrl}/document/d1`, { headers: { authorization: `Bearer ${token}` } });
      const gatewayBody = (await fromGateway.json()) as { detail: string };
      expect(fromGateway.status, label).toBe(401);
      expect(gatewayBody.detail, label).toMatch(reason);

      const answer = await invoke(samEvent('/document/d1', `Bearer ${token}`));
      expect(answer.status, label).toBe(401);
      expect(answer.headers['Content-Type'], label).toBe('application/problem+json');
      expect(answer.body.detail, label).toBe(gatewayBody.detail);
      expect(answer.headers['WWW-Authenticate'], label).toBe(fromGateway.headers.get('www-authenticate'));
    }
  });

  it('refuses a request without a token, as the gateway does', async () => {
    underSamLocal();
    const answer = await invoke(samEvent('/document/d1'));
    expect(answer.status).toBe(401);
    expect(answer.headers['WWW-Authenticate']).toBe('Bearer');
  });

  it('accepts a good token: the caller is its sub, and the request goes on (a malformed id is 400)', async () => {
    underSamLocal();
    const event = samEvent('/document/a%20b', `Bearer ${await issuer.issueToken('alice')}`);
    await expect(samLocalCaller(structuredClone(event))).resolves.toEqual({ userId: 'alice' });
    const answer = await invoke(event);
    expect(answer.status).toBe(400);
    // The claims as API Gateway's authorizer would have passed them.
    expect(event.requestContext.authorizer?.jwt.claims).toMatchObject({ sub: 'alice', iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE });
  });

  it('takes an event that already carries the authorizer claims as it is (sam local invoke with a made event)', async () => {
    underSamLocal();
    const event = samEvent('/document/d1');
    event.requestContext.authorizer = { jwt: { claims: { sub: 'bob' }, scopes: null } } as typeof event.requestContext.authorizer;
    await expect(samLocalCaller(event)).resolves.toEqual({ userId: 'bob' });
  });

  it('says what is missing when env.json names no issuer (500 to the client, the reason in the log)', async () => {
    underSamLocal({ JWT_ISSUER: '' });
    const event = samEvent('/document/d1', `Bearer ${await issuer.issueToken('alice')}`);
    await expect(samLocalCaller(event)).rejects.toThrow(/JWT_ISSUER and JWT_AUDIENCE/);
    const answer = await invoke(samEvent('/document/d1', `Bearer ${await issuer.issueToken('alice')}`));
    expect(answer.status).toBe(500);
    expect(JSON.stringify(answer.body)).not.toMatch(/JWT_ISSUER/);
  });

  it('refuses a token whose keys are not the ones env.json gives', async () => {
    const other = await loadLocalIssuer(await mkdtemp(join(tmpdir(), 'sam-local-other-')));
    underSamLocal({ JWT_JWKS: JSON.stringify(other.jwks) });
    const answer = await invoke(samEvent('/document/d1', `Bearer ${await issuer.issueToken('alice')}`));
    expect(answer.status).toBe(401);
    expect(answer.body.detail).toMatch(/signature|kid/);
  });
});

describe('anywhere else (no AWS_SAM_LOCAL: Lambda, the local gateway)', () => {
  it('never looks at the Authorization header: without the authorizer claims the request is 401', async () => {
    // Even with everything else the SAM path would need set.
    Object.assign(process.env, { JWT_ISSUER: LOCAL_ISSUER, JWT_AUDIENCE: LOCAL_AUDIENCE, JWT_JWKS: JSON.stringify(issuer.jwks) });
    for (const value of [undefined, 'false', 'TRUE', '1']) {
      if (value === undefined) delete process.env.AWS_SAM_LOCAL;
      else process.env.AWS_SAM_LOCAL = value;
      const answer = await invoke(samEvent('/document/a%20b', `Bearer ${await issuer.issueToken('alice')}`));
      expect(answer.status, `AWS_SAM_LOCAL=${value}`).toBe(401);
      expect(answer.body.detail).toMatch(/sub/);
    }
  });
});
