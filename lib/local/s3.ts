/**
 * The file bucket on this machine: npm `@20minutes/s3rver` (an S3 emulator on Koa, objects as
 * files under `dataDir`), in this process, behind a front that makes it answer as S3 does where
 * the service relies on it (docs/local-s3.md lists what is still different):
 *
 * - Every request is verified here (./s3-signature.ts): an unsigned request is refused (the
 *   bucket is private), a URL altered in any way or expired is refused, and presigned URLs with
 *   RFC 6266 `filename*=UTF-8''…` dispositions verify.
 * - IAM: the local runtime's own key may do anything; each function signs with a key of its own
 *   (`credentialsOf`) and may do only what its route declares (`s3ActionsOf`, functions/routes.ts),
 *   on keys under the file prefix, as the stack grants on AWS. A presigned URL carries the
 *   rights of the function that signed it, as on S3. A GET or HEAD of a missing key is 403
 *   AccessDenied unless the caller may list the whole bucket (`refuseMissingKey`), as on S3.
 * - CORS: exactly the deployed bucket's rules (./bucket-cors.ts), preflights answered as S3 does.
 * - ListParts, ListMultipartUploads and AbortMultipartUpload, which s3rver lacks, are answered
 *   here, and DeleteObjects too: IAM authorizes it key by key, and its body's checksum is checked.
 *   A function may list uploads only under the file prefix (stricter than AWS, where
 *   `s3:ListBucketMultipartUploads` has no prefix condition: code that lists elsewhere fails here).
 * - ListObjectsV2 is answered here too: s3rver makes its continuation tokens with DES, which
 *   Node's OpenSSL 3 no longer has, so any listing past one page failed (InternalError).
 * - Writes are atomic (a temporary file renamed into place), so a reader or a crash never sees
 *   half an object or half a part; a part for an upload that is gone is NoSuchUpload, not a new
 *   upload; completing checks each part (InvalidPart, InvalidPartOrder, EntityTooSmall) and
 *   runs once per upload at a time.
 * - A request with checksums (`x-amz-checksum-*`, trailing checksums), which s3rver would store
 *   unchecked, is refused (501): the service checks `sha256` itself.
 * - ObjectCreated notifications come out as S3 delivers them to Lambda (`S3Event` records, the
 *   key URL-encoded, `ObjectCreated:CompleteMultipartUpload` after a multipart upload).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import type { S3Event, S3EventRecord } from 'aws-lambda';
import { allFunctions, type S3Action, s3ActionsOf } from '#functions/routes';
import { bucketDefinition, corsRules, defaultBucketName } from '#lib/bucket';
import { answerPreflight, corsXml, deployedCorsRules } from './bucket-cors';
import { checkSessionToken, type SessionCredentials, Sessions, sessionSecondsFrom, sessionToken } from './s3-sessions';
import { queryParameters, S3Refusal, verifySignature } from './s3-signature';
import { readOrCreateOnce } from './write-once';

const require = createRequire(import.meta.url);

interface S3rverStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  listObjects(
    bucket: string,
    options: { prefix?: string; delimiter?: string; startAfter?: string; maxKeys: number },
  ): Promise<{
    objects: { key: string; size: number; lastModifiedDate: Date; metadata: Record<string, string> }[];
    commonPrefixes: string[];
    isTruncated: boolean;
  }>;
  putContent(path: string, content: Buffer | Readable): Promise<[number, string]>;
  putObject(object: { bucket: string; key: string; content: Buffer | Readable; metadata: Record<string, unknown> }): Promise<{
    size: number;
    md5: string;
  }>;
  putMetadata(bucket: string, key: string, metadata: Record<string, unknown>, md5?: string): Promise<void>;
  putPart(
    bucket: string,
    uploadId: string,
    partNumber: number | string,
    content: Buffer | Readable,
  ): Promise<{ size: number; md5: string }>;
  putObjectMultipart(bucket: string, uploadId: string, parts: { number: number; etag: string }[]): Promise<{ size: number; md5: string }>;
  deleteObject(bucket: string, key: string): Promise<void>;
}
interface S3rverApp {
  store: S3rverStore;
  configureBuckets(): Promise<void>;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  on(event: 'event', listener: (event: { Records: S3EventRecord[] }) => void): void;
  logger: { close(): void };
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverApp;
type S3ErrorClass = new (code: string, message: string, detail?: Record<string, unknown>) => Error;
interface AccountClass {
  new (id: number, displayName: string): { createKeyPair(accessKeyId: string, secret: string): void };
  registry: Map<string, unknown>;
}

const S3rver = require('@20minutes/s3rver') as S3rverClass;
const S3Error = require('@20minutes/s3rver/lib/models/error') as S3ErrorClass;
const AWSAccount = require('@20minutes/s3rver/lib/models/account') as AccountClass;
const S3Object = require('@20minutes/s3rver/lib/models/object') as { ALLOWED_METADATA: readonly string[] };

/**
 * `s3:ListBucket` on the whole bucket, with no `s3:prefix` condition. No function of the stack
 * holds it: the route table's `s3:ListBucket` is granted only for the file prefix
 * (lib/stack/route-function.ts). Holding it is what turns a GET or HEAD of a missing key from 403
 * into 404 (`refuseMissingKey`); tests plant it through `grantsOf`.
 */
