/**
 * The bundled handlers sign with the credentials Lambda puts in the environment, and with
 * nothing else: lib/bundling.ts swaps the SDK's default credential chain for
 * functions/core/db/sdk-stand-ins/env-credentials.ts. A stand-in DynamoDB endpoint records what the
 * bundle sends; a profile in ~/.aws/credentials proves the rest of the chain is gone.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleHandler } from '#lib/bundling';
import { useTempDir } from '#test/support/temp-dir';

const run = promisify(execFile);
const workdir = useTempDir('credentials-');
const seen: IncomingHttpHeaders[] = [];
let server: Server;
let endpoint = '';
let bundle = '';

/** Calls GET /document/{id} of the bundle once, in a fresh Node process with only `env`. */
const INVOKE = `
const { handler } = await import(process.argv[1]);
const event = { version: '2.0', routeKey: 'GET /document/{id}', rawPath: '/document/d1', rawQueryString: '', headers: {},
  pathParameters: { id: 'd1' }, isBase64Encoded: false,
  requestContext: { http: { method: 'GET', path: '/document/d1' }, authorizer: { jwt: { claims: { sub: 'u1' }, scopes: [] } } } };
const result = await handler(event, { awsRequestId: 'r1', functionName: 'f', getRemainingTimeInMillis: () => 10000 });
console.log(JSON.stringify({ status: result.statusCode }));
`;

async function invoke(env: Record<string, string>): Promise<number> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', INVOKE, bundle], {
    env: { PATH: process.env.PATH ?? '', TABLE_NAME: 'documents', AWS_REGION: 'us-east-1', DYNAMODB_ENDPOINT: endpoint, ...env },
  });
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: number }).status;
}

beforeAll(async () => {
  // Answers every BatchGetItem with "nothing found", after noting how it was signed.
  server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume().on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{"Responses":{"documents":[]},"UnprocessedKeys":{}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  bundle = await bundleHandler('documents/get-document', join(workdir, 'bundle'));
}, 60_000);

afterAll(() => {
  server?.close();
});

describe('credentials of a bundled handler', () => {
  it('signs with the key, secret and session token Lambda sets', async () => {
    seen.length = 0;
    const status = await invoke({
      AWS_ACCESS_KEY_ID: 'ASIALAMBDAKEY',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'lambda-session-token',
    });
    expect(status).toBe(404); // the stand-in found nothing: the request went out and came back
    expect(seen).toHaveLength(1);
    expect(seen[0]!.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=ASIALAMBDAKEY\//);
    expect(seen[0]!['x-amz-security-token']).toBe('lambda-session-token');
  });

  it('looks nowhere else: a profile in ~/.aws/credentials is not used', async () => {
    const home = join(workdir, 'home');
    mkdirSync(join(home, '.aws'), { recursive: true });
    writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_access_key_id = AKIAPROFILE\naws_secret_access_key = s\n');
    seen.length = 0;
    const status = await invoke({ HOME: home, AWS_EC2_METADATA_DISABLED: 'true' });
    expect(status).toBe(500);
    expect(seen).toHaveLength(0);
  });

  it('carries none of the default chain’s providers', () => {
    const code = readFileSync(bundle, 'utf8');
    // STS web identity, SSO, and credential_process in ~/.aws/config: markers of the chain.
    for (const marker of ['AssumeRoleWithWebIdentity', 'GetRoleCredentials', 'credential_process']) {
      expect(code.includes(marker), marker).toBe(false);
    }
  });
});
