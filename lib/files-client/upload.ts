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
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, expectData, type FilesApi, problemOf } from './api';
import type { Document, PartUrl, Upload } from './paths';
import { Progress, type ProgressOutput } from './progress';
import { type BucketAgents, bucketAgents, isExpiredUrl, PartRefused, putPart } from './put-part';

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

/** An upload that cannot go on (a part the bucket keeps refusing): the state file stays, so running again resumes. */
export class UploadFailed extends Error {
  override name = 'UploadFailed';
}

export const stateFileOf = (file: string) => `${file}.upload.json`;

/** How often one part is tried (a refused URL is replaced by a fresh one; a network error retried). */
const PART_ATTEMPTS = 4;
/** Answers to `complete` after which the upload is failed (or gone) and cannot be resumed (but a part missing can be sent). */
const FAILED_FOR_GOOD = [404, 409, 410, 412];
/** How often one part may find its URL expired and ask for a fresh one before the upload gives up. */
const EXPIRED_URL_RENEWALS = 10;
/** A URL this close to its expiry is not used: a part takes time to send. */
const URL_MARGIN_MS = 60_000;

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

/** Bytes of part `number` (1-based): `partSize`, the last one the rest. */
export const partLength = (upload: Pick<Upload, 'size' | 'partSize' | 'partCount'>, number: number) =>
  number < upload.partCount ? upload.partSize : upload.size - upload.partSize * (upload.partCount - 1);

/** The bytes from `start`, `length` of them, as a stream: a file's, or any other source's. */
export type PartSource = (start: number, length: number) => Readable;

export const fileParts =
  (file: string): PartSource =>
  (start, length) =>
    createReadStream(file, { start, end: start + length - 1, highWaterMark: 256 * 1024 });

/**
 * Sends every part of `upload` the bucket does not hold yet (its `received`, else GET /uploads/{id}),
 * `parallel` at a time, with a progress line on `output`.
 */
export async function sendParts(
  api: FilesApi,
  upload: Upload,
  source: PartSource,
  { parallel, output }: { parallel: number; output: ProgressOutput },
): Promise<void> {
  const received = upload.received ?? (await expectData('GET /uploads/{id}', await getUpload(api, upload.id))).received ?? [];
  const held = new Set(received.filter((part) => part.size === partLength(upload, part.number)).map((part) => part.number));
  const missing = Array.from({ length: upload.partCount }, (_, i) => i + 1).filter((n) => !held.has(n));
  const progress = new Progress(upload.name, upload.size, output);
  for (const n of held) progress.skip(partLength(upload, n));
  const urls = new PartUrls(api, upload.id, missing, upload.parts ?? []);
  const agents = bucketAgents(parallel);
  let next = 0;
  const worker = async () => {
    while (next < missing.length) {
      const number = missing[next++]!;
      await sendPart(urls, source, upload, number, agents, progress);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(parallel, missing.length) }, worker));
  } finally {
    agents.http.destroy();
    agents.https.destroy();
  }
  progress.finish();
  upload.received = undefined; // what the bucket holds now is for the service to say
}

const getUpload = (api: FilesApi, id: string) => api.GET('/uploads/{id}', { params: { path: { id } } });

async function sendPart(urls: PartUrls, source: PartSource, upload: Upload, number: number, agents: BucketAgents, progress: Progress) {
  const length = partLength(upload, number);
  const start = upload.partSize * (number - 1);
  let fresh = false;
  for (let attempt = 1, renewals = 0; ; ) {
    let sent = 0;
    try {
      const url = await urls.get(number, fresh);
      await putPart(url, length, () => source(start, length), {
        agents,
        onBytes: (n) => {
          sent += n;
          progress.add(n);
        },
      });
      return;
    } catch (error) {
      progress.add(-sent);
      fresh = true;
      // An expired URL (or its signing credentials): ask for fresh URLs and go on, at once; no attempt spent.
      if (error instanceof PartRefused && isExpiredUrl(error.status, error.code, error.detail) && renewals < EXPIRED_URL_RENEWALS) {
        renewals++;
        urls.expired(number);
        continue;
      }
      // A 4xx other than a refused URL (403) will not change by trying again.
      const hopeless = error instanceof PartRefused && error.status >= 400 && error.status < 500 && error.status !== 403;
      if (hopeless || attempt >= PART_ATTEMPTS) throw new UploadFailed(`part ${number} of ${upload.name}: ${(error as Error).message}`);
      await sleep(250 * 2 ** attempt);
      attempt++;
    }
  }
}

