/**
 * Uploading a file as API.md section 12 has it: its SHA-256 declared (hashed streaming before the
 * start), its parts PUT in parallel straight to the bucket, then `complete`, polled while the
 * service verifies. An interrupted upload resumes: a small state file beside the file
 * (`<file>.upload.json`) keeps the upload's id, and the next run sends only the parts the bucket
 * does not hold yet (`received`), with fresh URLs.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { ApiError, expectData, type FilesApi } from './api';
import type { Document, Upload } from './paths';
import { Progress, type ProgressOutput } from './progress';
import { completeUpload, sendMissingParts } from './protocol';
import { bucketAgents, putPart } from './put-part';

// The protocol itself (which parts, fresh URLs, retries, `complete`) is ./protocol.ts, shared with the web app.
export { completeUpload, partLength, UploadFailed } from './protocol';

export type UploadTarget = { folderId: string; name: string } | { documentId: string };

export interface UploadOptions {
  api: FilesApi;
  file: string;
  target: UploadTarget;
  contentType?: string;
  /** Parts in flight at once; default 6. */
  parallel?: number;
  /** Where the progress line and notes go; default stderr. */
  output?: ProgressOutput;
}

/** What the state file keeps: enough to find the upload again, and to know the file is the same. */
interface UploadState {
  target: UploadTarget;
  size: number;
  mtimeMs: number;
  sha256: string;
  /** Sent with POST /uploads: a run that died before writing `uploadId` gets the same upload again. */
  idempotencyKey: string;
  uploadId?: string;
}

export const stateFileOf = (file: string) => `${file}.upload.json`;

/** Answers to `complete` after which the upload is failed (or gone) and cannot be resumed (but a part missing can be sent). */
const FAILED_FOR_GOOD = [404, 409, 410, 412];

export async function uploadFile(options: UploadOptions): Promise<Document> {
  const { api, file, target } = options;
  const output = options.output ?? process.stderr;
  const note = (line: string) => output.write(`${line}\n`);
  const { size, mtimeMs } = await stat(file);
  const state = await startingState(api, file, target, size, mtimeMs, output);

  let upload = state.uploadId ? await resumable(api, file, state, note) : undefined;
  if (!upload) {
    upload = expectData(
      'POST /uploads',
      await api.POST('/uploads', {
        body: { ...target, size, sha256: state.sha256, ...(options.contentType ? { contentType: options.contentType } : {}) },
        params: { header: { 'Idempotency-Key': state.idempotencyKey } },
      }),
    );
    upload.received = []; // new: nothing sent yet
    state.uploadId = upload.id;
    await writeState(file, state);
  }

  const send = () => sendParts(api, upload, fileParts(file), { parallel: options.parallel ?? 6, output });
  if (upload.status === 'open') await send();
  try {
    const document = await completeUpload(api, upload, send);
    await rm(stateFileOf(file), { force: true });
    return document;
  } catch (error) {
    // The upload failed for good (its bytes do not match, the name was taken, ...): a new run starts afresh.
    const incomplete = error instanceof ApiError && error.problem?.type?.endsWith(':upload-incomplete');
    if (error instanceof ApiError && FAILED_FOR_GOOD.includes(error.status) && !incomplete) await rm(stateFileOf(file), { force: true });
    throw error;
  }
}

/** The state of an earlier run for this file and target, or a new one (the file hashed now). */
async function startingState(
  api: FilesApi,
  file: string,
  target: UploadTarget,
  size: number,
  mtimeMs: number,
  output: ProgressOutput,
): Promise<UploadState> {
  const note = (line: string) => output.write(`${line}\n`);
  const earlier = await readState(file);
  if (earlier && earlier.size === size && earlier.mtimeMs === mtimeMs && JSON.stringify(earlier.target) === JSON.stringify(target)) {
    return earlier;
  }
  if (earlier?.uploadId) {
    note(`${file} or its target changed since upload ${earlier.uploadId} began: cancelling it and starting again`);
    await api.DELETE('/uploads/{id}', { params: { path: { id: earlier.uploadId } } }).catch(() => {});
  }
  const state: UploadState = { target, size, mtimeMs, sha256: await sha256Of(file, output), idempotencyKey: randomUUID() };
  await writeState(file, state);
  return state;
}

/** Written whole or not at all (a temporary file renamed over it): a run killed while writing leaves the last state. */
async function writeState(file: string, state: UploadState): Promise<void> {
  const temporary = `${stateFileOf(file)}.${process.pid}`;
  await writeFile(temporary, JSON.stringify(state));
  await rename(temporary, stateFileOf(file));
}

async function readState(file: string): Promise<UploadState | undefined> {
  try {
    return JSON.parse(await readFile(stateFileOf(file), 'utf8')) as UploadState;
  } catch {
    return undefined; // none, or unreadable: start afresh
  }
}

/** The earlier run's upload if it can still be finished; undefined (a new one is needed) if not. */
async function resumable(api: FilesApi, file: string, state: UploadState, note: (line: string) => void): Promise<Upload | undefined> {
  const id = state.uploadId!;
  const { data, response, error } = await api.GET('/uploads/{id}', { params: { path: { id } } });
  if (data && (data.status === 'open' || data.status === 'verifying' || data.status === 'completed')) {
    note(`resuming upload ${id}: ${data.received?.length ?? 0} of ${data.partCount} parts already received`);
    return data;
  }
  if (data?.status === 'failed') {
    await rm(stateFileOf(file), { force: true });
    throw new ApiError(`upload ${id} failed`, data.problem?.status ?? 409, data.problem);
  }
  if (data || response.status === 404 || response.status === 410) {
    note(`upload ${id} is ${data?.status ?? (response.status === 410 ? 'expired' : 'gone')}: starting a new one`);
    state.uploadId = undefined;
    state.idempotencyKey = randomUUID(); // the old key would answer with the old upload
    return undefined;
  }
  throw new ApiError(`GET /uploads/${id}`, response.status, error);
}

/** The file's SHA-256 (lowercase hex), read once, with a progress line when `output` is given. */
export async function sha256Of(file: string, output?: ProgressOutput): Promise<string> {
  const hash = createHash('sha256');
  const progress = output && new Progress(`sha256 of ${basename(file)}`, (await stat(file)).size, output);
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    hash.update(chunk as Buffer);
    progress?.add((chunk as Buffer).length);
  }
  progress?.finish();
  return hash.digest('hex');
}

/** The bytes from `start`, `length` of them, as a stream: a file's, or any other source's. */
export type PartSource = (start: number, length: number) => Readable;

export const fileParts =
  (file: string): PartSource =>
  (start, length) =>
    createReadStream(file, { start, end: start + length - 1, highWaterMark: 256 * 1024 });

/**
 * Sends every part of `upload` the bucket does not hold yet (its `received`, else GET /uploads/{id}),
 * `parallel` at a time, streamed from `source` over kept-alive connections, with a progress line on `output`.
 */
export async function sendParts(
  api: FilesApi,
  upload: Upload,
  source: PartSource,
  { parallel, output }: { parallel: number; output: ProgressOutput },
): Promise<void> {
  const progress = new Progress(upload.name, upload.size, output);
  const agents = bucketAgents(parallel);
  try {
    await sendMissingParts(api, upload, {
      parallel,
      progress,
      put: ({ url, start, length, onBytes }) => putPart(url, length, () => source(start, length), { agents, onBytes }),
    });
  } finally {
    agents.http.destroy();
    agents.https.destroy();
  }
  progress.finish();
}
