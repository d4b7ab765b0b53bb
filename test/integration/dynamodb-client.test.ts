/**
 * The store's own DynamoDB client (functions/core/store/dynamodb): its signatures against the
 * AWS SDK's signer, its marshalling, and how it treats DynamoDB's answers — retries, errors,
 * cancellation reasons, timeouts — against a stand-in endpoint that answers as told. The
 * store's tests run it against DynamoDB Local; DynamoDB Local does not check signatures, so
 * the SDK's signer is the reference for those.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoDb, DynamoDbError } from '../../functions/core/store/dynamodb/client';
import { fromItem, toItem } from '../../functions/core/store/dynamodb/marshall';
import { sign } from '../../functions/core/store/dynamodb/sigv4';

describe('signatures', () => {
  const sdkSignature = async (input: Parameters<typeof sign>[0]) => {
    // applyChecksum: an x-amz-content-sha256 header is optional outside S3; DynamoDB clients do not send it.
    const signer = new SignatureV4({ service: input.service, region: input.region, credentials: input.credentials, sha256: Hash.bind(null, 'sha256'), applyChecksum: false });
    const signed = await signer.sign(
      { method: input.method, protocol: 'https:', hostname: input.host, path: input.path, query: {}, headers: { ...input.headers, host: input.host }, body: input.body },
      { signingDate: input.now },
    );
    return signed.headers['authorization'];
  };

  it('signs every request exactly as the AWS SDK does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          body: fc.json(),
          target: fc.constantFrom('BatchGetItem', 'Query', 'TransactWriteItems'),
          region: fc.constantFrom('us-east-1', 'eu-west-3', 'ap-southeast-2'),
          accessKeyId: fc.stringMatching(/^[A-Z0-9]{16,20}$/),
          secretAccessKey: fc.stringMatching(/^[A-Za-z0-9/+]{40}$/),
          sessionToken: fc.option(fc.stringMatching(/^[A-Za-z0-9/+=]{20,200}$/), { nil: undefined }),
          now: fc.date({ min: new Date('2020-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }),
        }),
        async ({ body, target, region, accessKeyId, secretAccessKey, sessionToken, now }) => {
          const credentials = { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
          const input = {
            method: 'POST',
            host: `dynamodb.${region}.amazonaws.com`,
            path: '/',
            headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${target}` },
            body,
            region,
            service: 'dynamodb',
            credentials,
            now,
          };
          const ours = sign(input);
          expect(ours['authorization']).toBe(await sdkSignature(input));
          if (sessionToken) expect(ours['x-amz-security-token']).toBe(sessionToken);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('marshalling', () => {
  const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string(),
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }),
    ),
  })).value;

  it('gives back what it was given', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), value), (item) => {
        expect(fromItem(toItem(item))).toEqual(item);
      }),
    );
  });

  it('leaves out undefined, and refuses numbers DynamoDB cannot hold', () => {
    expect(toItem({ a: 'x', b: undefined, c: [1, undefined] })).toEqual({ a: { S: 'x' }, c: { L: [{ N: '1' }] } });
    expect(() => toItem({ n: Infinity })).toThrow(/cannot store/);
    expect(fromItem({ s: { SS: ['a'] }, n: { NS: ['1', '2'] } })).toEqual({ s: new Set(['a']), n: new Set([1, 2]) });
  });
});

describe('answers from DynamoDB', () => {
  /** What the stand-in answers, one per request, and what it was sent. */
  let script: ((req: IncomingMessage, body: string, res: ServerResponse) => void)[] = [];
  const received: { target: string; body: Record<string, any>; headers: IncomingMessage['headers'] }[] = [];
  let server: Server;
  let endpoint = '';

  const json = (status: number, body: unknown) => (_req: IncomingMessage, _body: string, res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
  const error = (status: number, type: string, extra: object = {}) =>
    json(status, { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: `${type} happened`, ...extra });
  const silent = () => () => {};

  const client = (requestTimeoutMs = 2_000) =>
    createDynamoDb({ region: 'us-east-1', endpoint, credentials: () => ({ accessKeyId: 'AKID', secretAccessKey: 'secret' }), requestTimeoutMs });

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk)).on('end', () => {
        received.push({ target: String(req.headers['x-amz-target']), body: JSON.parse(body), headers: req.headers });
        (script.shift() ?? error(500, 'InternalServerError'))(req, body, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => {
    script = [];
    received.length = 0;
  });

  it('sends marshalled input to the operation’s target and unmarshalls the answer', async () => {
    script = [json(200, { Responses: { t: [{ PK: { S: 'a' }, n: { N: '2' }, gone: { NULL: true } }] }, UnprocessedKeys: {} })];
    const output = await client().send('BatchGetItem', { RequestItems: { t: { Keys: [{ PK: 'a', SK: 'b' }], ConsistentRead: true } } });
    expect(output).toEqual({ Responses: { t: [{ PK: 'a', n: 2, gone: null }] }, UnprocessedKeys: {} });
    expect(received[0]).toMatchObject({
      target: 'DynamoDB_20120810.BatchGetItem',
      body: { RequestItems: { t: { Keys: [{ PK: { S: 'a' }, SK: { S: 'b' } }], ConsistentRead: true } } },
    });
    expect(received[0]!.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/us-east-1\/dynamodb\/aws4_request/);
  });

  it('retries throttling and server errors, with one idempotency token for a transaction', async () => {
    script = [error(400, 'ThrottlingException'), error(500, 'InternalServerError'), json(200, {})];
    await client().send('TransactWriteItems', { TransactItems: [{ Put: { TableName: 't', Item: { PK: 'a', SK: 'b' } } }] });
    expect(received).toHaveLength(3);
    const tokens = new Set(received.map((r) => r.body['ClientRequestToken']));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives up after three attempts, and never retries what a retry cannot fix', async () => {
    script = [error(503, 'ServiceUnavailable'), error(503, 'ServiceUnavailable'), error(503, 'ServiceUnavailable')];
    await expect(client().send('Query', { TableName: 't' })).rejects.toMatchObject({ name: 'ServiceUnavailable', status: 503 });
    expect(received).toHaveLength(3);

    received.length = 0;
    script = [error(400, 'ValidationException')];
    const refused = await client().send('Query', { TableName: 't' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DynamoDbError);
    expect(refused).toMatchObject({ name: 'ValidationException', message: 'ValidationException happened' });
    expect(received).toHaveLength(1);
  });

  it('reports why a transaction was cancelled, with the items asked for as plain values', async () => {
    const reasons = [{ Code: 'ConditionalCheckFailed', Item: { PK: { S: 'USER#u' }, 'R#r': { S: 'viewer' } } }, { Code: 'None' }];
    script = [error(400, 'TransactionCanceledException', { CancellationReasons: reasons })];
    const failure = (await client().send('TransactWriteItems', { TransactItems: [] }).catch((e: unknown) => e)) as DynamoDbError;
    expect(failure.name).toBe('TransactionCanceledException');
    expect(failure.cancellationReasons).toEqual([{ Code: 'ConditionalCheckFailed', Item: { PK: 'USER#u', 'R#r': 'viewer' } }, { Code: 'None' }]);
  });

  it('stops waiting when DynamoDB does not answer', async () => {
    script = [silent(), silent(), silent()];
    const started = performance.now();
    await expect(client(200).send('Query', { TableName: 't' })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(received).toHaveLength(3);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('lets interceptors see every attempt and add to the request', async () => {
    script = [error(500, 'InternalServerError'), json(200, { Count: 0 })];
    const seen: string[] = [];
    const db = client();
    db.use(async (call, next) => {
      call.input['ReturnConsumedCapacity'] = 'TOTAL';
      seen.push(call.operation);
      return next();
    });
    expect(await db.send('Query', { TableName: 't' })).toEqual({ Count: 0 });
    expect(seen).toEqual(['Query', 'Query']);
    expect(received.map((r) => r.body['ReturnConsumedCapacity'])).toEqual(['TOTAL', 'TOTAL']);
  });
});
