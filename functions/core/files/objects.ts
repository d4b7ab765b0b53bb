/**
 * Removing file bytes from the bucket (docs/data-model.md: Removing bytes): everything under a
 * document's or a repository's prefix (a purge, a deleted repository), or a list of objects (the
 * revisions pruning no longer keeps). Only the background worker does this; its grants are
 * `workerFunction.s3` in functions/routes.ts.
 *
 * Everything here is safe to repeat and to cut short: a key already gone is not an error
 * (DeleteObjects reports none for it, an upload already aborted is skipped), so work killed
 * half way and started again ends with the same empty prefix.
 */
import { AbortMultipartUploadCommand, DeleteObjectsCommand, ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { bucketName, fileKeyPrefix, s3 } from '../bucket';

/** What one clean-up removed. */
export interface Removed {
  objects: number;
  uploads: number;
}

/** S3's most keys a DeleteObjects, a ListObjectsV2 or a ListMultipartUploads takes or gives. */
const PAGE = 1000;

/**
 * Aborts every multipart upload in progress under `prefix`, then deletes every object under it,
 * a page of 1,000 at a time. Uploads first: a completion racing this one then fails (the upload
 * is gone) instead of making an object after the objects were listed.
 */
export async function deleteEverythingUnder(prefix: string): Promise<Removed> {
  if (!prefix.startsWith(fileKeyPrefix) || !prefix.endsWith('/')) throw new Error(`Not a file prefix: ${prefix}`);
  const uploads = await abortUploadsUnder(prefix);
  let objects = 0;
  let ContinuationToken: string | undefined;
  do {
    const page = await s3().send(new ListObjectsV2Command({ Bucket: bucketName(), Prefix: prefix, MaxKeys: PAGE, ContinuationToken }));
    const keys = (page.Contents ?? []).map((object) => object.Key!);
    objects += await deleteObjectKeys(keys);
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return { objects, uploads };
}

/** Aborts the multipart uploads in progress under `prefix`; how many it aborted. */
async function abortUploadsUnder(prefix: string): Promise<number> {
  let aborted = 0;
  let KeyMarker: string | undefined;
  let UploadIdMarker: string | undefined;
  do {
    const page = await s3().send(
      new ListMultipartUploadsCommand({ Bucket: bucketName(), Prefix: prefix, MaxUploads: PAGE, KeyMarker, UploadIdMarker }),
    );
    const counts = await Promise.all(
      (page.Uploads ?? []).map(async ({ Key, UploadId }) => {
        try {
          await s3().send(new AbortMultipartUploadCommand({ Bucket: bucketName(), Key, UploadId }));
          return 1;
        } catch (error) {
          if ((error as Error).name === 'NoSuchUpload') return 0; // completed or aborted meanwhile
          throw error;
        }
      }),
    );
    aborted += counts.reduce<number>((sum, n) => sum + n, 0);
    [KeyMarker, UploadIdMarker] = page.IsTruncated ? [page.NextKeyMarker, page.NextUploadIdMarker] : [undefined, undefined];
  } while (KeyMarker !== undefined);
  return aborted;
}

/** Deletes these objects (keys under the file prefix), 1,000 to a request; how many keys it was asked to delete. */
export async function deleteObjectKeys(keys: readonly string[]): Promise<number> {
  for (let i = 0; i < keys.length; i += PAGE) {
    const Objects = keys.slice(i, i + PAGE).map((Key) => ({ Key }));
    const result = await s3().send(new DeleteObjectsCommand({ Bucket: bucketName(), Delete: { Objects, Quiet: true } }));
    const failed = result.Errors?.[0];
    if (failed)
      throw new Error(`S3 did not delete ${result.Errors!.length} object(s), e.g. ${failed.Key}: ${failed.Code} ${failed.Message}`);
  }
  return keys.length;
}
