/**
 * Downloading a document's content (API.md section 12): GET /document/{id}/content answers the
 * bytes (inline text) or a 302 to a presigned URL on the bucket, fetched without the bearer
 * token. The bytes stream to a temporary file beside the target, are checked against the
 * Document's `size` and `sha256`, and only then renamed into place: the target is never half
 * written, and a failed download leaves nothing behind.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, expectData, type FilesApi } from './api';
import type { Document } from './paths';
import { Progress, type ProgressOutput } from './progress';
import { isExpiredUrl, PartRefused } from './put-part';

export interface DownloadOptions {
  api: FilesApi;
  documentId: string;
  /** Where to write it; default: the document's name, in the current directory. */
  file?: string;
  /** Where the progress line goes; default stderr. */
  output?: ProgressOutput;
}

/** The bytes did not match the Document (`size`, `sha256`): nothing was written. */
export class ContentMismatch extends Error {
  override name = 'ContentMismatch';
}

export async function downloadDocument(options: DownloadOptions): Promise<{ file: string; document: Document }> {
  const { api, documentId } = options;
  const output = options.output ?? process.stderr;
  for (let attempt = 1; ; attempt++) {
    const document = await readDocument(api, documentId);
    const file = resolve(options.file ?? document.name);
    try {
      await fetchInto(api, document, file, output);
      return { file, document };
    } catch (error) {
      // The URL expired before it was used (its signing credentials, say): ask for a fresh one.
      if (error instanceof UrlExpired && attempt <= 2) continue;
      // The document may have changed between the two reads: then once more, with its new version.
      if (!(error instanceof ContentMismatch) || attempt > 1) throw error;
      if ((await readDocument(api, documentId)).version === document.version) throw error;
      output.write(`${document.name} changed while it was read: reading it again\n`);
    }
  }
}

/** The bucket refused the presigned URL as expired: a fresh one will do. */
class UrlExpired extends ApiError {
  override name = 'UrlExpired';
}

async function readDocument(api: FilesApi, id: string): Promise<Document> {
  return expectData(`GET /document/${id}`, await api.GET('/document/{id}', { params: { path: { id } } }));
}

async function fetchInto(api: FilesApi, document: Document, file: string, output: ProgressOutput): Promise<void> {
  const what = `GET /document/${document.id}/content`;
  // A 302's body (and an error's) is read by the client; a 200's is left as a stream.
  const first = await api.GET('/document/{id}/content', { params: { path: { id: document.id } }, redirect: 'manual', parseAs: 'stream' });
  if (first.response.status !== 200 && first.response.status !== 302) throw new ApiError(what, first.response.status, first.error);
  let response = first.response;
  if (response.status === 302) {
    const location = response.headers.get('Location');
    if (!location) throw new ApiError(`${what} (302 without Location)`, 302);
    response = await fetch(location); // presigned: no Authorization, which the bucket would refuse
    if (response.status !== 200) {
      const text = await response.text();
      const [code, detail] = [/<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? '', /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? ''];
      if (isExpiredUrl(new PartRefused(response.status, code, detail)))
        throw new UrlExpired(`GET of the URL ${what} redirected to (expired: ${code || detail})`, response.status);
      throw new ApiError(`GET of the URL ${what} redirected to`, response.status);
    }
  }
  if (!response.body) throw new ApiError(`${what} (no body)`, response.status);

  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.download`);
  const hash = createHash('sha256');
  let size = 0;
  const progress = new Progress(document.name, document.size, output);
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      progress.add(chunk.length);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), check, createWriteStream(temporary));
    progress.finish();
    const sha256 = hash.digest('hex');
    if (size !== document.size || sha256 !== document.sha256) {
      throw new ContentMismatch(
        `the bytes of ${document.name} do not match the document (${size} bytes, sha256 ${sha256}; expected ${document.size} bytes, sha256 ${document.sha256}): nothing written`,
      );
    }
    await rename(temporary, file);
  } finally {
    await rm(temporary, { force: true });
  }
}
