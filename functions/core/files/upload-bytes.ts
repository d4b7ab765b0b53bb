/**
 * An upload's bytes in the bucket: its multipart upload begun and joined, presigned URLs for its
 * parts, the parts that arrived, the SHA-256 of the whole, and deleting them. Only S3 here: what
 * happens to the upload is decided by the use cases (../use-cases/uploads.ts, finish-upload.ts).
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  type Part,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createSHA256 } from 'hash-wasm';
import { bucketName, presign, s3 } from '../bucket';
import type { StoredUpload } from '../items/upload';

/** A presigned URL for a part lives at most this long (and never past the upload's expiry). */
const PART_URL_SECONDS = 60 * 60;

/** The bucket's multipart upload for a file of several parts: its id. */
export async function beginMultipart(objectKey: string, contentType: string): Promise<string | undefined> {
  return (await s3().send(new CreateMultipartUploadCommand({ Bucket: bucketName(), Key: objectKey, ContentType: contentType }))).UploadId;
}

/** Joins the parts into the object; one already joined (by a racing or an earlier call that died after) is left as it is. */
export async function joinParts(upload: Pick<StoredUpload, 'objectKey' | 's3UploadId'>, parts: Part[]): Promise<void> {
  try {
    await s3().send(
      new CompleteMultipartUploadCommand({
        Bucket: bucketName(),
        Key: upload.objectKey,
        UploadId: upload.s3UploadId,
        MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.PartNumber, ETag: p.ETag })) },
      }),
    );
  } catch (error) {
    if (!isNamed(error, 'NoSuchUpload')) throw error;
  }
}

/**
 * Presigned URLs for the parts named, each living at most an hour, never past the upload's
 * expiry, and never past the credentials that sign it (`presign`): `expiresAt` is when it stops.
 */
export async function partUrlsOf(upload: StoredUpload, numbers: number[]) {
  const seconds = Math.max(1, Math.min(PART_URL_SECONDS, Math.floor((Date.parse(upload.expiresAt) - Date.now()) / 1_000)));
  return Promise.all(
    numbers.map(async (number) => {
      const { url, expiresAt } = await presign(
        upload.s3UploadId
          ? new UploadPartCommand({ Bucket: bucketName(), Key: upload.objectKey, UploadId: upload.s3UploadId, PartNumber: number })
          : new PutObjectCommand({ Bucket: bucketName(), Key: upload.objectKey }),
        seconds,
      );
      return { number, url, expiresAt };
    }),
  );
}

/** The parts the bucket holds, by number; undefined when the multipart upload is gone (completed or aborted). */
export async function listParts(upload: StoredUpload): Promise<Part[] | undefined> {
  const parts: Part[] = [];
  let marker: string | undefined;
  try {
    do {
      const page = await s3().send(
        new ListPartsCommand({ Bucket: bucketName(), Key: upload.objectKey, UploadId: upload.s3UploadId, PartNumberMarker: marker }),
      );
      parts.push(...(page.Parts ?? []));
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
    } while (marker);
  } catch (error) {
    if (isNamed(error, 'NoSuchUpload')) return undefined;
    throw error;
  }
  return parts;
}

/** The parts the bucket holds (one part: the object, once it is there). */
export async function receivedParts(upload: StoredUpload): Promise<{ number: number; size: number }[]> {
  if (upload.s3UploadId) {
    const parts = await listParts(upload);
    if (parts) return parts.map((p) => ({ number: p.PartNumber as number, size: p.Size as number }));
  }
  const size = await objectSize(upload.objectKey);
  return size === undefined || upload.s3UploadId ? [] : [{ number: 1, size }];
}

/**
 * An object's size, or undefined when it is not there. S3 answers a HEAD of a missing key with
 * 404 only to a caller that holds `s3:ListBucket` on the bucket, and with 403 to everyone else
 * (S3 API reference, HeadObject). No function here holds a ListBucket that applies: the routes
 * hold none, and the worker's and sweeper's is conditioned on `s3:prefix`, which a HEAD does not
 * carry (lib/stack/route-function.ts). So 403 means "not there" too. (A function that lacked
 * `s3:GetObject` itself would find every object missing: the upload tests, which read objects
 * that are there, fail then.)
 */
export async function objectSize(key: string): Promise<number | undefined> {
  try {
    return (await s3().send(new HeadObjectCommand({ Bucket: bucketName(), Key: key }))).ContentLength;
  } catch (error) {
    if (isNamed(error, 'NotFound') || isNamed(error, 'NoSuchKey') || statusOf(error) === 403) return undefined;
    throw error;
  }
}

/** The SHA-256 of an object's bytes, read as a stream (the service checks it itself: S3 keeps no SHA-256 of a whole multipart object). */
export async function hashObject(key: string): Promise<string> {
  const { Body } = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: key }));
  const hash = createHash('sha256');
  for await (const chunk of Body as AsyncIterable<Uint8Array>) hash.update(chunk);
  return hash.digest('hex');
}

/** Where hashing an object got to: bytes hashed from its start, and the SHA-256 state after them. */
export interface HashProgress {
  offset: number;
  /** hash-wasm's saved SHA-256 state (`save()`, 116 bytes), base64; none before the first byte. */
  state?: string;
}

/**
 * Hashes an object of `size` bytes on from `progress`: one ranged GET of at most `maxBytes`,
 * read until its end or until `until` (epoch ms), whichever is first (at least one chunk, so
 * every call moves on). Returns where it got to and, once the last byte is hashed, the digest.
 * The state is a SHA-256's own (hash-wasm's `save()`/`load()`), so hashing resumes in another
 * invocation exactly where this one stopped: a file of any size is verified a budget at a time.
 */
export async function hashOn(
  key: string,
  size: number,
  progress: HashProgress,
  limits: { until: number; maxBytes: number },
): Promise<HashProgress & { sha256?: string }> {
  const sha256 = await createSHA256();
  if (progress.state) sha256.load(Buffer.from(progress.state, 'base64'));
  else sha256.init();
  let offset = progress.offset;
  if (offset < size) {
    const last = Math.min(size, offset + limits.maxBytes) - 1;
    const { Body } = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: key, Range: `bytes=${offset}-${last}` }));
    const body = Body as Readable;
    try {
      for await (const chunk of body as AsyncIterable<Uint8Array>) {
        sha256.update(chunk);
        offset += chunk.length;
        if (Date.now() >= limits.until) break;
      }
    } finally {
      body.destroy?.();
    }
  }
  if (offset >= size) return { offset, sha256: sha256.digest('hex') };
  return { offset, state: Buffer.from(sha256.save()).toString('base64') };
}

/** An upload's bytes: its multipart upload aborted (the parts go with it) and its object deleted. Idempotent. */
export async function deleteBytes(upload: Pick<StoredUpload, 'objectKey' | 's3UploadId'>): Promise<void> {
  if (upload.s3UploadId) await abortQuietly(upload.objectKey, upload.s3UploadId);
  await s3().send(new DeleteObjectCommand({ Bucket: bucketName(), Key: upload.objectKey }));
}

/** Aborts a multipart upload; one that is gone already is no error. */
export async function abortQuietly(key: string, uploadId: string): Promise<void> {
  try {
    await s3().send(new AbortMultipartUploadCommand({ Bucket: bucketName(), Key: key, UploadId: uploadId }));
  } catch (error) {
    if (!isNamed(error, 'NoSuchUpload')) throw error;
  }
}

const statusOf = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;

const isNamed = (error: unknown, name: string) =>
  typeof error === 'object' && error !== null && ((error as { name?: string }).name === name || (error as { Code?: string }).Code === name);
