/**
 * The file bucket, as plain data: the CDK stack (lib/stack/file-bucket.ts) and the local
 * emulator (lib/local/s3.ts) both build it from here, as they build the table from lib/table.ts.
 * What the handlers need of it (client, name, key prefix) is in functions/core/bucket.ts.
 */
import { fileKeyPrefix } from '#core/bucket';

export const bucketDefinition = {
  keyPrefix: fileKeyPrefix,
  /**
   * Browsers send and fetch file bytes straight to and from the bucket with presigned URLs: a
   * plain `PUT` of the bytes (one part, or one per part of a multipart upload), `GET` or `HEAD`
   * with `Range`. The URL itself is the authorization; CORS only lets the page read the answer.
   * ETag: a browser may read each part's ETag; Content-Range and Accept-Ranges: ranged reads;
   * Content-Disposition: the name to save a download under. Link-Password: the share-link page
   * fetches a file's bytes with that header, and the browser keeps it on the 302 to the bucket, so
   * the bucket's preflight must allow it (S3 ignores it; the presigned URL is what authorizes).
   */
  cors: {
    allowedMethods: ['GET', 'HEAD', 'PUT'],
    allowedHeaders: ['content-type', 'range', 'link-password'],
    exposedHeaders: ['etag', 'content-range', 'accept-ranges', 'content-disposition'],
    maxAgeSeconds: 3600,
  },
  /** Parts of a multipart upload nobody completed or aborted are deleted after this many days. */
  abortIncompleteMultipartUploadDays: 1,
} as const;

/** One CORS rule of the bucket, as S3 holds it. */
export interface CorsRule {
  readonly allowedOrigins: readonly string[];
  readonly allowedMethods: readonly ('GET' | 'HEAD' | 'PUT')[];
  readonly allowedHeaders: readonly string[];
  readonly exposedHeaders: readonly string[];
  readonly maxAgeSeconds: number;
}

/**
 * The bucket's CORS rules for an environment's browser origins (`corsOrigins`): one rule for
 * them, or none at all when there are none (a preflight is then refused). The stack
 * (lib/stack/file-bucket.ts) and the local emulator (lib/local/s3.ts) both configure exactly these.
 */
export function corsRules(origins: readonly string[]): readonly CorsRule[] {
  if (origins.length === 0) return [];
  const { cors } = bucketDefinition;
  return [
    {
      allowedOrigins: [...origins],
      allowedMethods: [...cors.allowedMethods],
      allowedHeaders: [...cors.allowedHeaders],
      exposedHeaders: [...cors.exposedHeaders],
      maxAgeSeconds: cors.maxAgeSeconds,
    },
  ];
}

/** The bucket `npm start` makes in its emulator. */
export const defaultBucketName = 'documents-files';
