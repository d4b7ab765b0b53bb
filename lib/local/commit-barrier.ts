/**
 * The HTTP proxy in front of DynamoDB Local: one hop that does two things DynamoDB does and
 * DynamoDB Local does not.
 *
 * 1. Conflict mode (`conflicts`, transaction-conflicts.ts): a transaction that overlaps in time
 *    with another on one item is cancelled with `TransactionConflict`, a single-item write on an
 *    item an ongoing transaction holds fails with `TransactionConflictException`.
 * 2. The commit barrier (`commitBarrier`, on disk): a transaction's success is passed on only
 *    once it is committed, as follows.
 *
 * DynamoDB Local (3.3.0) runs every SQLite job on one database thread, in order. For
 * TransactWriteItems (and PartiQL ExecuteTransaction) it queues the COMMIT on that thread
 * without waiting for it, and answers: killed in that window (SIGKILL, a crash), it loses the
 * whole acknowledged transaction (SQLite rolls the hot journal back on the next start). Plain
 * PutItem/UpdateItem/DeleteItem wait for their own COMMIT and need nothing.
 *
 * So a successful transaction's answer is held until a ListTables sent after it has answered:
 * ListTables is a job on the same thread, queued behind that COMMIT, so by then the COMMIT has
 * run. Everything else passes through untouched.
 */
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ConflictOptions, type Outcome, TransactionConflicts } from './transaction-conflicts';

export interface DynamoDbProxy {
  /** Where clients send their requests instead of DynamoDB Local. */
  endpoint: string;
  /** Conflict mode's state (what it refused, what it holds), when it is on. */
  conflicts?: TransactionConflicts;
  close(): Promise<void>;
}

export interface DynamoDbProxyOptions {
  /** Hold a transaction's success until it is committed (DynamoDB Local on disk). */
  commitBarrier?: boolean;
  /** Cancel what overlaps in time on one item, as DynamoDB does (false: off). */
  conflicts?: boolean | ConflictOptions;
}

/** Targets whose success DynamoDB Local reports before its COMMIT has run. */
const TRANSACTIONS = new Set(['DynamoDB_20120810.TransactWriteItems', 'DynamoDB_20120810.ExecuteTransaction']);
const BARRIER_BODY = '{"Limit":1}';
/** Conflict mode never holds a request's items longer than this (DynamoDB Local hung, not answering). */
const HOLD_LIMIT_MS = 30_000;
/** What the SDK reads as a retryable InternalServerError (the handlers then answer 503). */
const NOT_CONFIRMED = JSON.stringify({
  __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
  message: 'DynamoDB Local did not confirm that the transaction was committed.',
});

