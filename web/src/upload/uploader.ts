/**
 * One file's upload in the browser, on the protocol shared with the CLI
 * (lib/files-client/protocol.ts): this module brings only the browser's way to PUT a part (a
 * slice of the File, by XMLHttpRequest for its progress events) and the state a person sees:
 * bytes done, rate, time left, pause (in-flight parts aborted, the upload kept), resume (the
 * parts the bucket holds are skipped), cancel (DELETE /uploads/{id}), retry.
 * The upload's id is kept in localStorage by the file's name, size and date, so picking the same
 * file again after a reload resumes it while the upload lives (24 hours).
 */
import { signal } from '@preact/signals';
import type { DocumentsClient } from '../../../lib/client/index';
import { ApiError, expectData } from '../../../lib/files-client/errors';
import type { Document, Upload } from '../../../lib/files-client/paths';
import { completeUpload, PartRefused, type PutPart, sendMissingParts, UploadStopped } from '../../../lib/files-client/protocol';

export type UploadTarget = { folderId: string; name: string } | { documentId: string };
export type UploadStatus = 'queued' | 'sending' | 'paused' | 'done' | 'failed' | 'cancelled';

export interface UploadState {
  status: UploadStatus;
  done: number;
  total: number;
  /** Bytes per second over the last seconds. */
  rate: number;
  error?: string;
  document?: Document;
}

const PARALLEL = 4;
const resumeKey = (file: File, target: UploadTarget) =>
  `documents.upload:${JSON.stringify(target)}:${file.name}:${file.size}:${file.lastModified}`;

/** PUT of one part: a slice of `file`, progress from the XHR's upload events. */
export function xhrPut(file: Blob, signal: () => AbortSignal): PutPart {
  return ({ url, start, length, onBytes }) =>
    new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      let reported = 0;
      const abort = () => xhr.abort();
      const aborting = signal();
      aborting.addEventListener('abort', abort, { once: true });
      const settle = () => aborting.removeEventListener('abort', abort);
      xhr.open('PUT', url);
      xhr.upload.onprogress = (event) => {
        onBytes(event.loaded - reported);
        reported = event.loaded;
      };
      xhr.onload = () => {
        settle();
        if (xhr.status >= 200 && xhr.status < 300) {
          onBytes(length - reported);
          resolve();
        } else
          reject(
            new PartRefused(
              xhr.status,
              /<Code>([^<]*)<\/Code>/.exec(xhr.responseText)?.[1] ?? '',
              /<Message>([^<]*)<\/Message>/.exec(xhr.responseText)?.[1] ?? '',
            ),
          );
      };
      xhr.onerror = () => {
        settle();
        reject(new Error('the network failed while sending a part'));
      };
      xhr.onabort = () => {
        settle();
        reject(new UploadStopped('stopped'));
      };
      xhr.send(file.slice(start, start + length));
    });
}

export class FileUpload {
  readonly state = signal<UploadState>({ status: 'queued', done: 0, total: 0, rate: 0 });
  private upload: Upload | undefined;
  private controller = new AbortController();
  private samples: [number, number][] = [];

  constructor(
    private readonly api: DocumentsClient,
    readonly file: File,
    readonly target: UploadTarget,
    readonly label: string,
  ) {
    this.state.value = { ...this.state.value, total: file.size };
  }

  /** Starts or resumes; resolves when the upload ends however it ends (see `state`). */
  async run(): Promise<void> {
    if (this.state.value.status === 'sending' || this.state.value.status === 'done') return;
    this.controller = new AbortController();
    this.samples = [];
    this.set({ status: 'sending', done: 0, rate: 0, error: undefined });
    try {
      this.upload = await this.startOrResume();
      if (this.upload.status === 'open') await this.send(this.upload);
      const document = await completeUpload(this.api, this.upload, () => this.send(this.upload!));
      localStorage.removeItem(resumeKey(this.file, this.target));
      this.set({ status: 'done', done: this.file.size, document });
    } catch (error) {
      if (error instanceof UploadStopped || this.controller.signal.aborted) {
        // pause() or cancel() has already said which.
        if ((this.state.value.status as UploadStatus) === 'sending') this.set({ status: 'paused' });
        return;
      }
      this.set({ status: 'failed', error: error instanceof Error ? error.message : String(error) });
    }
  }

  pause(): void {
    this.set({ status: 'paused' });
    this.controller.abort();
  }

  async cancel(): Promise<void> {
    this.set({ status: 'cancelled' });
    this.controller.abort();
    const id = this.upload?.id ?? localStorage.getItem(resumeKey(this.file, this.target));
    localStorage.removeItem(resumeKey(this.file, this.target));
    if (id) await this.api.DELETE('/uploads/{id}', { params: { path: { id } } }).catch(() => {});
  }

  private async send(upload: Upload): Promise<void> {
    let done = 0;
    await sendMissingParts(this.api, upload, {
      parallel: PARALLEL,
      signal: this.controller.signal,
      put: xhrPut(this.file, () => this.controller.signal),
      progress: {
        skip: (n) => {
          done += n;
          this.progress(done, false);
        },
        add: (n) => {
          done += n;
          this.progress(done, true);
        },
      },
    });
  }

  private progress(done: number, moved: boolean): void {
    const now = performance.now();
    if (moved) this.samples.push([now, done]);
    // The rate over the last 5 seconds of sending.
    while (this.samples.length > 2 && now - this.samples[0]![0] > 5_000) this.samples.shift();
    const first = this.samples[0];
    const seconds = first ? (now - first[0]) / 1000 : 0;
    const rate = first && seconds > 0.5 ? (done - first[1]) / seconds : 0;
    this.set({ done, rate: Math.max(rate, 0) });
  }

  /** The upload kept for this file (same name, size, date and target) if it can still be finished, else a new one. */
  private async startOrResume(): Promise<Upload> {
    const key = resumeKey(this.file, this.target);
    const earlier = localStorage.getItem(key);
    if (earlier) {
      const { data } = await this.api.GET('/uploads/{id}', { params: { path: { id: earlier } } });
      if (data && (data.status === 'open' || data.status === 'verifying' || data.status === 'completed')) return data;
      localStorage.removeItem(key);
    }
    const answer = await this.api.POST('/uploads', {
      body: { ...this.target, size: this.file.size, contentType: this.file.type || 'application/octet-stream' },
    });
    const upload = expectData('POST /uploads', answer);
    upload.received = [];
    localStorage.setItem(key, upload.id);
    return upload;
  }

  private set(patch: Partial<UploadState>): void {
    this.state.value = { ...this.state.value, ...patch };
  }
}

export const isNameTaken = (error: unknown) =>
  error instanceof ApiError && error.status === 409 && /conflict/.test(error.problem?.type ?? '');
