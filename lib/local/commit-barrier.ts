/**
 * An HTTP proxy in front of DynamoDB Local that passes on a transaction's success only once it is committed.
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
import { Agent, createServer, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CommitBarrier {
  /** Where clients send their requests instead of DynamoDB Local. */
  endpoint: string;
  close(): Promise<void>;
}

/** Targets whose success DynamoDB Local reports before its COMMIT has run. */
const TRANSACTIONS = new Set(['DynamoDB_20120810.TransactWriteItems', 'DynamoDB_20120810.ExecuteTransaction']);
const BARRIER_BODY = '{"Limit":1}';
/** What the SDK reads as a retryable InternalServerError (the handlers then answer 503). */
const NOT_CONFIRMED = JSON.stringify({
  __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
  message: 'DynamoDB Local did not confirm that the transaction was committed.',
});

/** Starts the proxy on 127.0.0.1 (a free port) in front of DynamoDB Local at `target` (http://host:port). */
export async function startCommitBarrier(target: string): Promise<CommitBarrier> {
  const { hostname, port } = new URL(target);
  const agent = new Agent({ keepAlive: true });

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const transaction = TRANSACTIONS.has(String(req.headers['x-amz-target']));
    const upstream = request({ host: hostname, port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      if (!transaction || answer.statusCode !== 200) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', () => res.destroy());
      answer.on('end', () => {
        const wait = () => barrier(hostname, port, req.headers, agent);
        // One retry: java may close a kept-alive socket just as it is reused.
        wait()
          .catch(wait)
          .then(
            () => !res.destroyed && res.writeHead(200, answer.headers).end(Buffer.concat(chunks)),
            // Not known to be committed: not acknowledged. The SDK retries with the same ClientRequestToken.
            () => !res.destroyed && res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' }).end(NOT_CONFIRMED),
          );
      });
    });
    // DynamoDB Local gone: the client sees a dropped connection, as it would without the proxy.
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };

  const server = createServer(forward);
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
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      })),
  };
}

/** Resolves once a ListTables sent now has been answered 200 (so every job queued before it has run). */
function barrier(host: string, port: string, headers: IncomingHttpHeaders, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = request(
      {
        host,
        port,
        method: 'POST',
        path: '/',
        agent,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          'content-length': Buffer.byteLength(BARRIER_BODY),
          // DynamoDB Local reads the caller's credentials from it (and checks no signature).
          ...(headers.authorization ? { authorization: headers.authorization } : {}),
          ...(headers['x-amz-date'] ? { 'x-amz-date': headers['x-amz-date'] } : {}),
        },
      },
      (answer) => {
        answer.resume();
        answer.on('end', () => (answer.statusCode === 200 ? resolve() : reject(new Error(`ListTables answered ${answer.statusCode}`))));
        answer.on('error', reject);
      },
    );
    call.on('error', reject);
    call.end(BARRIER_BODY);
  });
}
