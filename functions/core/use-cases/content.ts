/**
 * A document's content as bytes (docs/api.md: Files): served, and written raw. Inline text is
 * answered by the function itself; a file's bytes never pass through it: the answer is a 302 to
 * a presigned GetObject URL of that one object, short-lived, that answers with the document's
 * name as an attachment and its content type. Every answer carries the headers that keep
 * content from acting as a page of the API. A raw PUT stores its bytes as a new object, then
 * writes the version (../items/document.ts); the object goes again if the version is refused.
 */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { APIGatewayProxyStructuredResultV2 as Result } from 'aws-lambda';
import { bucketName, fileObjectKey, presignedUrl, s3 } from '../bucket';
import { attachment } from '../files/disposition';
import { newId } from '../ids';
import { readDocumentContent, readVersionTarget, sha256Hex, writeFileContent } from '../items/document';
import { fitsQuota, quotaExceeded } from '../items/usage';
import { logger } from '../logger';
import { checkPrecondition, type Precondition } from '../preconditions';
import type { Caller, Document } from '../resources';
import { readRevisionOf } from './revisions';

/** How long a download URL lives: 15 minutes at most (docs/api.md: Files). */
export const DOWNLOAD_URL_SECONDS = 15 * 60;

/** What every content answer carries: an attachment with the name, no sniffing, no scripts, not stored. */
const safetyHeaders = (name: string) => ({
  'Content-Disposition': attachment(name),
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': 'sandbox',
  'Cache-Control': 'no-store',
});

export interface Served {
  name: string;
  contentType: string;
  version: number;
  /** Inline text. */
  content?: string;
  /** A file's object. */
  objectKey?: string;
}

/** The answer with a document's (or revision's) content: its bytes, or a 302 to its file (also a share link's: ../items/link.ts). */
export async function contentAnswer({ name, contentType, version, content, objectKey }: Served): Promise<Result> {
  if (objectKey === undefined) {
    return {
      statusCode: 200,
      headers: { ...safetyHeaders(name), 'Content-Type': contentType, ETag: `"${version}"` },
      body: content ?? '',
    };
  }
  const command = new GetObjectCommand({
    Bucket: bucketName(),
    Key: objectKey,
    ResponseContentDisposition: attachment(name),
    ResponseContentType: contentType,
  });
  return { statusCode: 302, headers: { ...safetyHeaders(name), Location: await presignedUrl(command, DOWNLOAD_URL_SECONDS) } };
}

/** GET /document/{id}/content: one BatchGetItem (the document, its inline content, the caller's role). */
export async function documentContent(caller: Caller, documentId: string): Promise<Result> {
  const { document, objectKey } = await readDocumentContent(caller, documentId);
  return contentAnswer({ ...document, ...(document.storage === 'file' ? { objectKey } : {}) });
}

/** GET /document/{id}/revisions/{version}/content: the revision's content, with its name and content type. */
export async function revisionContent(caller: Caller, documentId: string, version: number): Promise<Result> {
  const { revision, objectKey } = await readRevisionOf(caller, documentId, version);
  return contentAnswer({ ...revision, ...(revision.storage === 'file' ? { objectKey } : {}) });
}

/**
 * PUT /document/{id}/content: the bytes as a new version, `storage: "file"`. What can be known
 * before storing any byte is checked first (the document, the caller's role, `If-Match`, the
 * quota as read); then the object, then the version's transaction, which decides for good.
 */
export async function putContent(
  caller: Caller,
  documentId: string,
  bytes: Buffer,
  contentType: string,
  precondition: Precondition,
): Promise<Document> {
  const target = await readVersionTarget(caller, { kind: 'update', documentId });
  checkPrecondition(precondition, target.version!);
  if (!fitsQuota(target.usage, bytes.length)) throw quotaExceeded(bytes.length);
  const objectKey = fileObjectKey(target.repositoryId, documentId, newId());
  await s3().send(new PutObjectCommand({ Bucket: bucketName(), Key: objectKey, Body: bytes, ContentType: contentType }));
  try {
    return await writeFileContent(
      caller,
      documentId,
      { objectKey, size: bytes.length, sha256: sha256Hex(bytes), contentType },
      precondition,
    );
  } catch (error) {
    // No version names the object: it goes (should this fail, the object is left unnamed).
    await s3()
      .send(new DeleteObjectCommand({ Bucket: bucketName(), Key: objectKey }))
      .catch((cause: unknown) => logger.error('could not delete the object of a refused version', { objectKey, error: cause as Error }));
    throw error;
  }
}
