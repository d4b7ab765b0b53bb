/**
 * The file bucket as the handlers see it: one S3 client, the bucket's name, and where file
 * objects live in it. On AWS the stack gives a function BUCKET_NAME when its route declares S3
 * actions (functions/routes.ts, `s3`), and the function signs with its role's credentials; locally
 * (lib/local/s3.ts) S3_ENDPOINT points at the emulator, which is addressed path-style
 * (`http://127.0.0.1:<port>/<bucket>/<key>`), and each function signs with a key of its own.
 */
import { type GetObjectCommand, type HeadObjectCommand, type PutObjectCommand, S3Client, type UploadPartCommand } from '@aws-sdk/client-s3';
import type { STSClient } from '@aws-sdk/client-sts';
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
  client = newClient(endpoint);
  return client;
}

function newClient(endpoint: string | undefined, credentials?: Identity): S3Client {
  return new S3Client({
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...(credentials ? { credentials } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000, throwOnRequestTimeout: true },
  });
}

export function bucketName(): string {
  const name = process.env.BUCKET_NAME;
  if (!name) throw new Error('BUCKET_NAME is not set (the route declares no S3 actions?)');
  return name;
}

/** What a client may be handed a URL for: fetching an object, sending one, or one part of one. */
export type PresignableCommand = GetObjectCommand | HeadObjectCommand | PutObjectCommand | UploadPartCommand;

/** A URL good for this one request until `expiresInSeconds` from now: the caller's grants sign it. */
export async function presignedUrl(command: PresignableCommand, expiresInSeconds: number): Promise<string> {
  return (await presign(command, expiresInSeconds)).url;
}

/**
 * A URL good for this one request, and when it stops working: `expiresInSeconds` from now, or
 * sooner when the credentials that sign it expire first. A URL signed with temporary credentials
 * dies with them whatever its `X-Amz-Expires` says (S3 user guide, "Sharing objects with presigned
 * URLs"), so the expiry promised to a client is never past theirs (docs/operations.md: Presigned
 * URLs and the signing session).
 */
export async function presign(command: PresignableCommand, expiresInSeconds: number): Promise<{ url: string; expiresAt: string }> {
  const { client, expiration } = await signingSession();
  const now = Date.now();
  const left = expiration === undefined ? Number.POSITIVE_INFINITY : Math.floor((expiration.getTime() - now) / 1_000);
  const seconds = Math.max(1, Math.min(expiresInSeconds, left));
  // getSignedUrl's generic parameters do not unify with a union of commands: any one of them stands for all.
  const url = await getSignedUrl(client, command as GetObjectCommand, { expiresIn: seconds, signingDate: new Date(now) });
  return { url, expiresAt: new Date(now + seconds * 1_000).toISOString() };
}

/** Credentials as the SDK resolves them; temporary ones carry a token and (when known) their expiry. */
interface Identity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/**
 * On AWS, URLs are signed by a role of their own (URL_SIGNING_ROLE_ARN, lib/stack/file-bucket.ts),
 * assumed for this long: role chaining (a Lambda role assuming another) allows at most an hour.
 */
const SIGNING_SESSION_SECONDS = 60 * 60;
/**
 * The signing session is renewed once less than this is left, so a URL signed from it lives at
 * least this long: a download's 15 minutes always, a part's 30 to 60.
 */
export const SIGNING_RENEW_BEFORE_MS = 30 * 60 * 1_000;

let signing: { client: S3Client; expiration: Date; endpoint: string | undefined } | undefined;
let stsClient: STSClient | undefined;

/**
 * What signs presigned URLs, and when its credentials expire. With URL_SIGNING_ROLE_ARN (the
 * stack sets it): a session of that role from STS AssumeRole, whose answer says when it expires,
 * kept and renewed `SIGNING_RENEW_BEFORE_MS` before. Without it (the local runtime): the client's
 * own credentials, whose expiry the runtime gives (lib/local/s3-sessions.ts); long-term keys
 * (the emulator's root key) have none. Temporary credentials of unknown expiry (a Lambda
 * role's, which expose none) never sign: a URL's promised expiry could then be false.
 */
async function signingSession(): Promise<{ client: S3Client; expiration: Date | undefined }> {
  const roleArn = process.env.URL_SIGNING_ROLE_ARN;
  if (!roleArn) {
    const identity = await (s3().config.credentials as () => Promise<Identity>)();
    if (identity.sessionToken && !identity.expiration) {
      throw new Error('Temporary credentials of unknown expiry cannot sign a URL: set URL_SIGNING_ROLE_ARN (the stack does).');
    }
    return { client: s3(), expiration: identity.expiration };
  }
  const endpoint = process.env.S3_ENDPOINT || undefined;
  if (!signing || signing.endpoint !== endpoint || signing.expiration.getTime() - Date.now() < SIGNING_RENEW_BEFORE_MS) {
    // Loaded only where a signing role is configured: most functions never sign a URL.
    const { AssumeRoleCommand, STSClient } = await import('@aws-sdk/client-sts');
    stsClient ??= new STSClient({ maxAttempts: 3 });
    const name = (process.env.AWS_LAMBDA_FUNCTION_NAME || 'documents').replace(/[^\w+=,.@-]/g, '-').slice(0, 64);
    const { Credentials: session } = await stsClient.send(
      new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: name, DurationSeconds: SIGNING_SESSION_SECONDS }),
    );
    if (!session?.AccessKeyId || !session.SecretAccessKey || !session.SessionToken || !session.Expiration) {
      throw new Error('STS AssumeRole answered no credentials for the URL signing role.');
    }
    signing?.client.destroy();
    const credentials: Identity = {
      accessKeyId: session.AccessKeyId,
      secretAccessKey: session.SecretAccessKey,
      sessionToken: session.SessionToken,
      expiration: session.Expiration,
    };
    signing = { client: newClient(endpoint, credentials), expiration: session.Expiration, endpoint };
  }
  return signing;
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
