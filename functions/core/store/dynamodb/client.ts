/**
 * A small DynamoDB client: the JSON protocol over keep-alive HTTPS, SigV4-signed with the
 * credentials Lambda puts in the environment, plain values in and out (marshall.ts), retries
 * of throttling, 5xx and network failures with jittered backoff.
 *
 * Why not the AWS SDK: in a handler bundle, SDK v3 was ~200 KB of the ~270 KB, and loading it
 * took more than a whole empty Node process takes to start (bench/results.md, cold start). The
 * store needs four operations of one service, with the credentials Lambda provides; this is
 * that, and nothing else. The SDK stays where its breadth helps: lib/local and the tests.
 */
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { convertItems, fromItem, toItem } from './marshall';
import { sign, type Credentials } from './sigv4';

export type Operation = 'BatchGetItem' | 'BatchWriteItem' | 'GetItem' | 'PutItem' | 'Query' | 'TransactWriteItems';

/** One HTTP exchange with DynamoDB, as interceptors see it (plain values, not attribute values). */
export interface Call {
  operation: Operation;
  input: Record<string, any>;
}

/** Wraps each attempt: observe it, time it, count it. Must call `next` once and return what it returns. */
export type Interceptor = (call: Call, next: () => Promise<Record<string, any>>) => Promise<Record<string, any>>;

/** An error DynamoDB answered with; `name` is its type (`ConditionalCheckFailedException`, …). */
export class DynamoDbError extends Error {
  constructor(
    name: string,
    message: string,
    readonly status: number,
    /** TransactionCanceledException: per action, in request order; `Item` as plain values. */
    readonly cancellationReasons?: { Code?: string; Message?: string; Item?: Record<string, unknown> }[],
  ) {
    super(message);
    this.name = name;
  }
}

export interface ClientOptions {
  region: string;
  /** Default: DynamoDB's regional HTTPS endpoint. */
  endpoint?: string;
  credentials: () => Credentials;
  maxAttempts?: number;
  connectionTimeoutMs?: number;
  /** For the whole exchange, from sending to the last byte of the answer. */
  requestTimeoutMs?: number;
}

export interface DynamoDb {
  send(operation: Operation, input: Record<string, any>): Promise<Record<string, any>>;
  /** Adds an interceptor around every attempt (outermost first). */
  use(interceptor: Interceptor): void;
}

const RETRYABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createDynamoDb(options: ClientOptions): DynamoDb {
  const url = new URL(options.endpoint ?? `https://dynamodb.${options.region}.amazonaws.com`);
  const secure = url.protocol === 'https:';
  // Keep-alive, as the SDK does: a warm function reuses its connection to DynamoDB.
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 50 }) : new HttpAgent({ keepAlive: true, maxSockets: 50 });
  const maxAttempts = options.maxAttempts ?? 3;
  const interceptors: Interceptor[] = [];

  async function exchange(operation: Operation, body: string): Promise<Record<string, any>> {
    const headers = sign({
      method: 'POST',
      host: url.host,
      path: '/',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
      },
      body,
      region: options.region,
      service: 'dynamodb',
      credentials: options.credentials(),
      now: new Date(),
    });
    const response = await post(url, secure, agent, { ...headers, 'content-length': String(Buffer.byteLength(body)) }, body, options);
    const parsed = response.body ? (JSON.parse(response.body) as Record<string, any>) : {};
    if (response.status === 200) return parsed;
    throw toError(response.status, parsed);
  }

  return {
    use: (interceptor) => void interceptors.push(interceptor),
    async send(operation, input) {
      // Transactions carry an idempotency token, the same on every attempt, so a retry of a
      // write that did commit is not applied twice (and not refused by its own conditions).
      const call: Call = {
        operation,
        input: operation === 'TransactWriteItems' && !input['ClientRequestToken'] ? { ...input, ClientRequestToken: randomUUID() } : { ...input },
      };
      for (let attempt = 1; ; attempt++) {
        try {
          // Interceptors may add to the input (ReturnConsumedCapacity): serialize it last.
          const run = interceptors.reduceRight<() => Promise<Record<string, any>>>(
            (next, interceptor) => () => interceptor(call, next),
            async () => convertItems(await exchange(operation, JSON.stringify(convertItems(call.input, toItem))), fromItem) as Record<string, any>,
          );
          return await run();
        } catch (error) {
          if (attempt >= maxAttempts || !isRetryable(error)) throw error;
          await sleep(Math.random() * Math.min(2_000, 100 * 2 ** attempt));
        }
      }
    },
  };
}

function isRetryable(error: unknown): boolean {
  const { name, code, status } = error as { name?: string; code?: string; status?: number };
  return RETRYABLE.has(name ?? '') || RETRYABLE.has(code ?? '') || (status !== undefined && status >= 500);
}

/** DynamoDB's JSON error: `__type` is `<namespace>#<ErrorName>`. */
function toError(status: number, body: Record<string, any>): DynamoDbError {
  const type = String(body['__type'] ?? (status >= 500 ? 'InternalServerError' : 'UnknownError'));
  const name = type.slice(type.lastIndexOf('#') + 1);
  const reasons = body['CancellationReasons'] as { Code?: string; Message?: string; Item?: Record<string, any> }[] | undefined;
  return new DynamoDbError(
    name,
    String(body['message'] ?? body['Message'] ?? name),
    status,
    reasons?.map((reason) => (reason.Item ? { ...reason, Item: fromItem(reason.Item) } : reason)),
  );
}

function post(
  url: URL,
  secure: boolean,
  agent: HttpAgent,
  headers: Record<string, string>,
  body: string,
  options: ClientOptions,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const send = secure ? httpsRequest : httpRequest;
    const request = send({ protocol: url.protocol, hostname: url.hostname, port: url.port, path: '/', method: 'POST', headers, agent });
    const fail = (name: string, message: string) => request.destroy(Object.assign(new Error(message), { name }));
    // Answer 503 well before API Gateway's 30 s limit when the database does not answer.
    const deadline = setTimeout(() => fail('TimeoutError', 'DynamoDB did not answer in time'), options.requestTimeoutMs ?? 5_000);
    request.once('socket', (socket) => {
      if (!socket.connecting) return;
      const connecting = setTimeout(() => fail('TimeoutError', 'could not connect to DynamoDB in time'), options.connectionTimeoutMs ?? 1_000);
      socket.once('connect', () => clearTimeout(connecting)).once('close', () => clearTimeout(connecting));
    });
    request.once('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    request.once('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        clearTimeout(deadline);
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    request.end(body);
  });
}
