/**
 * The file bucket as the handlers see it: one S3 client, the bucket's name, and where file
 * objects live in it. On AWS the stack gives a function BUCKET_NAME when its route declares S3
 * actions (functions/routes.ts, `s3`), and the function signs with its role's credentials; locally
 * (lib/local/s3.ts) S3_ENDPOINT points at the emulator, which is addressed path-style
 * (`http://127.0.0.1:<port>/<bucket>/<key>`), and each function signs with a key of its own.
 */
import { type GetObjectCommand, type HeadObjectCommand, type PutObjectCommand, S3Client, type UploadPartCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

/**
 * Every object the service writes has a key under this prefix: IAM grants a function its S3
 * actions on `<bucket>/files/*` only, and the local emulator holds functions to the same rule.
 */
export const fileKeyPrefix = 'files/';

let client: S3Client | undefined;
let clientEndpoint: string | undefined;

/**
 * The client, created on first use from the environment (and again if S3_ENDPOINT changes). Checksums only when an operation
 * requires them: by default the SDK adds `x-amz-checksum-*` parameters to what it presigns,
 * and a URL carrying them refuses a plain `PUT` of the bytes, which the contract promises
 * clients (docs/api.md: Files).
 */
export function s3(): S3Client {
  const endpoint = process.env.S3_ENDPOINT || undefined;
  // A new endpoint, a new client: a process that runs the local service again gets a new emulator.
  if (client && clientEndpoint === endpoint) return client;
  client?.destroy();
  clientEndpoint = endpoint;
  client = new S3Client({
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000, throwOnRequestTimeout: true },
  });
  return client;
}

export function bucketName(): string {
  const name = process.env.BUCKET_NAME;
  if (!name) throw new Error('BUCKET_NAME is not set (the route declares no S3 actions?)');
  return name;
}

/** What a client may be handed a URL for: fetching an object, sending one, or one part of one. */
export type PresignableCommand = GetObjectCommand | HeadObjectCommand | PutObjectCommand | UploadPartCommand;

/** A URL good for this one request until `expiresInSeconds` from now: the caller's grants sign it. */
export function presignedUrl(command: PresignableCommand, expiresInSeconds: number): Promise<string> {
  // getSignedUrl's generic parameters do not unify with a union of commands: any one of them stands for all.
  return getSignedUrl(s3(), command as GetObjectCommand, { expiresIn: expiresInSeconds });
}

/** Every object of a repository. */
export const repositoryObjectsPrefix = (repositoryId: string) => `${fileKeyPrefix}${repositoryId}/`;
/** The objects of a document's versions. */
export const documentObjectsPrefix = (repositoryId: string, documentId: string) => `${repositoryObjectsPrefix(repositoryId)}${documentId}/`;
/** The object of one written version of a file (docs/data-model.md: Objects): `objectId` is an upload's id, or a new id. */
export const fileObjectKey = (repositoryId: string, documentId: string, objectId: string) =>
  `${documentObjectsPrefix(repositoryId, documentId)}${objectId}`;

/** The parts of a key `fileObjectKey` made; undefined for any other key. */
export function fileObjectOf(key: string): { repositoryId: string; documentId: string; objectId: string } | undefined {
  if (!key.startsWith(fileKeyPrefix)) return undefined;
  const [repositoryId, documentId, objectId, ...rest] = key.slice(fileKeyPrefix.length).split('/');
  return repositoryId && documentId && objectId && rest.length === 0 ? { repositoryId, documentId, objectId } : undefined;
}
