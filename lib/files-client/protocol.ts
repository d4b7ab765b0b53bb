/**
 * The upload protocol of API.md section 12, once, for every client: the CLI (./upload.ts, parts
 * streamed from a file with node:http) and the web app (web/src/upload/, parts sliced from a
 * File and sent with XMLHttpRequest). Both bring only "how to PUT these bytes to this URL";
 * which parts are missing, where fresh URLs come from, how often a part is tried and how
 * `complete` is waited on are decided here. No Node.js API: the browser imports this module.
 */
import type { DocumentsClient } from '#lib/client/index';
import { ApiError, expectData, problemOf } from './errors';
import type { Document, PartUrl, Upload } from './paths';

/** How often one part is tried (a refused URL is replaced by a fresh one; a network error retried). */
export const PART_ATTEMPTS = 4;
/** A URL this close to its expiry is not used: a part takes time to send. */
const URL_MARGIN_MS = 60_000;

/** Bytes of part `number` (1-based): `partSize`, the last one the rest. */
export const partLength = (upload: Pick<Upload, 'size' | 'partSize' | 'partCount'>, number: number) =>
  number < upload.partCount ? upload.partSize : upload.size - upload.partSize * (upload.partCount - 1);

/** The bucket refused the part: `status`, S3's error `code` and its message (e.g. 403 AccessDenied, "Request has expired"). */
export class PartRefused extends Error {
  override name = 'PartRefused';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail = '',
  ) {
    super(`the bucket answered ${status}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : ''}`);
  }
}

/**
 * S3's answers to a presigned URL that is no longer good, though nothing else is wrong: its own
 * `X-Amz-Expires` passed (403 AccessDenied "Request has expired"), or the temporary credentials
 * that signed it expired first (400 ExpiredToken; S3 user guide, "Sharing objects with presigned
 * URLs"). The cure is a fresh URL.
 */
export function isExpiredUrl(error: unknown): boolean {
  if (!(error instanceof PartRefused)) return false;
  return (error.status === 400 && error.code === 'ExpiredToken') || (error.status === 403 && /request has expired/i.test(error.detail));
}

/** How often one part may find its URL expired and ask for a fresh one before the upload gives up. */
const EXPIRED_URL_RENEWALS = 10;

/** An upload that cannot go on (a part the bucket keeps refusing): trying again later resumes it. */
export class UploadFailed extends Error {
  override name = 'UploadFailed';
}

/** The upload was paused or cancelled by its owner (the signal given to `sendMissingParts`). */
export class UploadStopped extends Error {
  override name = 'UploadStopped';
}

/**
 * Whether a refused part is worth another URL: 403 (the URL expired or its signature does not
 * hold any more) and 400 `ExpiredToken` (the credentials that signed it expired: S3 user guide,
 * "Sharing objects with presigned URLs") are; any other 4xx will not change by trying again.
 */
export function refusalIsFinal(error: unknown): boolean {
  if (!(error instanceof PartRefused)) return false;
  if (error.status === 403 || (error.status === 400 && error.code === 'ExpiredToken')) return false;
  return error.status >= 400 && error.status < 500;
}

/** PUTs `length` bytes from `start` to `url`; `onBytes` hears of bytes as they go (negative: taken back). */
export type PutPart = (part: { url: string; number: number; start: number; length: number; onBytes: (n: number) => void }) => Promise<void>;

export interface SendOptions {
  put: PutPart;
  /** Parts in flight at once. */
  parallel: number;
  /** Bytes already in the bucket (`skip`), and bytes sent (`add`; negative when a failed part's bytes are taken back). */
  progress?: { skip(bytes: number): void; add(bytes: number): void };
  /** Aborted: no new part starts, and the call rejects with UploadStopped. */
  signal?: AbortSignal;
  /** Wait before attempt `attempt + 1` of a part; default 250 ms × 2^attempt. */
  backoffMs?: (attempt: number) => number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The part numbers of `upload` the bucket does not hold whole yet, from `upload.received` or GET /uploads/{id}. */
export async function missingParts(api: DocumentsClient, upload: Upload): Promise<{ missing: number[]; held: number[] }> {
  const received =
    upload.received ??
    expectData('GET /uploads/{id}', await api.GET('/uploads/{id}', { params: { path: { id: upload.id } } })).received ??
    [];
  const held = new Set(received.filter((part) => part.size === partLength(upload, part.number)).map((part) => part.number));
  const missing = Array.from({ length: upload.partCount }, (_, i) => i + 1).filter((n) => !held.has(n));
  return { missing, held: [...held] };
}

/** Sends every part of `upload` the bucket does not hold yet, `parallel` at a time. */
export async function sendMissingParts(api: DocumentsClient, upload: Upload, options: SendOptions): Promise<void> {
  const { missing, held } = await missingParts(api, upload);
  for (const n of held) options.progress?.skip(partLength(upload, n));
  const urls = new PartUrls(api, upload.id, missing, upload.parts ?? []);
  const backoff = options.backoffMs ?? ((attempt) => 250 * 2 ** attempt);
  let next = 0;
  const worker = async () => {
    while (next < missing.length) {
      if (options.signal?.aborted) throw new UploadStopped('stopped');
      const number = missing[next++]!;
      await sendPart(urls, upload, number, options, backoff);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.parallel, missing.length) }, worker));
  upload.received = undefined; // what the bucket holds now is for the service to say
}

async function sendPart(urls: PartUrls, upload: Upload, number: number, options: SendOptions, backoff: (attempt: number) => number) {
  const length = partLength(upload, number);
  const start = upload.partSize * (number - 1);
  let fresh = false;
  for (let attempt = 1, renewals = 0; ; ) {
    let sent = 0;
    try {
      const url = await urls.get(number, fresh);
      await options.put({
        url,
        number,
        start,
        length,
        onBytes: (n) => {
          sent += n;
          options.progress?.add(n);
        },
      });
      return;
    } catch (error) {
      options.progress?.add(-sent);
      if (options.signal?.aborted) throw new UploadStopped('stopped');
      fresh = true;
      // An expired URL (or its signing credentials): ask for fresh URLs and go on, at once; no attempt spent.
      if (isExpiredUrl(error) && renewals < EXPIRED_URL_RENEWALS) {
        renewals++;
        urls.expired(number);
        continue;
      }
      if (refusalIsFinal(error) || attempt >= PART_ATTEMPTS) {
        throw new UploadFailed(`part ${number} of ${upload.name}: ${(error as Error).message}`);
      }
      await sleep(backoff(attempt));
      attempt++;
    }
  }
}

/**
 * URLs of the parts to send: the 201's first 100, then fresh ones 100 at a time as they are
 * needed. Each remembers the fetch it came from: when one turns out expired, every URL of that
 * fetch or an earlier one is dropped (signed by the same credentials or older ones, they die too).
 */
export class PartUrls {
  private readonly known = new Map<number, PartUrl & { fetch: number }>();
  private pending: Promise<void> | undefined;
  private fetches = 0;

  constructor(
    private readonly api: DocumentsClient,
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
export async function completeUpload(api: DocumentsClient, upload: Upload, resend: () => Promise<void>): Promise<Document> {
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