export const LIST_WHOLE_BUCKET = 's3:ListBucket on the whole bucket';
/** An action of the route table (on the file prefix), or ListBucket with no condition. */
export type S3Grant = S3Action | typeof LIST_WHOLE_BUCKET;

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (a function's): the token, and when they stop working. */
  sessionToken?: string;
  expiration?: Date;
}

export interface LocalS3Options {
  /** Objects and the emulator's key live here. */
  dataDir: string;
  /** 0 = a free port; default 0. */
  port?: number;
  /** Default 127.0.0.1: nothing else on the network reaches it. */
  host?: string;
  /** The bucket made at start; default `documents-files`. */
  bucket?: string;
  /**
   * The browser origins of the bucket's CORS rule (`corsOrigins` of a deployment environment);
   * default: those of the environment the local service stands for (./bucket-cors.ts), so the
   * local bucket has exactly the deployed bucket's rules.
   */
  corsOrigins?: readonly string[];
  /**
   * How long a function's session credentials live (`credentialsOf`); default
   * LOCAL_SESSION_SECONDS, else an hour (./s3-sessions.ts).
   */
  sessionSeconds?: number;
  /** What a function may do; default: what the route table declares for it. */
  grantsOf?: (functionName: string) => readonly S3Grant[] | undefined;
}

export interface LocalS3 {
  /** `http://127.0.0.1:<port>`: use it path-style (`forcePathStyle: true`). */
  endpoint: string;
  port: number;
  bucket: string;
  region: string;
  /** The local runtime's own key: every action, on every key. */
  credentials: Credentials;
  /** What `functionName` signs with here: temporary credentials held to its grants, renewed before they expire. */
  credentialsOf(functionName: string): SessionCredentials;
  /** ObjectCreated notifications, as S3 delivers them to a Lambda function. Returns the unsubscribe. */
  onObjectCreated(listener: (event: S3Event) => void): () => void;
  stop(): Promise<void>;
}

const REGION = 'us-east-1';
const ROOT_KEY = 'LOCALROOT';
/** Letters only after it: DynamoDB Local refuses an access key with other characters, and `npm run invoke` gives a function one key for both. */
const FUNCTION_KEY_PREFIX = 'LOCALFN';
const MIN_PART_BYTES = 5 * 1024 * 1024;
const MAX_PART_NUMBER = 10_000;
const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** The functions of the route table, by name (read afresh: tests plant grants). */
function declaredGrants(name: string): readonly S3Action[] | undefined {
  const fn = allFunctions().find((f) => f.name === name);
  return fn ? s3ActionsOf(fn as { s3?: readonly S3Action[] }) : undefined;
}

/** The emulator's root secret, made once per data folder: keys stay valid across restarts. */
const readRootSecret = async (dataDir: string) =>
  (await readOrCreateOnce(join(dataDir, 'root-secret'), () => `${randomBytes(30).toString('base64url')}\n`)).trim();
const functionSecret = (rootSecret: string, name: string) => createHmac('sha256', rootSecret).update(name).digest('base64url');

/**
 * What function `name` signs with on the emulator whose data is in `dataDir`, running or not (the
 * key an emulator on that folder gives it: `credentialsOf`). For processes that run one function
 * on their own (`npm run invoke`).
 */
export async function functionCredentials(dataDir: string, name: string): Promise<SessionCredentials> {
  const rootSecret = await readRootSecret(dataDir);
  const expiresMs = Date.now() + sessionSecondsFrom(undefined) * 1000;
  return {
    accessKeyId: `${FUNCTION_KEY_PREFIX}${name}`,
    secretAccessKey: functionSecret(rootSecret, name),
    sessionToken: sessionToken(rootSecret, name, expiresMs),
    expiration: new Date(expiresMs),
  };
}