/**
 * URLs of the parts to send: the 201's first 100, then fresh ones 100 at a time as they are
 * needed. Each remembers the fetch it came from: when one turns out expired, every URL of that
 * fetch or an earlier one is dropped (signed by the same credentials or older ones, they die too).
 */
class PartUrls {
  private readonly known = new Map<number, PartUrl & { fetch: number }>();
  private pending: Promise<void> | undefined;
  private fetches = 0;

  constructor(
    private readonly api: FilesApi,
    private readonly uploadId: string,
    private readonly missing: number[],
    given: PartUrl[],
  ) {
    for (const part of given) this.known.set(part.number, { ...part, fetch: 0 });
  }

  /** Part `number`'s URL was refused as expired: it and every URL fetched no later go. */
  expired(number: number): void {
    const fetch = this.known.get(number)?.fetch;
    if (fetch === undefined) return;
    for (const [n, part] of this.known) if (part.fetch <= fetch) this.known.delete(n);
  }

  async get(number: number, fresh: boolean): Promise<string> {
    if (fresh) this.known.delete(number);
    for (let fetched = 0; ; fetched++) {
      const part = this.known.get(number);
      // After two fetches a URL close to its expiry is still worth a try.
      if (part && (Date.parse(part.expiresAt) - Date.now() > URL_MARGIN_MS || fetched > 1)) return part.url;
      if (fetched > 1) throw new UploadFailed(`the service gave no URL for part ${number}`);
      // One request at a time: a worker that finds one under way waits for it, then looks again.
      this.pending ??= this.fetch(number).finally(() => {
        this.pending = undefined;
      });
      await this.pending;
    }
  }

  /** Fresh URLs for `number` and the parts still to send after it (at most 100). */
  private async fetch(number: number): Promise<void> {
    const from = this.missing.indexOf(number);
    const numbers = [number, ...this.missing.slice(from + 1).filter((n) => n !== number)].slice(0, 100);
    const answer = await this.api.POST('/uploads/{id}/parts', { params: { path: { id: this.uploadId } }, body: { numbers } });
    const fetch = ++this.fetches;
    for (const part of expectData(`POST /uploads/${this.uploadId}/parts`, answer).items) this.known.set(part.number, { ...part, fetch });
  }
}

/**
 * POST /uploads/{id}/complete until it answers the Document: a 202 is waited on (Retry-After);
 * a part the bucket misses (409 upload-incomplete) is sent once more with `resend`.
 */
export async function completeUpload(api: FilesApi, upload: Upload, resend: () => Promise<void>): Promise<Document> {
  let resent = false;
  for (;;) {
    const answer = await api.POST('/uploads/{id}/complete', { params: { path: { id: upload.id } } });
    const { response } = answer;
    if (response.status === 200) return expectData('POST /uploads/{id}/complete', answer) as Document;
    if (response.status === 202 || response.status === 503 || response.status === 429) {
      const seconds = Number(response.headers.get('Retry-After') ?? 1);
      await sleep(Math.min(Math.max(Number.isFinite(seconds) ? seconds : 1, 0.2), 30) * 1000);
      continue;
    }
    if (response.status === 409 && problemOf(answer.error)?.type?.endsWith(':upload-incomplete') && !resent) {
      resent = true;
      await resend();
      continue;
    }
    throw new ApiError(`POST /uploads/${upload.id}/complete`, response.status, answer.error);
  }
}