/** Starts the proxy on 127.0.0.1 (a free port) in front of DynamoDB Local at `target` (http://host:port). */
export async function startDynamoDbProxy(target: string, options: DynamoDbProxyOptions): Promise<DynamoDbProxy> {
  const { hostname, port } = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const schemas = new Map<string, Promise<readonly string[]>>();
  const conflicts = options.conflicts
    ? new TransactionConflicts(
        (table) => {
          let schema = schemas.get(table);
          if (!schema) {
            schema = keySchema(hostname, port, table, agent);
            schemas.set(table, schema);
            schema.catch(() => schemas.delete(table));
          }
          return schema;
        },
        options.conflicts === true ? {} : options.conflicts,
      )
    : undefined;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const target = String(req.headers['x-amz-target']);
    // A table made again under the same name may have another key schema.
    if (target.endsWith('.DeleteTable') || target.endsWith('.CreateTable')) schemas.clear();
    if (!conflicts || !TransactionConflicts.concerns(target)) return forward(req, res, undefined);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      conflicts.admit(target, body).then(
        (admission) => {
          if (!admission.pass) {
            res.writeHead(admission.status, admission.headers).end(admission.body);
            return;
          }
          // Held until DynamoDB Local has answered (for a transaction on disk, past the barrier),
          // whether or not the client still waits: the transaction goes on without it, as on AWS.
          const send = () => (res.destroyed ? admission.release() : forward(req, res, body, admission.release));
          if (admission.delayMs > 0) setTimeout(send, admission.delayMs);
          else send();
        },
        () => res.destroy(),
      );
    });
  };

  /**
   * Sends the request on (its body already read, or still to be piped). `release` (conflict
   * mode's hold on its items, told how the request ended) is called once DynamoDB Local has
   * answered it (before the commit barrier: java has applied it by then), before the answer is
   * passed on, or when DynamoDB Local is gone, or after HOLD_LIMIT_MS at the latest.
   */
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer | undefined, release?: (outcome: Outcome) => void) => {
    const transaction = options.commitBarrier === true && TRANSACTIONS.has(String(req.headers['x-amz-target']));
    let released = false;
    const letGo = (outcome: Outcome) => {
      if (released) return;
      released = true;
      release?.(outcome);
    };
    if (release) setTimeout(() => letGo('unknown'), HOLD_LIMIT_MS).unref();
    const upstream = request({ host: hostname, port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      if (!release && (!transaction || answer.statusCode !== 200)) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', () => {
        letGo('unknown');
        res.destroy();
      });
      answer.on('end', () => {
        letGo(answer.statusCode === 200 ? 'succeeded' : 'failed');
        const deliver = (status: number, headers: OutgoingHttpHeaders, payload: Buffer | string) => {
          if (!res.destroyed) res.writeHead(status, headers).end(payload);
        };
        if (!transaction || answer.statusCode !== 200) return deliver(answer.statusCode ?? 502, answer.headers, Buffer.concat(chunks));
        // Java has applied it (its COMMIT queued, so whatever comes next sees it): DynamoDB's
        // transaction is over (released above). The barrier is DynamoDB Local's durability, not part of it.
        const wait = () => barrier(hostname, port, req.headers, agent);
        // One retry: java may close a kept-alive socket just as it is reused.
        wait()
          .catch(wait)
          .then(
            () => deliver(200, answer.headers, Buffer.concat(chunks)),
            // Not known to be committed: not acknowledged. The SDK retries with the same ClientRequestToken.
            () => deliver(500, { 'content-type': 'application/x-amz-json-1.0' }, NOT_CONFIRMED),
          );
      });
    });
    // DynamoDB Local gone: the client sees a dropped connection, as it would without the proxy.
    upstream.on('error', () => {
      letGo('unknown');
      res.destroy();
    });
    // A client that leaves takes its request with it, unless conflict mode holds its items: then
    // DynamoDB Local's answer is awaited (and dropped), so the items are held as long as it works on it.
    res.on('close', () => {
      if (!res.writableFinished && !release) upstream.destroy();
    });
    if (body) upstream.end(body);
    else req.pipe(upstream);
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // Like java itself, the proxy must not keep Node alive.
  server.unref();
  const { port: own } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${own}`,
    conflicts,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      })),
  };
}

/** Resolves once a ListTables sent now has been answered 200 (so every job queued before it has run). */
async function barrier(host: string, port: string, headers: IncomingHttpHeaders, agent: Agent): Promise<void> {
  // DynamoDB Local reads the caller's credentials from it (and checks no signature).
  const credentials = {
    ...(headers.authorization ? { authorization: headers.authorization } : {}),
    ...(headers['x-amz-date'] ? { 'x-amz-date': headers['x-amz-date'] } : {}),
  };
  await call(host, port, agent, 'ListTables', BARRIER_BODY, credentials);
}

/** The key attribute names of `table` (partition, then sort), from DescribeTable. */
async function keySchema(host: string, port: string, table: string, agent: Agent): Promise<readonly string[]> {
  // DynamoDB Local with -sharedDb ignores who asks, but wants credentials named.
  const credentials = {
    authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
  };
  const answer = await call(host, port, agent, 'DescribeTable', JSON.stringify({ TableName: table }), credentials);
  const { Table } = JSON.parse(answer) as { Table?: { KeySchema?: { AttributeName: string; KeyType: string }[] } };
  const schema = Table?.KeySchema ?? [];
  return ['HASH', 'RANGE'].flatMap((type) => schema.filter((k) => k.KeyType === type).map((k) => k.AttributeName));
}

/** One DynamoDB API call of the proxy's own, straight to java; its body when answered 200. */
function call(
  host: string,
  port: string,
  agent: Agent,
  operation: string,
  body: string,
  credentials: IncomingHttpHeaders,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host,
        port,
        method: 'POST',
        path: '/',
        agent,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `DynamoDB_20120810.${operation}`,
          'content-length': Buffer.byteLength(body),
          ...credentials,
        },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', reject);
        answer.on('end', () =>
          answer.statusCode === 200
            ? resolve(Buffer.concat(chunks).toString('utf8'))
            : reject(new Error(`${operation} answered ${answer.statusCode}`)),
        );
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}