export async function startLocalS3(opts: LocalS3Options): Promise<LocalS3> {
  const bucket = opts.bucket ?? defaultBucketName;
  const objectsDir = join(opts.dataDir, 'objects');
  await mkdir(objectsDir, { recursive: true });
  const rootSecret = await readRootSecret(opts.dataDir);
  const secretOfFunction = (name: string) => functionSecret(rootSecret, name);
  const sessions = new Sessions(
    rootSecret,
    (name) => ({ accessKeyId: `${FUNCTION_KEY_PREFIX}${name}`, secretAccessKey: secretOfFunction(name) }),
    sessionSecondsFrom(opts.sessionSeconds),
  );
  const grantsOf = opts.grantsOf ?? declaredGrants;
  const cors = opts.corsOrigins ? corsRules(opts.corsOrigins) : deployedCorsRules();

  const app = new S3rver({
    silent: true,
    directory: objectsDir,
    // This front checks every signature (./s3-signature.ts); s3rver's own check mis-verifies some.
    allowMismatchedSignatures: true,
    vhostBuckets: false,
    configureBuckets: [{ name: bucket, configs: cors.length > 0 ? [corsXml(cors, S3_NAMESPACE)] : [] }],
  });
  const store = app.store;
  const uploadsDir = (name: string) => store.getResourcePath(name, undefined, 'uploads');
  /** Uploads being completed or aborted: one at a time each. */
  const completing = new Set<string>();
  /** `bucket/key` just made by CompleteMultipartUpload, for its notification's name. */
  const completedKeys = new Set<string>();
  atomicWrites(store, uploadsDir, completing, completedKeys);
  await app.configureBuckets();

  /** The caller behind an access key: the root, a declared function, or nobody. */
  const identityOf = (accessKeyId: string): { name: string; secret: string; root: boolean } | undefined => {
    if (accessKeyId === ROOT_KEY) return { name: 'root', secret: rootSecret, root: true };
    if (!accessKeyId.startsWith(FUNCTION_KEY_PREFIX)) return undefined;
    const name = accessKeyId.slice(FUNCTION_KEY_PREFIX.length);
    return grantsOf(name) === undefined ? undefined : { name, secret: secretOfFunction(name), root: false };
  };
  const registered = new Set<string>();
  /** s3rver looks a request's key up in its own registry even when it does not check the signature. */
  const register = (accessKeyId: string, name: string) => {
    if (registered.has(accessKeyId)) return;
    registered.add(accessKeyId);
    if (!AWSAccount.registry.has(accessKeyId)) new AWSAccount(123456789000, name).createKeyPair(accessKeyId, 'unused');
  };

  const inner = app.callback();
  const server: Server = createServer((req, res) => {
    void front(req, res).then(
      (handled) => {
        if (!handled) inner(req, res);
      },
      (error: unknown) => {
        const refusal =
          error instanceof S3Refusal ? error : new S3Refusal('InternalError', 'We encountered an internal error. Please try again.', 500);
        if (!(error instanceof S3Refusal)) console.error('Local S3:', error);
        writeError(req, res, refusal);
      },
    );
  });

  /** Verifies and authorizes; answers ListParts and AbortMultipartUpload itself. True: answered. */
  async function front(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    // A CORS preflight carries no signature, on S3 too.
    if (req.method === 'OPTIONS') {
      answerPreflight(req, res, cors);
      return true;
    }
    const url = req.url ?? '/';
    // A function signs with temporary credentials (./s3-sessions.ts): its request, or a URL it
    // presigned, dies with them. They are resolved first, as S3 must to check anything signed with them.
    const header = req.headers['x-amz-security-token'];
    const token = new Map(queryParameters(url)).get('X-Amz-Security-Token') ?? (typeof header === 'string' ? header : undefined);
    const accessKeyId = verifySignature({ method: req.method ?? 'GET', url, headers: req.headers }, (id) => {
      const identity = identityOf(id);
      if (identity && !identity.root) checkSessionToken(rootSecret, identity.name, token);
      return identity?.secret;
    });
    if (accessKeyId === undefined) throw new S3Refusal('AccessDenied', 'Access Denied', 403);
    const caller = identityOf(accessKeyId)!;
    const request = classify(req.method ?? 'GET', url, req.headers);
    if (request.operation === 'DeleteObjects') {
      await deleteObjects(req, res, request, caller.root ? undefined : caller.name);
      return true;
    }
    if (!caller.root) authorize(caller.name, grantsOf(caller.name) ?? [], request);
    if (!caller.root) await refuseMissingKey(grantsOf(caller.name) ?? [], request);
    refuseChecksums(req.headers, request.params);
    register(accessKeyId, caller.name);

    if (request.operation === 'ListParts') {
      await listParts(res, request);
      return true;
    }
    if (request.operation === 'ListMultipartUploads') {
      await listUploads(res, request);
      return true;
    }
    if (request.operation === 'ListObjects' && request.params.get('list-type') === '2') {
      await listObjectsV2(res, request);
      return true;
    }
    if (request.operation === 'AbortMultipartUpload') {
      await abortUpload(request);
      res.writeHead(204, { 'x-amz-request-id': requestId() }).end();
      return true;
    }
    return false;
  }

  /**
   * S3 answers a GET or HEAD of a missing key with 404 only to a caller that may list the bucket:
   * "If you don't have the s3:ListBucket permission, Amazon S3 returns an HTTP status code 403
   * Access Denied error" (S3 API reference: GetObject, HeadObject). A ListBucket conditioned on
   * `s3:prefix`, as the stack grants it (lib/stack/route-function.ts), does not apply: the request
   * carries no prefix, so the condition is false. The root key may do anything: it gets the 404.
   */
  async function refuseMissingKey(grants: readonly S3Grant[], request: Classified): Promise<void> {
    if (request.operation !== 'GetObject' && request.operation !== 'HeadObject') return;
    if (grants.includes(LIST_WHOLE_BUCKET)) return;
    const there = await stat(store.getResourcePath(request.bucket, request.key, 'object')).catch(() => undefined);
    if (!there) throw new S3Refusal('AccessDenied', 'Access Denied', 403);
  }

  async function uploadDirOf(request: Classified): Promise<string> {
    const uploadId = request.params.get('uploadId') ?? '';
    const dir = join(uploadsDir(request.bucket), uploadId);
    const key = /^[0-9a-f]{32}$/.test(uploadId) ? await readFile(join(dir, 'key'), 'utf8').catch(() => undefined) : undefined;
    if (key === undefined || key !== request.key) {
      throw new S3Refusal(
        'NoSuchUpload',
        'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
        404,
      );
    }
    return dir;
  }

  async function listParts(res: ServerResponse, request: Classified): Promise<void> {
    const maxParts = Math.min(1000, Number(request.params.get('max-parts') ?? 1000) || 1000);
    const marker = Number(request.params.get('part-number-marker') ?? 0) || 0;
    // Not while the upload is being completed or aborted: s3rver removes its folder file by file,
    // and a listing then found the upload with none of its parts. S3 answers the parts, or
    // NoSuchUpload once the upload is done.
    const uploadId = request.params.get('uploadId') ?? '';
    const { numbers, page, parts } = await exclusively(completing, join(uploadsDir(request.bucket), uploadId), async () => {
      const dir = await uploadDirOf(request);
      const numbers = (await readdir(dir))
        .filter((name) => /^\d+$/.test(name))
        .map(Number)
        .filter((n) => n > marker)
        .sort((a, b) => a - b);
      const page = numbers.slice(0, maxParts);
      const parts = (
        await Promise.all(
          page.map(async (number) => {
            const path = join(dir, String(number));
            const [info, md5] = await Promise.all([
              stat(path).catch(() => undefined),
              readFile(`${path}.md5`, 'utf8').catch(() => undefined),
            ]);
            return info && md5 ? { number, size: info.size, md5, lastModified: info.mtime } : undefined;
          }),
        )
      ).filter((part) => part !== undefined);
      return { numbers, page, parts };
    });
    const truncated = numbers.length > page.length;
    const xml = [
      `<ListPartsResult xmlns="${S3_NAMESPACE}">`,
      `<Bucket>${escapeXml(request.bucket)}</Bucket><Key>${escapeXml(request.key)}</Key>`,
      `<UploadId>${escapeXml(request.params.get('uploadId')!)}</UploadId>`,
      `<PartNumberMarker>${marker}</PartNumberMarker>`,
      `<NextPartNumberMarker>${page.at(-1) ?? marker}</NextPartNumberMarker>`,
      `<MaxParts>${maxParts}</MaxParts><IsTruncated>${truncated}</IsTruncated>`,
      ...parts.map(
        (part) =>
          `<Part><PartNumber>${part.number}</PartNumber><LastModified>${part.lastModified.toISOString()}</LastModified>` +
          `<ETag>"${part.md5}"</ETag><Size>${part.size}</Size></Part>`,
      ),
      '<StorageClass>STANDARD</StorageClass>',
      '</ListPartsResult>',
    ].join('');
    answerXml(res, xml);
  }

  /**
   * ListObjectsV2, with s3rver's store: the continuation token is the last key listed (base64url;
   * opaque to clients, as S3's is).
   */
  async function listObjectsV2(res: ServerResponse, request: Classified): Promise<void> {
    const { params } = request;
    const prefix = params.get('prefix') ?? '';
    const delimiter = params.get('delimiter') || undefined;
    const maxKeysGiven = params.get('max-keys');
    if (maxKeysGiven !== undefined && !/^\d+$/.test(maxKeysGiven)) {
      throw new S3Refusal('InvalidArgument', 'Provided max-keys not an integer or within integer range', 400);
    }
    const maxKeys = Math.min(1000, Number(maxKeysGiven ?? 1000));
    const token = params.get('continuation-token');
    const startAfter = token !== undefined ? Buffer.from(token, 'base64url').toString('utf8') : (params.get('start-after') ?? '');
    const result =
      maxKeys === 0
        ? { objects: [], commonPrefixes: [], isTruncated: false }
        : await store.listObjects(request.bucket, { prefix, delimiter, startAfter, maxKeys });
    const last = result.objects.at(-1);
    const xml = [
      `<ListBucketResult xmlns="${S3_NAMESPACE}">`,
      `<Name>${escapeXml(request.bucket)}</Name><Prefix>${escapeXml(prefix)}</Prefix>`,
      token !== undefined
        ? `<ContinuationToken>${escapeXml(token)}</ContinuationToken>`
        : startAfter
          ? `<StartAfter>${escapeXml(startAfter)}</StartAfter>`
          : '',
      result.isTruncated && last
        ? `<NextContinuationToken>${Buffer.from(last.key, 'utf8').toString('base64url')}</NextContinuationToken>`
        : '',
      `<KeyCount>${result.objects.length + result.commonPrefixes.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys>`,
      delimiter ? `<Delimiter>${escapeXml(delimiter)}</Delimiter>` : '',
      `<IsTruncated>${result.isTruncated}</IsTruncated>`,
      ...result.objects.map(
        (object) =>
          `<Contents><Key>${escapeXml(object.key)}</Key><LastModified>${object.lastModifiedDate.toISOString()}</LastModified>` +
          `<ETag>${escapeXml(object.metadata.etag ?? '')}</ETag><Size>${object.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
      ),
      ...result.commonPrefixes.map((common) => `<CommonPrefixes><Prefix>${escapeXml(common)}</Prefix></CommonPrefixes>`),
      '</ListBucketResult>',
    ].join('');
    answerXml(res, xml);
  }

  /** ListMultipartUploads: the uploads in progress under `prefix`, by key then upload id, paged by the markers. */
  async function listUploads(res: ServerResponse, request: Classified): Promise<void> {
    const prefix = request.prefix ?? '';
    const keyMarker = request.params.get('key-marker') ?? '';
    const uploadIdMarker = request.params.get('upload-id-marker') ?? '';
    const maxUploads = Math.min(1000, Number(request.params.get('max-uploads') ?? 1000) || 1000);
    const dir = uploadsDir(request.bucket);
    const ids = (await readdir(dir).catch(() => [] as string[])).filter((name) => /^[0-9a-f]{32}$/.test(name));
    const uploads = (
      await Promise.all(
        ids.map(async (uploadId) => {
          const [key, info] = await Promise.all([
            readFile(join(dir, uploadId, 'key'), 'utf8').catch(() => undefined),
            stat(join(dir, uploadId)).catch(() => undefined),
          ]);
          return key !== undefined && info ? { key, uploadId, initiated: info.mtime } : undefined;
        }),
      )
    )
      .filter((upload) => upload !== undefined)
      .filter(({ key }) => key.startsWith(prefix))
      .filter(({ key, uploadId }) => key > keyMarker || (uploadIdMarker !== '' && key === keyMarker && uploadId > uploadIdMarker))
      .sort((a, b) => (a.key === b.key ? (a.uploadId < b.uploadId ? -1 : 1) : a.key < b.key ? -1 : 1));
    const page = uploads.slice(0, maxUploads);
    const truncated = uploads.length > page.length;
    const last = page.at(-1);
    const xml = [
      `<ListMultipartUploadsResult xmlns="${S3_NAMESPACE}">`,
      `<Bucket>${escapeXml(request.bucket)}</Bucket>`,
      `<KeyMarker>${escapeXml(keyMarker)}</KeyMarker><UploadIdMarker>${escapeXml(uploadIdMarker)}</UploadIdMarker>`,
      ...(truncated && last
        ? [`<NextKeyMarker>${escapeXml(last.key)}</NextKeyMarker><NextUploadIdMarker>${last.uploadId}</NextUploadIdMarker>`]
        : []),
      `<Prefix>${escapeXml(prefix)}</Prefix><MaxUploads>${maxUploads}</MaxUploads><IsTruncated>${truncated}</IsTruncated>`,
      ...page.map(
        (upload) =>
          `<Upload><Key>${escapeXml(upload.key)}</Key><UploadId>${upload.uploadId}</UploadId>` +
          `<Initiated>${upload.initiated.toISOString()}</Initiated><StorageClass>STANDARD</StorageClass></Upload>`,
      ),
      '</ListMultipartUploadsResult>',
    ].join('');
    answerXml(res, xml);
  }

  /**
   * DeleteObjects, answered here: IAM authorizes it key by key (`s3:DeleteObject`), and S3
   * requires a checksum of the body, which the SDK sends even with `WHEN_REQUIRED`: it is
   * checked here, on the whole (small) body.
   */
  async function deleteObjects(req: IncomingMessage, res: ServerResponse, request: Classified, functionName: string | undefined) {
    const body = await readBody(req, 2 * 1024 * 1024);
    verifyBodyChecksum(req.headers, body);
    const xml = body.toString('utf8');
    const keys = [...xml.matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((match) => unescapeXml(match[1]!));
    if (keys.length === 0 || keys.length > 1000) throw new S3Refusal('MalformedXML', 'The XML you provided was not well-formed.', 400);
    const quiet = /<Quiet>\s*true\s*<\/Quiet>/i.test(xml);
    const results = await Promise.all(
      keys.map(async (key) => {
        if (functionName !== undefined) {
          try {
            authorize(functionName, grantsOf(functionName) ?? [], {
              ...request,
              operation: 'DeleteObject',
              action: 's3:DeleteObject',
              key,
            });
          } catch {
            return `<Error><Key>${escapeXml(key)}</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`;
          }
        }
        await deleteObjectFiles(request.bucket, key);
        return quiet ? '' : `<Deleted><Key>${escapeXml(key)}</Key></Deleted>`;
      }),
    );
    await removeEmptyDirectories(request.bucket, keys);
    answerXml(res, `<DeleteResult xmlns="${S3_NAMESPACE}">${results.join('')}</DeleteResult>`);
  }

  /**
   * One object's files, for DeleteObjects. s3rver's own deleteObject also climbs the key's
   * directories with a synchronous read of each after every object, which made deleting 1,000
   * keys of one directory quadratic (over 5 s), and removed them recursively, which could take
   * an object being written there with them; here they are removed once, and only when empty.
   */
  async function deleteObjectFiles(bucket: string, key: string): Promise<void> {
    const files = ['object', 'object.md5', 'metadata.json'].map((resource) => store.getResourcePath(bucket, key, resource));
    await Promise.all(
      files.map((file) =>
        unlink(file).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        }),
      ),
    );
  }

  /** The directories of these keys that are now empty, deepest first, up to the bucket's. */
  async function removeEmptyDirectories(bucket: string, keys: readonly string[]): Promise<void> {
    const bucketDir = dirname(store.getResourcePath(bucket, 'any', 'object'));
    const dirs = new Set<string>();
    for (const key of keys) {
      for (let dir = dirname(store.getResourcePath(bucket, key, 'object')); dir.startsWith(`${bucketDir}/`); dir = dirname(dir))
        dirs.add(dir);
    }
    for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
      await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
        if (!['ENOENT', 'ENOTEMPTY', 'EEXIST'].includes(error.code ?? '')) throw error;
      });
    }
  }

  async function abortUpload(request: Classified): Promise<void> {
    const dir = await uploadDirOf(request);
    await exclusively(completing, dir, () => rm(dir, { recursive: true, force: true }));
  }

  const listeners = new Set<(event: S3Event) => void>();
  let sequence = 0;
  app.on('event', (event) => {
    for (const record of event.Records) {
      if (!record.eventName.startsWith('ObjectCreated:')) continue;
      const key = record.s3.object.key;
      const multipart = completedKeys.delete(`${record.s3.bucket.name}/${key}`);
      const notification: S3EventRecord = {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: REGION,
        eventTime: new Date().toISOString(),
        eventName: multipart ? 'ObjectCreated:CompleteMultipartUpload' : record.eventName,
        userIdentity: { principalId: 'AWS:LOCAL' },
        requestParameters: { sourceIPAddress: '127.0.0.1' },
        responseElements: { 'x-amz-request-id': requestId(), 'x-amz-id-2': requestId() },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'ObjectCreated',
          bucket: { name: record.s3.bucket.name, ownerIdentity: { principalId: 'LOCAL' }, arn: `arn:aws:s3:::${record.s3.bucket.name}` },
          object: {
            // S3 URL-encodes the key in notifications (a space as `+`).
            key: key
              .split('/')
              .map((segment) => encodeURIComponent(segment).replace(/%20/g, '+'))
              .join('/'),
            size: record.s3.object.size,
            eTag: record.s3.object.eTag,
            sequencer: (++sequence).toString(16).toUpperCase().padStart(16, '0'),
          },
        },
      };
      for (const listener of listeners) listener({ Records: [notification] });
    }
  });

  const host = opts.host ?? '127.0.0.1';
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });

  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    bucket,
    region: REGION,
    credentials: { accessKeyId: ROOT_KEY, secretAccessKey: rootSecret },
    credentialsOf: (name) => sessions.of(name),
    onObjectCreated(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop: () =>
      (stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => app.logger.close())),
  };
}

interface Classified {
  operation: string;
  /** The IAM action it needs; `undefined`: only the root may (bucket settings and the like). */
  action: S3Action | undefined;
  bucket: string;
  key: string;
  params: Map<string, string>;
  /** ListBucket, ListMultipartUploads: the prefix listed. */
  prefix?: string;
  /** CopyObject: the source key, which needs s3:GetObject too. */
  copySource?: string;
}

/** The S3 operation a path-style request is, and what IAM needs for it. */
function classify(method: string, url: string, headers: IncomingMessage['headers']): Classified {
  const params = new Map(queryParameters(url));
  const [, bucketSegment = '', ...keySegments] = (url.split('?')[0] ?? '/').split('/');
  const bucket = decodeURIComponent(bucketSegment);
  const key = keySegments.map((segment) => decodeURIComponent(segment)).join('/');
  const base = { bucket, key, params };
  const has = (name: string) => params.has(name);
  if (!bucket) return { ...base, operation: 'ListBuckets', action: undefined };
  if (!key) {
    if (method === 'POST' && has('delete')) return { ...base, operation: 'DeleteObjects', action: 's3:DeleteObject' };
    if (method === 'GET' && has('uploads')) {
      return { ...base, operation: 'ListMultipartUploads', action: 's3:ListBucketMultipartUploads', prefix: params.get('prefix') ?? '' };
    }
    const listing = method === 'GET' && ![...params.keys()].some((name) => BUCKET_SUBRESOURCES.has(name));
    return listing
      ? { ...base, operation: 'ListObjects', action: 's3:ListBucket', prefix: params.get('prefix') ?? '' }
      : { ...base, operation: 'BucketRequest', action: undefined };
  }
  if (has('tagging') || has('acl') || has('retention') || has('legal-hold') || has('torrent')) {
    return { ...base, operation: 'ObjectSubresource', action: undefined };
  }
  switch (method) {
    case 'GET':
      return has('uploadId')
        ? { ...base, operation: 'ListParts', action: 's3:ListMultipartUploadParts' }
        : { ...base, operation: 'GetObject', action: 's3:GetObject' };
    case 'HEAD':
      return { ...base, operation: 'HeadObject', action: 's3:GetObject' };
    case 'PUT': {
      const source = headers['x-amz-copy-source'];
      const copySource = typeof source === 'string' ? decodeURIComponent(source.replace(/^\//, '').split('?')[0]!) : undefined;
      const operation = has('uploadId') ? 'UploadPart' : 'PutObject';
      return { ...base, operation, action: 's3:PutObject', ...(copySource !== undefined ? { copySource } : {}) };
    }
    case 'POST':
      if (has('uploads')) return { ...base, operation: 'CreateMultipartUpload', action: 's3:PutObject' };
      if (has('uploadId')) return { ...base, operation: 'CompleteMultipartUpload', action: 's3:PutObject' };
      return { ...base, operation: 'ObjectPost', action: undefined };
    case 'DELETE':
      return has('uploadId')
        ? { ...base, operation: 'AbortMultipartUpload', action: 's3:AbortMultipartUpload' }
        : { ...base, operation: 'DeleteObject', action: 's3:DeleteObject' };
    default:
      return { ...base, operation: method, action: undefined };
  }
}

const CHECKSUM_FIELDS = /^x-amz-(checksum-(crc32|crc32c|crc64nvme|sha1|sha256)|sdk-checksum-algorithm|trailer)$/;

/**
 * s3rver neither checks `x-amz-checksum-*` nor decodes a body with trailing checksums (it would
 * store the framing as data), where S3 checks them and refuses a mismatch: so such a request is
 * refused here rather than accepted unchecked. The service signs with
 * `requestChecksumCalculation: 'WHEN_REQUIRED'` (functions/core/bucket.ts) and checks `sha256`
 * itself, on AWS and here alike.
 */
function refuseChecksums(headers: IncomingMessage['headers'], params: Map<string, string>): void {
  const names = [...Object.keys(headers), ...[...params.keys()].map((name) => name.toLowerCase())];
  const payload = headers['x-amz-content-sha256'];
  const trailer = typeof payload === 'string' && payload.endsWith('-TRAILER');
  const field = names.find((name) => CHECKSUM_FIELDS.test(name));
  if (field || trailer) {
    throw new S3Refusal(
      'NotImplemented',
      `The local S3 emulator does not verify checksums (${field ?? payload}): create the S3 client with requestChecksumCalculation: 'WHEN_REQUIRED' (docs/local-s3.md).`,
      501,
    );
  }
}

const BUCKET_SUBRESOURCES = new Set([
  'cors',
  'website',
  'location',
  'uploads',
  'delete',
  'policy',
  'lifecycle',
  'versioning',
  'acl',
  'tagging',
]);

/** IAM's answer for a function: its grants, on keys under the file prefix only. */
function authorize(name: string, grants: readonly S3Grant[], request: Classified): void {
  const prefix = bucketDefinition.keyPrefix;
  const deny = (action: string) => {
    throw new S3Refusal(
      'AccessDenied',
      `User: arn:aws:sts::000000000000:assumed-role/${name}Role/${name} is not authorized to perform: ${action} on resource: "arn:aws:s3:::${request.bucket}/${request.key}" because no identity-based policy allows the ${action} action`,
      403,
    );
  };
  if (request.action === undefined) deny(`s3:${request.operation}`);
  const action = request.action!;
  if (action === 's3:ListBucket' && grants.includes(LIST_WHOLE_BUCKET)) return;
  if (!grants.includes(action)) deny(action);
  const inPrefix = request.prefix !== undefined ? request.prefix.startsWith(prefix) : request.key.startsWith(prefix);
  if (!inPrefix) deny(action);
  if (request.copySource !== undefined) {
    const [, ...sourceKey] = request.copySource.split('/');
    if (!grants.includes('s3:GetObject') || !sourceKey.join('/').startsWith(prefix)) deny('s3:GetObject');
  }
}

/**
 * s3rver's store, made to write as S3 does: whole objects and parts appear at once (a temporary
 * file renamed into place); a part needs its upload; completing checks the parts and runs once
 * per upload at a time.
 */
function atomicWrites(
  store: S3rverStore,
  uploadsDir: (bucket: string) => string,
  completing: Set<string>,
  completedKeys: Set<string>,
): void {
  const original = { putObjectMultipart: store.putObjectMultipart.bind(store) };
  const temporary = (path: string) => `${path}.${randomBytes(6).toString('hex')}.tmp`;

  store.putMetadata = async (bucket, key, metadata, md5) => {
    const json: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(metadata)) {
      if (S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-')) json[name] = value;
    }
    if (md5) await writeAtomically(store.getResourcePath(bucket, key, 'object.md5'), md5);
    await writeAtomically(store.getResourcePath(bucket, key, 'metadata.json'), JSON.stringify(json, null, 2));
  };

  store.putObject = async (object) => {
    const path = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(path), { recursive: true });
    const partial = temporary(path);
    try {
      const [size, md5] = await store.putContent(partial, object.content);
      await store.putMetadata(object.bucket, object.key, object.metadata, md5);
      await rename(partial, path);
      return { size, md5 };
    } finally {
      await unlink(partial).catch(() => {});
    }
  };

  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const dir = join(uploadsDir(bucket), uploadId);
    const number = Number(partNumber);
    if (!Number.isInteger(number) || number < 1 || number > MAX_PART_NUMBER) {
      throw new S3Error('InvalidArgument', `Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive`);
    }
    if (!/^[0-9a-f]{32}$/.test(uploadId) || !(await stat(join(dir, 'key')).catch(() => undefined))) {
      throw new S3Error('NoSuchUpload', 'The specified upload does not exist.');
    }
    const path = join(dir, String(number));
    const partial = temporary(path);
    try {
      const [size, md5] = await store.putContent(partial, content);
      await writeAtomically(`${path}.md5`, md5);
      await rename(partial, path);
      return { size, md5 };
    } finally {
      await unlink(partial).catch(() => {});
    }
  };

  store.putObjectMultipart = async (bucket, uploadId, parts) => {
    const dir = join(uploadsDir(bucket), uploadId);
    return exclusively(completing, dir, async () => {
      if (!/^[0-9a-f]{32}$/.test(uploadId) || !(await stat(join(dir, 'key')).catch(() => undefined))) {
        throw new S3Error('NoSuchUpload', 'The specified upload does not exist.');
      }
      for (let i = 1; i < parts.length; i++) {
        if (parts[i]!.number <= parts[i - 1]!.number) {
          throw new S3Error('InvalidPartOrder', 'The list of parts was not in ascending order. Parts must be ordered by part number.');
        }
      }
      for (const [index, part] of parts.entries()) {
        const path = join(dir, String(part.number));
        const [md5, info] = await Promise.all([readFile(`${path}.md5`, 'utf8').catch(() => undefined), stat(path).catch(() => undefined)]);
        if (md5 === undefined || info === undefined || md5 !== part.etag) {
          throw new S3Error(
            'InvalidPart',
            "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
            { PartNumber: part.number },
          );
        }
        if (index < parts.length - 1 && info.size < MIN_PART_BYTES) {
          throw new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.', {
            PartNumber: part.number,
          });
        }
      }
      const key = await readFile(join(dir, 'key'), 'utf8');
      const result = await original.putObjectMultipart(bucket, uploadId, parts);
      completedKeys.add(`${bucket}/${key}`);
      return result;
    });
  };
}

/** Runs `work` while no other work holds `name` (a second caller is refused, as S3 refuses a concurrent complete). */
async function exclusively<T>(held: Set<string>, name: string, work: () => Promise<T>): Promise<T> {
  while (held.has(name)) await new Promise((resolve) => setTimeout(resolve, 10));
  held.add(name);
  try {
    return await work();
  } finally {
    held.delete(name);
  }
}

async function writeAtomically(path: string, data: string): Promise<void> {
  const partial = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(partial, data);
  await rename(partial, path);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) reject(new S3Refusal('MaxMessageLengthExceeded', 'Your request was too big.', 400));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The checksum S3 requires of a DeleteObjects body: Content-MD5 or one x-amz-checksum-* header. */
function verifyBodyChecksum(headers: IncomingMessage['headers'], body: Buffer): void {
  const given: [string, string, () => string][] = [
    ['content-md5', String(headers['content-md5'] ?? ''), () => createHash('md5').update(body).digest('base64')],
    ['x-amz-checksum-crc32', String(headers['x-amz-checksum-crc32'] ?? ''), () => crc32Base64(body)],
    ['x-amz-checksum-sha1', String(headers['x-amz-checksum-sha1'] ?? ''), () => createHash('sha1').update(body).digest('base64')],
    ['x-amz-checksum-sha256', String(headers['x-amz-checksum-sha256'] ?? ''), () => createHash('sha256').update(body).digest('base64')],
  ];
  const present = given.filter(([, value]) => value !== '');
  if (present.length === 0) {
    const other = Object.keys(headers).find((name) => name.startsWith('x-amz-checksum-'));
    if (other) throw new S3Refusal('NotImplemented', `The local S3 emulator does not check ${other}.`, 501);
    throw new S3Refusal('InvalidRequest', 'Missing required header for this request: Content-MD5 or x-amz-checksum-*', 400);
  }
  for (const [name, value, compute] of present) {
    if (value !== compute()) throw new S3Refusal('BadDigest', `The ${name} you specified did not match what we received.`, 400);
  }
}

function crc32Base64(body: Buffer): string {
  const value = Buffer.alloc(4);
  value.writeUInt32BE(crc32(body) >>> 0);
  return value.toString('base64');
}

function writeError(req: IncomingMessage, res: ServerResponse, refusal: S3Refusal): void {
  req.resume(); // drain what the client sends, or it may block on a full socket
  if (res.headersSent) return void res.destroy();
  const id = requestId();
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${escapeXml(refusal.code)}</Code><Message>${escapeXml(refusal.message)}</Message><RequestId>${id}</RequestId></Error>`;
  res.writeHead(refusal.status, { 'content-type': 'application/xml', 'x-amz-request-id': id, 'x-amz-error-code': refusal.code });
  res.end(req.method === 'HEAD' ? undefined : body);
}

const requestId = () => randomBytes(8).toString('hex').toUpperCase();

/** A 200 with an XML body, as S3 answers the requests this front serves itself. */
function answerXml(res: ServerResponse, xml: string): void {
  res
    .writeHead(200, { 'content-type': 'application/xml', 'x-amz-request-id': requestId() })
    .end(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`);
}

const unescapeXml = (value: string) =>
  value.replace(/&(lt|gt|amp|apos|quot|#x?[0-9a-fA-F]+);/g, (entity, name: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };
    if (named[name]) return named[name]!;
    const code = name.startsWith('#x') ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
    return Number.isNaN(code) ? entity : String.fromCodePoint(code);
  });

const escapeXml = (value: string) =>
  value.replace(/[<>&'"]/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[ch]!);
