/**
 * The RDS Data API's `ExecuteStatement` on this machine, over HTTP as deployed, for code that
 * reaches the search database the way a deployed function does (functions/core/search/data-api.ts:
 * a bundle run alone, test/infra/bundles.test.ts). The SDK finds it through
 * `AWS_ENDPOINT_URL_RDS_DATA`. It answers as the Data API does ("Calling the Amazon RDS Data API",
 * Aurora user guide, and the SDK's model of it):
 * - `POST /Execute` only, signed with SigV4 for `rds-data` by a key it was given;
 * - the cluster, secret and database it was given, else `BadRequestException`;
 * - named parameters (`:p1`) of scalar fields; no arrays; a request of at most 4 MiB;
 * - records as one JSON text (`formattedRecords`), within the Data API's size limits (the local
 *   database refuses more: ./search-database.ts);
 * - errors as its client reads them: `x-amzn-errortype` and `{ message }`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Row, SqlPort, SqlValue } from '#core/search/database';
import { S3Refusal, verifySignature } from './s3-signature';
import { DATA_API_MAX_REQUEST_BYTES } from './search-database';

export interface LocalDataApiOptions {
  database: SqlPort;
  /** The keys it takes, as IAM takes any key of a role granted the Data API. */
  keys: readonly { accessKeyId: string; secretAccessKey: string }[];
  clusterArn: string;
  secretArn: string;
  databaseName: string;
  port?: number;
}

export interface LocalDataApi {
  /** For `AWS_ENDPOINT_URL_RDS_DATA`. */
  endpoint: string;
  close(): Promise<void>;
}

/** An error as the Data API answers it. */
class Refusal extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

interface Field {
  isNull?: boolean;
  stringValue?: string;
  longValue?: number;
  doubleValue?: number;
  booleanValue?: boolean;
  arrayValue?: unknown;
  blobValue?: string;
}

interface ExecuteStatementRequest {
  resourceArn?: string;
  secretArn?: string;
  database?: string;
  sql?: string;
  parameters?: { name?: string; value?: Field }[];
  formatRecordsAs?: string;
  transactionId?: string;
}

function parameterValue(field: Field | undefined, name: string): SqlValue {
  if (!field) throw new Refusal('BadRequestException', `Parameter ${name} has no value`);
  if (field.isNull) return null;
  if (field.stringValue !== undefined) return field.stringValue;
  if (field.longValue !== undefined) return field.longValue;
  if (field.doubleValue !== undefined) return field.doubleValue;
  if (field.booleanValue !== undefined) return field.booleanValue;
  if (field.arrayValue !== undefined) throw new Refusal('BadRequestException', 'Array parameters are not supported.');
  throw new Refusal('BadRequestException', `Parameter ${name}: this value type is not served locally`);
}

/**
 * `:p1` → `$1`, each name to its position in `parameters`. As the Data API reads names: not inside
 * quoted text or identifiers, comments or dollar-quoted bodies, and not in a `::type` cast.
 */
function positional(sql: string, parameters: NonNullable<ExecuteStatementRequest['parameters']>): { sql: string; params: SqlValue[] } {
  const index = new Map(parameters.map((parameter, i) => [parameter.name ?? '', i]));
  const skipped = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|(\$[A-Za-z_]*\$)[\s\S]*?\1|::/y;
  const named = /:([A-Za-z_][A-Za-z0-9_]*)/y;
  let text = '';
  for (let at = 0; at < sql.length; ) {
    skipped.lastIndex = at;
    named.lastIndex = at;
    const skip = skipped.exec(sql);
    const name = skip ? null : named.exec(sql);
    if (skip) {
      text += skip[0];
      at += skip[0].length;
    } else if (name) {
      const i = index.get(name[1]!);
      if (i === undefined) throw new Refusal('BadRequestException', `No value specified for parameter: ${name[1]}`);
      text += `$${i + 1}`;
      at += name[0].length;
    } else {
      text += sql[at];
      at += 1;
    }
  }
  return { sql: text, params: parameters.map((parameter) => parameterValue(parameter.value, parameter.name ?? '')) };
}

/** Rows as the Data API's JSON records give them: 64-bit integers as numbers. */
const recordsJson = (rows: readonly Row[]) => JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? Number(value) : value));

export async function startLocalDataApi(options: LocalDataApiOptions): Promise<LocalDataApi> {
  const secretOf = (accessKeyId: string) => options.keys.find((key) => key.accessKeyId === accessKeyId)?.secretAccessKey;

  async function execute(req: IncomingMessage, body: Buffer): Promise<unknown> {
    if (req.method !== 'POST' || req.url !== '/Execute') {
      throw new Refusal('UnknownOperationException', `${req.method} ${req.url} is not an operation served locally`, 404);
    }
    try {
      const signedBy = verifySignature({ method: req.method, url: req.url, headers: req.headers }, secretOf, Date.now(), {
        service: 'rds-data',
        body,
      });
      if (!signedBy) throw new Refusal('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
    } catch (error) {
      if (error instanceof S3Refusal) throw new Refusal('InvalidSignatureException', error.message, 403);
      throw error;
    }
    let request: ExecuteStatementRequest;
    try {
      request = JSON.parse(body.toString('utf8')) as ExecuteStatementRequest;
    } catch {
      throw new Refusal('SerializationException', 'The request body is not JSON');
    }
    if (request.resourceArn !== options.clusterArn) throw new Refusal('BadRequestException', `Cluster not found: ${request.resourceArn}`);
    if (request.secretArn !== options.secretArn)
      throw new Refusal('BadRequestException', 'The secret does not grant access to the cluster');
    if (request.database !== options.databaseName)
      throw new Refusal('BadRequestException', `Database "${request.database}" does not exist`);
    if (request.transactionId) throw new Refusal('BadRequestException', 'Transactions are not served locally');
    if (request.formatRecordsAs !== 'JSON') throw new Refusal('BadRequestException', 'Only formatRecordsAs JSON is served locally');
    if (typeof request.sql !== 'string' || request.sql === '') throw new Refusal('BadRequestException', 'sql is required');
    const { sql, params } = positional(request.sql, request.parameters ?? []);
    let rows: Row[];
    try {
      rows = await options.database.execute(sql, params);
    } catch (error) {
      const name = (error as { name?: string }).name;
      const message = (error as Error).message;
      // The local database's Data API refusals keep their names; a database error is the statement's fault.
      throw new Refusal(name === 'BadRequestException' || name === 'DatabaseResumingException' ? name : 'BadRequestException', message);
    }
    return { formattedRecords: recordsJson(rows), numberOfRecordsUpdated: 0 };
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    // Headers and body, as the Data API counts a request; past its limit the rest is read and dropped.
    let size = req.rawHeaders.reduce((sum, header) => sum + Buffer.byteLength(header) + 2, 0);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= DATA_API_MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      const answering =
        size > DATA_API_MAX_REQUEST_BYTES
          ? Promise.reject(
              new Refusal('BadRequestException', `The request is over the Data API's limit of ${DATA_API_MAX_REQUEST_BYTES} bytes`),
            )
          : execute(req, Buffer.concat(chunks));
      answering.then(
        (answer) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer));
        },
        (error: unknown) => {
          const refusal = error instanceof Refusal ? error : new Refusal('InternalServerErrorException', 'Internal error', 500);
          res.writeHead(refusal.status, { 'content-type': 'application/json', 'x-amzn-errortype': refusal.type });
          res.end(JSON.stringify({ message: refusal.message }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
